package onnx

import (
	"fmt"
	"slices"
	"strings"
)

// ifNode infers an If node: when its condition is a known constant only
// the branch it takes is inferred (and planned); otherwise both are, and
// each output must have the same shape in both.
func (in *inferer) ifNode(n *Node, ins []*value, sc *scope) ([]*value, error) {
	branches := []string{"then_branch", "else_branch"}
	for _, b := range branches {
		if n.Graphs[b] == nil {
			return nil, in.fail("node %s has no %s graph", nodeName(n), b)
		}
	}
	if len(ins) < 1 || ins[0] == nil {
		return nil, in.fail("node %s has no condition input", nodeName(n))
	}
	if cond := ins[0]; len(cond.ints) == 1 {
		b := "else_branch"
		if cond.ints[0] != 0 {
			b = "then_branch"
		}
		in.taken[n] = b
		branches = []string{b}
	}
	if len(branches) == 2 && !slices.ContainsFunc(in.open, func(o string) bool { return strings.HasPrefix(o, "node "+nodeName(n)+":") }) {
		in.open = append(in.open, fmt.Sprintf("node %s: its condition is not a constant, so both branches are planned and the arena holds the larger%s", nodeName(n), in.scalarHint()))
	}
	var results [][]*value
	for _, b := range branches {
		g := n.Graphs[b]
		if len(g.Inputs) > 0 {
			return nil, in.fail("node %s: its %s has %d inputs; an If body has none", nodeName(n), b, len(g.Inputs))
		}
		bsc := &scope{vals: map[string]*value{}, parent: sc}
		for _, t := range g.Initializers {
			bsc.vals[t.Name] = in.tensorValue(t, g)
		}
		if err := in.graph(g, bsc); err != nil {
			if len(branches) == 2 {
				return nil, in.fail("node %s: its condition is not a constant, so both branches are planned, and its %s fails: %v%s", nodeName(n), b, err, in.scalarHint())
			}
			return nil, err
		}
		if len(g.Outputs) != len(n.Outputs) {
			return nil, in.fail("node %s: its %s has %d outputs, the node %d", nodeName(n), b, len(g.Outputs), len(n.Outputs))
		}
		var outs []*value
		for _, vi := range g.Outputs {
			v := bsc.get(vi.GetName())
			if v == nil {
				return nil, in.fail("node %s: output %q of its %s is not defined", nodeName(n), vi.GetName(), b)
			}
			outs = append(outs, v)
		}
		in.bodyOuts[g] = outs
		results = append(results, outs)
	}
	outs := make([]*value, len(n.Outputs))
	for k := range outs {
		a := results[0][k]
		o := shaped(a.elem, a.shape)
		o.ints, o.flts = a.ints, a.flts
		if len(results) == 2 {
			b := results[1][k]
			if a.elem != b.elem || !slices.Equal(a.shape, b.shape) {
				return nil, fmt.Errorf("its branches give output %d different types or shapes (%s %v and %s %v) and its condition is not a constant",
					k, TypeName(a.elem), a.shape, TypeName(b.elem), b.shape)
			}
			if !slices.Equal(a.ints, b.ints) {
				o.ints = nil
			}
			o.flts = nil
		}
		outs[k] = o
	}
	return outs, nil
}

// scalarHint suggests fixing the main graph's scalar integer inputs, on
// which an If condition may depend.
func (in *inferer) scalarHint() string {
	var names []string
	for _, v := range in.values {
		if v.graph == in.m.Graph && v.node == nil && !v.weight && isInt(v.elem) && v.ints == nil {
			if n, ok := elements(v.shape); ok && n == 1 {
				names = append(names, v.name)
			}
		}
	}
	if len(names) == 0 {
		return ""
	}
	return fmt.Sprintf(" (if the condition depends on the scalar input %s, fix its value with --dim %s=VALUE)", strings.Join(names, ", "), names[0])
}
