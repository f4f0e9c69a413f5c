package graph

import (
	"fmt"
	"slices"
	"strings"

	"github.com/optalloc/optalloc/model"
)

// AliasInfo is one zero-copy placement made by the in-place rules.
type AliasInfo struct {
	Model  string `json:"model,omitempty"`
	Op     string `json:"op"`
	Rule   string `json:"rule"`   // reshape, concat, split or slice
	Child  string `json:"child"`  // buffer placed inside Parent
	Parent string `json:"parent"` // buffer that holds it
	Delta  int64  `json:"delta"`  // byte offset of Child inside Parent
	// Tensor is the op's tensor that needs no copy; it differs from Child
	// when Child is the root of a chain of views ending at Tensor.
	Tensor string `json:"tensor"`
	Bytes  int64  `json:"bytes"` // bytes of the copy removed
}

// SkipInfo is an in-place opportunity that was not taken, and why.
type SkipInfo struct {
	Model  string `json:"model,omitempty"`
	Op     string `json:"op"`
	Rule   string `json:"rule"`
	Tensor string `json:"tensor,omitempty"`
	Reason string `json:"reason"`
}

// ruleOf maps an op type to its in-place rule ("" for none).
func ruleOf(typ string) string {
	switch strings.ToLower(typ) {
	case "reshape", "flatten", "squeeze", "unsqueeze", "expanddims", "view":
		return "reshape"
	case "concat", "concatenate", "concatv2":
		return "concat"
	case "split":
		return "split"
	case "slice":
		return "slice"
	}
	return ""
}

// root returns the alias root of tensor k and k's byte delta inside it.
func (mi *minfo) root(k int) (int, int64) {
	var d int64
	for mi.tensors[k].parent >= 0 {
		d += mi.tensors[k].delta
		k = mi.tensors[k].parent
	}
	return k, d
}

