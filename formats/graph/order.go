package graph

import (
	"fmt"

	"github.com/optalloc/optalloc/model"
)

// The orders a file may ask for (File.Order).
const (
	// OrderAuto keeps the ops' order when it is an execution order (every
	// input produced before it is read) and otherwise derives one
	// depth-first (the default).
	OrderAuto = "auto"
	// OrderGiven requires the listed order to be an execution order.
	OrderGiven = "given"
	// OrderDepthFirst always derives the order depth-first from the graph
	// outputs: each output's producers are computed as late as possible
	// before it, so that tensors die soon after they are made (the
	// memory-aware order of depth-first schedulers).
	OrderDepthFirst = "depth-first"
)

// needsOrder reports whether some op reads a tensor that a later op
// produces.
func needsOrder(mi *minfo) bool {
	for i := range mi.m.Ops {
		for _, in := range mi.m.Ops[i].Inputs {
			if k, ok := mi.byName[in]; ok && mi.tensors[k].producer > i {
				return true
			}
		}
	}
	return false
}

// reorder derives an execution order depth-first: each op comes after the
// producers of its inputs, visited in input order. fromOutputs starts from
// the graph outputs (in tensor order), then takes the remaining ops in the
// listed order; otherwise every op is visited in the listed order, which
// keeps the listed order wherever it is valid. It returns false on a
// cycle (the caller's checks then name it) and leaves mi unchanged.
func reorder(mi *minfo, fromOutputs bool) bool {
	ops := mi.m.Ops
	state := make([]uint8, len(ops)) // 0 new, 1 on the stack, 2 placed
	order := make([]int, 0, len(ops))
	var visit func(i int) bool
	visit = func(i int) bool {
		switch state[i] {
		case 1:
			return false
		case 2:
			return true
		}
		state[i] = 1
		for _, in := range ops[i].Inputs {
			if k, ok := mi.byName[in]; ok {
				if p := mi.tensors[k].producer; p >= 0 && p != i && !visit(p) {
					return false
				}
			}
		}
		state[i] = 2
		order = append(order, i)
		return true
	}
	if fromOutputs {
		for k := range mi.tensors {
			if p := mi.tensors[k].producer; mi.tensors[k].kind == model.Output && p >= 0 && !visit(p) {
				return false
			}
		}
	}
	for i := range ops {
		if !visit(i) {
			return false
		}
	}
	m := *mi.m
	m.Ops = make([]Op, len(ops))
	moved := make([]int, len(ops)) // old index -> new index
	for n, i := range order {
		m.Ops[n] = ops[i]
		moved[i] = n
	}
	for k := range mi.tensors {
		if p := mi.tensors[k].producer; p >= 0 {
			mi.tensors[k].producer = moved[p]
		}
	}
	mi.m = &m
	return true
}

// checkOrder validates f.Order.
func checkOrder(order string) error {
	switch order {
	case "", OrderAuto, OrderGiven, OrderDepthFirst:
		return nil
	}
	return fmt.Errorf("order %q: want %q (default), %q or %q", order, OrderAuto, OrderGiven, OrderDepthFirst)
}
