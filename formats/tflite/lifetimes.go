package tflite

import (
	"fmt"

	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/optalloc/optalloc/formats/tflite/internal/schema"
)

// lifetimes marks every tensor's first and last allocation scope the way
// TFLite Micro's AllocationInfoBuilder::MarkAllocationLifetimes does,
// starting from subgraph 0:
//
//   - the subgraph's inputs are created and used at the scope of its entry;
//   - each operator opens a new scope; its outputs are created there; a
//     control-flow operator (IF, WHILE, CALL_ONCE) then walks each subgraph
//     it calls, each in a new scope of its own; then the operator's inputs
//     and outputs are used at the current scope (after the called
//     subgraphs, so a caller's tensors outlive its callees');
//   - the subgraph's outputs are created (if nothing wrote them) and used at
//     its exit scope.
//
// A scope only ever moves a tensor's first creation earlier (the first
// time counts) and its last use later.
func (d *decoder) lifetimes() error {
	lt := &lifetimer{d: d, active: make([]bool, len(d.m.Subgraphs)), seen: map[[2]int]bool{}}
	d.m.opScopes = make([][][2]int, len(d.m.Subgraphs))
	for s, sub := range d.m.Subgraphs {
		d.m.opScopes[s] = make([][2]int, sub.Ops)
		for i := range d.m.opScopes[s] {
			d.m.opScopes[s][i] = [2]int{-1, -1}
		}
	}
	if err := lt.mark(0); err != nil {
		return err
	}
	d.m.Ops = lt.scope
	return nil
}

type lifetimer struct {
	d      *decoder
	scope  int
	active []bool // subgraphs on the call stack (a cycle would never end)
	visits int    // operators visited, bounded by maxVisits
	seen   map[[2]int]bool
}

// maxVisits bounds the operator visits of the walk: a subgraph called
// from many control-flow operators is walked once per call, so nesting can
// multiply the work; real models stay far below this.
const maxVisits = 1_000_000

func (lt *lifetimer) created(s, k int) error {
	t, err := lt.tensor(s, k)
	if err != nil || t == nil {
		return err
	}
	if t.First < 0 {
		t.First = lt.scope
	}
	return nil
}

func (lt *lifetimer) used(s, k int) error {
	t, err := lt.tensor(s, k)
	if err != nil || t == nil {
		return err
	}
	t.Last = lt.scope
	return nil
}

// tensor returns subgraph s's tensor k; nil for k = -1 (an omitted optional
// input).
func (lt *lifetimer) tensor(s, k int) (*Tensor, error) {
	sub := lt.d.m.Subgraphs[s]
	if k == -1 {
		return nil, nil
	}
	if k < 0 || k >= sub.Count {
		return nil, lt.d.fail("subgraph %d refers to tensor %d, but it has %d tensors", s, k, sub.Count)
	}
	return &lt.d.m.Tensors[sub.First+k], nil
}