// inPlace applies the in-place rules to every op of the model, in order.
func (b *builder) inPlace(mi *minfo) error {
	for i := range mi.m.Ops {
		o := &mi.m.Ops[i]
		var err error
		switch ruleOf(o.Type) {
		case "reshape":
			err = b.reshape(mi, i)
		case "concat":
			err = b.concat(mi, i)
		case "split":
			err = b.split(mi, i)
		case "slice":
			err = b.slice(mi, i)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (b *builder) skip(mi *minfo, o *Op, rule, tensor, format string, args ...any) {
	b.rep.Skipped = append(b.rep.Skipped, SkipInfo{Model: b.modelName(mi), Op: o.Name, Rule: rule, Tensor: tensor, Reason: fmt.Sprintf(format, args...)})
}

func (b *builder) modelName(mi *minfo) string {
	if b.several {
		return mi.name
	}
	return ""
}

// made is one alias decision, kept in the order it was made.
type made struct {
	op            *Op
	rule          string
	child, tensor int
}

func (b *builder) alias(mi *minfo, o *Op, rule string, child, parent int, delta int64, tensor int) {
	c := &mi.tensors[child]
	c.parent, c.delta = parent, delta
	mi.made = append(mi.made, made{op: o, rule: rule, child: child, tensor: tensor})
}

// report records the aliases that survived resolveOverlaps.
func (b *builder) report(mi *minfo) {
	b.rep.Aliases = slices.Grow(b.rep.Aliases, len(mi.made))
	for _, m := range mi.made {
		c := &mi.tensors[m.child]
		if c.parent < 0 {
			continue
		}
		b.rep.Aliases = append(b.rep.Aliases, AliasInfo{Model: b.modelName(mi), Op: m.op.Name, Rule: m.rule,
			Child: mi.prefix + c.t.Name, Parent: mi.prefix + mi.tensors[c.parent].t.Name, Delta: c.delta,
			Tensor: mi.prefix + mi.tensors[m.tensor].t.Name, Bytes: mi.tensors[m.tensor].bytes})
		b.rep.CopyBytesRemoved += mi.tensors[m.tensor].bytes
	}
}

func (b *builder) opWhere(mi *minfo, o *Op) string {
	if b.several {
		return fmt.Sprintf("model %q: op %q (%s)", mi.name, o.Name, o.Type)
	}
	return fmt.Sprintf("op %q (%s)", o.Name, o.Type)
}

// reshape: the output is a view of the input (delta 0) when the input dies
// at this op. The input may itself be a view or sit inside a concat output.
func (b *builder) reshape(mi *minfo, i int) error {
	o := &mi.m.Ops[i]
	if len(o.Inputs) < 1 || len(o.Outputs) != 1 {
		return b.errf(o.Line, "%s needs a data input and one output", b.opWhere(mi, o))
	}
	in, out := mi.byName[o.Inputs[0]], mi.byName[o.Outputs[0]]
	ti, to := &mi.tensors[in], &mi.tensors[out]
	if ti.bytes != to.bytes {
		return b.errf(o.Line, "%s changes the size: input %q has %d bytes, output %q has %d", b.opWhere(mi, o), ti.t.Name, ti.bytes, to.t.Name, to.bytes)
	}
	if !mi.diesAt(in, i) {
		b.skip(mi, o, "reshape", to.t.Name, "input %q is still live after the op (read later, or a weight or held graph output)", ti.t.Name)
		return nil
	}
	b.place(mi, o, "reshape", out, in, 0, out)
	return nil
}

// axisOf normalises an axis for a rank.
func (b *builder) axisOf(mi *minfo, o *Op, rank int, def int) (int, error) {
	a := def
	if o.Axis != nil {
		a = *o.Axis
	}
	if a < -rank || a >= rank {
		return 0, b.errf(o.Line, "%s: axis %d is out of range for rank %d", b.opWhere(mi, o), a, rank)
	}
	if a < 0 {
		a += rank
	}
	return a, nil
}

// outerOnes reports whether every dimension before axis is 1, so that a
// block along axis is one contiguous byte range.
func outerOnes(shape []int64, axis int) bool {
	for _, d := range shape[:axis] {
		if d != 1 {
			return false
		}
	}
	return true
}

// sameElem checks that two tensors have the same element type.
func (b *builder) sameElem(mi *minfo, o *Op, x, y int) error {
	tx, ty := &mi.tensors[x], &mi.tensors[y]
	if tx.width != ty.width || (tx.t.DType != "" && ty.t.DType != "" && !strings.EqualFold(tx.t.DType, ty.t.DType)) {
		return b.errf(o.Line, "%s: %q is %s but %q is %s", b.opWhere(mi, o), tx.t.Name, tx.t.DType, ty.t.Name, ty.t.DType)
	}
	return nil
}

// blocks checks the shapes of a concat (whole = output, parts = inputs) or
// a split (whole = input, parts = outputs) along the axis and returns the
// normalised axis, or -1 with a skip reason when shapes are unknown.
func (b *builder) blocks(mi *minfo, o *Op, whole int, parts []int, def int) (int, string, error) {
	tw := &mi.tensors[whole]
	if tw.t.Shape == nil {
		return -1, fmt.Sprintf("%q has no shape", tw.t.Name), nil
	}
	for _, p := range parts {
		if mi.tensors[p].t.Shape == nil {
			return -1, fmt.Sprintf("%q has no shape", mi.tensors[p].t.Name), nil
		}
	}
	rank := len(tw.t.Shape)
	axis, err := b.axisOf(mi, o, rank, def)
	if err != nil {
		return 0, "", err
	}
	var sum int64
	for _, p := range parts {
		tp := &mi.tensors[p]
		if err := b.sameElem(mi, o, whole, p); err != nil {
			return 0, "", err
		}
		if len(tp.t.Shape) != rank {
			return 0, "", b.errf(o.Line, "%s: shape mismatch: %q has shape %v, %q has %v (ranks differ)", b.opWhere(mi, o), tp.t.Name, tp.t.Shape, tw.t.Name, tw.t.Shape)
		}
		for d := range rank {
			if d != axis && tp.t.Shape[d] != tw.t.Shape[d] {
				return 0, "", b.errf(o.Line, "%s: shape mismatch: %q has shape %v, %q has %v (dimension %d differs, axis is %d)", b.opWhere(mi, o), tp.t.Name, tp.t.Shape, tw.t.Name, tw.t.Shape, d, axis)
			}
		}
		sum += tp.t.Shape[axis]
	}
	if sum != tw.t.Shape[axis] {
		return 0, "", b.errf(o.Line, "%s: shape mismatch: the parts add up to %d along axis %d but %q has %d", b.opWhere(mi, o), sum, axis, tw.t.Name, tw.t.Shape[axis])
	}
	if !outerOnes(tw.t.Shape, axis) {
		return -1, fmt.Sprintf("axis %d is not the outermost non-1 dimension of %v: the parts are not contiguous", axis, tw.t.Shape), nil
	}
	return axis, "", nil
}

func (b *builder) indices(mi *minfo, names []string) []int {
	out := make([]int, len(names))
	for k, n := range names {
		out[k] = mi.byName[n]
	}
	return out
}

// concat places each input back to back inside the output when:
//   - the concat axis is the outermost non-1 dimension of the output (every
//     input is then one contiguous byte range of it);
//   - the input's offset inside the output is a multiple of the alignment;
//   - the input is produced by an op of this model (not a graph input or a
//     weight) and appears once among the concat's inputs;
//   - the input is not already inside another buffer: its alias root has
//     exactly the input's bytes (a chain of same-size reshape views is
//     fine: the root of the chain goes inside the output). An input already
//     placed in an earlier concat, or a split/slice view of a bigger
//     tensor, is copied instead.
//
// Inputs that fail are copied by the op; the others need no copy.
func (b *builder) concat(mi *minfo, i int) error {
	o := &mi.m.Ops[i]
	if len(o.Inputs) < 1 || len(o.Outputs) != 1 {
		return b.errf(o.Line, "%s needs inputs and one output", b.opWhere(mi, o))
	}
	if o.Axis == nil {
		return b.errf(o.Line, "%s needs an axis", b.opWhere(mi, o))
	}
	out := mi.byName[o.Outputs[0]]
	ins := b.indices(mi, o.Inputs)
	axis, reason, err := b.blocks(mi, o, out, ins, 0)
	if err != nil {
		return err
	}
	if axis < 0 {
		b.skip(mi, o, "concat", "", "%s", reason)
		return nil
	}
	var delta int64
	for _, in := range ins {
		ti := &mi.tensors[in]
		d := delta
		delta += ti.bytes
		r, dx := mi.root(in)
		tr := &mi.tensors[r]
		switch {
		case d%b.align != 0:
			b.skip(mi, o, "concat", ti.t.Name, "offset %d inside %q is not a multiple of the alignment %d", d, mi.tensors[out].t.Name, b.align)
		case ti.producer < 0 || tr.producer < 0 || tr.kind == model.Input || constant(tr.kind):
			b.skip(mi, o, "concat", ti.t.Name, "not produced by an op (graph input or weight)")
		case count(ins, in) > 1:
			b.skip(mi, o, "concat", ti.t.Name, "appears more than once among the inputs")
		case dx != 0 || tr.bytes != ti.bytes:
			b.skip(mi, o, "concat", ti.t.Name, "already lies inside %q (another concat, split or slice)", tr.t.Name)
		default:
			b.place(mi, o, "concat", r, out, d, in)
		}
	}
	return nil
}

// split places its outputs back to back inside its input when the split
// axis is the outermost non-1 dimension of the input and each output's
// offset is a multiple of the alignment. The input stays allocated while
// any output is live.
func (b *builder) split(mi *minfo, i int) error {
	o := &mi.m.Ops[i]
	if len(o.Inputs) < 1 || len(o.Outputs) < 1 {
		return b.errf(o.Line, "%s needs a data input and outputs", b.opWhere(mi, o))
	}
	in := mi.byName[o.Inputs[0]]
	outs := b.indices(mi, o.Outputs)
	axis, reason, err := b.blocks(mi, o, in, outs, 0)
	if err != nil {
		return err
	}
	if axis < 0 {
		b.skip(mi, o, "split", "", "%s", reason)
		return nil
	}
	var delta int64
	for _, out := range outs {
		d := delta
		delta += mi.tensors[out].bytes
		if d%b.align != 0 {
			b.skip(mi, o, "split", mi.tensors[out].t.Name, "offset %d inside %q is not a multiple of the alignment %d", d, mi.tensors[in].t.Name, b.align)
			continue
		}
		b.place(mi, o, "split", out, in, d, out)
	}
	return nil
}

// place puts child inside parent at byte delta for tensor's op when it
// fits (resolveOverlaps later undoes placements that make unrelated
// buffers share bytes while live).
func (b *builder) place(mi *minfo, o *Op, rule string, child, parent int, delta int64, tensor int) bool {
	tp, tc := &mi.tensors[parent], &mi.tensors[child]
	if !b.rules.on(rule) {
		b.skip(mi, o, rule, mi.tensors[tensor].t.Name, "in_place.%s is off", rule)
		return false
	}
	if delta+tc.bytes > tp.bytes {
		b.skip(mi, o, rule, mi.tensors[tensor].t.Name, "it does not fit inside %q", tp.t.Name)
		return false
	}
	b.alias(mi, o, rule, child, parent, delta, tensor)
	return true
}

// slice makes its output a view of its input when the sliced region is one
// contiguous byte range (every dimension before the last cut one has
// extent 1 in the output, every dimension after it is whole), its offset is
// a multiple of the alignment, it overlaps no other view of the input, and
// the output does not outlive the input (a long-lived small slice would
// keep its whole input allocated).
func (b *builder) slice(mi *minfo, i int) error {
	o := &mi.m.Ops[i]
	if len(o.Inputs) < 1 || len(o.Outputs) != 1 {
		return b.errf(o.Line, "%s needs a data input and one output", b.opWhere(mi, o))
	}
	in, out := mi.byName[o.Inputs[0]], mi.byName[o.Outputs[0]]
	ti, to := &mi.tensors[in], &mi.tensors[out]
	if ti.t.Shape == nil || to.t.Shape == nil {
		b.skip(mi, o, "slice", to.t.Name, "shapes unknown")
		return nil
	}
	if err := b.sameElem(mi, o, in, out); err != nil {
		return err
	}
	rank := len(ti.t.Shape)
	if len(to.t.Shape) != rank {
		return b.errf(o.Line, "%s: shape mismatch: output %v and input %v have different ranks", b.opWhere(mi, o), to.t.Shape, ti.t.Shape)
	}
	if o.Begin == nil {
		b.skip(mi, o, "slice", to.t.Name, "no begin given")
		return nil
	}
	if len(o.Begin) != rank {
		return b.errf(o.Line, "%s: begin %v has %d entries, the input has rank %d", b.opWhere(mi, o), o.Begin, len(o.Begin), rank)
	}
	cut := -1
	for d := range rank {
		if o.Begin[d] < 0 || o.Begin[d] > ti.t.Shape[d]-to.t.Shape[d] { // no overflow: shapes are small
			return b.errf(o.Line, "%s: begin %v with output shape %v does not fit in input shape %v", b.opWhere(mi, o), o.Begin, to.t.Shape, ti.t.Shape)
		}
		if to.t.Shape[d] != ti.t.Shape[d] {
			cut = d
		}
	}
	var delta, stride int64 = 0, ti.width
	for d := rank - 1; d >= 0; d-- {
		delta += o.Begin[d] * stride
		stride *= ti.t.Shape[d]
	}
	switch {
	case cut >= 0 && !outerOnes(to.t.Shape, cut):
		b.skip(mi, o, "slice", to.t.Name, "the region %v at %v of %v is not contiguous", to.t.Shape, o.Begin, ti.t.Shape)
	case delta%b.align != 0:
		b.skip(mi, o, "slice", to.t.Name, "offset %d inside %q is not a multiple of the alignment %d", delta, ti.t.Name, b.align)
	case to.end > ti.end:
		b.skip(mi, o, "slice", to.t.Name, "it outlives %q: a view would keep all of it allocated", ti.t.Name)
	default:
		b.place(mi, o, "slice", out, in, delta, out)
	}
	return nil
}

func count(xs []int, x int) int {
	n := 0
	for _, y := range xs {
		if y == x {
			n++
		}
	}
	return n
}