func (lt *lifetimer) mark(s int) error {
	if s < 0 || s >= len(lt.active) {
		return lt.d.fail("a control-flow operator calls subgraph %d, but the model has %d subgraphs", s, len(lt.active))
	}
	if lt.active[s] {
		return lt.d.fail("subgraph %d calls itself (directly or through others)", s)
	}
	lt.active[s] = true
	defer func() { lt.active[s] = false }()
	root := lt.d.m.root
	var sg schema.SubGraph
	root.Subgraphs(&sg, s)
	for i := range sg.InputsLength() {
		k := int(sg.Inputs(i))
		if err := lt.created(s, k); err != nil {
			return err
		}
		if err := lt.used(s, k); err != nil {
			return err
		}
	}
	var op schema.Operator
	for i := range sg.OperatorsLength() {
		lt.scope++
		if lt.visits++; lt.visits > maxVisits {
			return lt.d.fail("control flow calls subgraphs more than %d operator visits deep", maxVisits)
		}
		sg.Operators(&op, i)
		nin, err := lt.d.vecLen(op.InputsLength(), 4, fmt.Sprintf("operator %d of subgraph %d's inputs", i, s))
		if err != nil {
			return err
		}
		nout, err := lt.d.vecLen(op.OutputsLength(), 4, fmt.Sprintf("operator %d of subgraph %d's outputs", i, s))
		if err != nil {
			return err
		}
		for n := range nout {
			if err := lt.created(s, int(op.Outputs(n))); err != nil {
				return err
			}
		}
		start := lt.scope // a scratch buffer's first scope: before the called subgraphs
		if lt.code(&op) == schema.BuiltinOperatorCUSTOM && !lt.seen[[2]int{s, i}] {
			lt.seen[[2]int{s, i}] = true
			lt.custom(s, &op, nin, nout)
		}
		for _, callee := range lt.callees(&op) {
			lt.scope++
			if err := lt.mark(callee); err != nil {
				return err
			}
		}
		for n := range nin {
			if err := lt.used(s, int(op.Inputs(n))); err != nil {
				return err
			}
		}
		for n := range nout {
			if err := lt.used(s, int(op.Outputs(n))); err != nil {
				return err
			}
		}
		// The operator's scratch buffers live from start to here, over
		// every visit (MarkAllocationLifetimes, the scratch loop).
		sc := &lt.d.m.opScopes[s][i]
		if sc[0] < 0 {
			sc[0] = start
		}
		sc[1] = lt.scope
	}
	for i := range sg.OutputsLength() {
		k := int(sg.Outputs(i))
		if err := lt.created(s, k); err != nil {
			return err
		}
		if err := lt.used(s, k); err != nil {
			return err
		}
	}
	return nil
}

// callees lists the subgraphs a control-flow operator runs, in TFLite
// Micro's order (IF: then, else; WHILE: cond, body; CALL_ONCE: init).
func (lt *lifetimer) callees(op *schema.Operator) []int {
	code := lt.code(op)
	var tab flatbuffers.Table
	if !op.BuiltinOptions(&tab) {
		return nil
	}
	switch {
	case code == schema.BuiltinOperatorIF && op.BuiltinOptionsType() == schema.BuiltinOptionsIfOptions:
		var o schema.IfOptions
		o.Init(tab.Bytes, tab.Pos)
		return []int{int(o.ThenSubgraphIndex()), int(o.ElseSubgraphIndex())}
	case code == schema.BuiltinOperatorWHILE && op.BuiltinOptionsType() == schema.BuiltinOptionsWhileOptions:
		var o schema.WhileOptions
		o.Init(tab.Bytes, tab.Pos)
		return []int{int(o.CondSubgraphIndex()), int(o.BodySubgraphIndex())}
	case code == schema.BuiltinOperatorCALL_ONCE && op.BuiltinOptionsType() == schema.BuiltinOptionsCallOnceOptions:
		var o schema.CallOnceOptions
		o.Init(tab.Bytes, tab.Pos)
		return []int{int(o.InitSubgraphIndex())}
	}
	return nil
}

// code is an operator's builtin code (TFLite's rule: the larger of the
// deprecated int8 field and the int32 one); -1 for a bad opcode index.
func (lt *lifetimer) code(op *schema.Operator) schema.BuiltinOperator { return lt.d.m.opcode(op) }

// opcode is an operator's builtin code (see lifetimer.code).
func (m *Model) opcode(op *schema.Operator) schema.BuiltinOperator {
	root := m.root
	idx := int(op.OpcodeIndex())
	if idx >= root.OperatorCodesLength() {
		return -1
	}
	var oc schema.OperatorCode
	root.OperatorCodes(&oc, idx)
	return max(schema.BuiltinOperator(oc.DeprecatedBuiltinCode()), oc.BuiltinCode())
}

// custom records the operands of a CUSTOM operator (global tensor indices).
func (lt *lifetimer) custom(s int, op *schema.Operator, nin, nout int) {
	sub := lt.d.m.Subgraphs[s]
	var ts []int
	add := func(k int32) {
		if k >= 0 && int(k) < sub.Count {
			ts = append(ts, sub.First+int(k))
		}
	}
	for n := range nin {
		add(op.Inputs(n))
	}
	for n := range nout {
		add(op.Outputs(n))
	}
	lt.d.m.customOps = append(lt.d.m.customOps, ts)
}
