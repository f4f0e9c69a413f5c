package onnx

import (
	"fmt"
	"math"
	"slices"
)

func (c *opCtx) reshape() ([]*value, error) {
	x, err := c.input(0)
	if err != nil {
		return nil, err
	}
	var s []int64
	if c.has(1) {
		if s, err = c.constInts(1, "shape"); err != nil {
			return nil, err
		}
	} else if s, _ = c.ints("shape"); s == nil {
		return nil, fmt.Errorf("no shape")
	}
	total, ok := elements(x.shape)
	if !ok {
		return nil, overflow("the element count of %v", x.shape)
	}
	allowzero := c.int("allowzero", 0) != 0
	out := make([]int64, len(s))
	infer, prod := -1, int64(1)
	for i, d := range s {
		switch {
		case d == 0 && !allowzero:
			if i >= len(x.shape) {
				return nil, fmt.Errorf("shape %v copies dimension %d of %v", s, i, x.shape)
			}
			out[i] = x.shape[i]
		case d == -1:
			if infer >= 0 {
				return nil, fmt.Errorf("shape %v has two -1", s)
			}
			infer = i
			continue
		case d < 0:
			return nil, fmt.Errorf("shape %v has %d", s, d)
		default:
			out[i] = d
		}
		if prod, ok = mulDim(prod, out[i]); !ok {
			return nil, overflow("the element count of shape %v", s)
		}
	}
	if infer >= 0 {
		if prod == 0 || total%prod != 0 {
			return nil, fmt.Errorf("cannot reshape %v to %v", x.shape, s)
		}
		out[infer] = total / prod
	} else if prod != total {
		return nil, fmt.Errorf("cannot reshape %v (%d elements) to %v", x.shape, total, s)
	}
	return []*value{withInts(shaped(x.elem, out), x.ints)}, nil
}

// axesOf reads an "axes" attribute or, from opset 13 on, input k.
func (c *opCtx) axesOf(k int) ([]int64, bool, error) {
	if a, ok := c.ints("axes"); ok {
		return a, true, nil
	}
	if c.has(k) {
		v, err := c.constInts(k, "axes")
		return v, true, err
	}
	return nil, false, nil
}

func (c *opCtx) squeeze() ([]*value, error) {
	x, err := c.input(0)
	if err != nil {
		return nil, err
	}
	axes, given, err := c.axesOf(1)
	if err != nil {
		return nil, err
	}
	r := len(x.shape)
	drop := make([]bool, r)
	if !given {
		for i, d := range x.shape {
			drop[i] = d == 1
		}
	}
	for _, a := range axes {
		k, err := axis(a, r)
		if err != nil {
			return nil, err
		}
		if x.shape[k] != 1 {
			return nil, fmt.Errorf("axis %d of %v is not 1", a, x.shape)
		}
		drop[k] = true
	}
	out := []int64{}
	for i, d := range x.shape {
		if !drop[i] {
			out = append(out, d)
		}
	}
	return []*value{withInts(shaped(x.elem, out), x.ints)}, nil
}

func (c *opCtx) unsqueeze() ([]*value, error) {
	x, err := c.input(0)
	if err != nil {
		return nil, err
	}
	axes, _, err := c.axesOf(1)
	if err != nil {
		return nil, err
	}
	r := len(x.shape) + len(axes)
	ins := make([]bool, r)
	for _, a := range axes {
		k, err := axis(a, r)
		if err != nil {
			return nil, err
		}
		if ins[k] {
			return nil, fmt.Errorf("axis %d given twice", a)
		}
		ins[k] = true
	}
	out := make([]int64, 0, r)
	j := 0
	for i := range r {
		if ins[i] {
			out = append(out, 1)
		} else {
			out = append(out, x.shape[j])
			j++
		}
	}
	return []*value{withInts(shaped(x.elem, out), x.ints)}, nil
}

func (c *opCtx) concat() ([]*value, error) {
	var xs []*value
	for k := range c.ins {
		x, err := c.input(k)
		if err != nil {
			return nil, err
		}
		xs = append(xs, x)
	}
	if len(xs) == 0 {
		return nil, fmt.Errorf("no inputs")
	}
	r := len(xs[0].shape)
	a, err := axis(c.int("axis", 0), r)
	if err != nil {
		return nil, err
	}
	out := slices.Clone(xs[0].shape)
	out[a] = 0
	var vals []int64
	ok := r == 1
	for _, x := range xs {
		if len(x.shape) != r {
			return nil, fmt.Errorf("inputs of ranks %d and %d", r, len(x.shape))
		}
		for i := range r {
			if i != a && x.shape[i] != out[i] {
				return nil, fmt.Errorf("shapes %v and %v differ off the axis", xs[0].shape, x.shape)
			}
		}
		var fits bool
		if out[a], fits = addDim(out[a], x.shape[a]); !fits {
			return nil, overflow("the concatenated dimension %d", a)
		}
		ok = ok && x.ints != nil && len(vals)+len(x.ints) <= maxValues
		if !ok {
			continue
		}
		vals = append(vals, x.ints...)
	}
	v := shaped(xs[0].elem, out)
	if ok {
		v = withInts(v, vals)
	}
	return []*value{v}, nil
}

func (c *opCtx) split() ([]*value, error) {
	x, err := c.input(0)
	if err != nil {
		return nil, err
	}
	a, err := axis(c.int("axis", 0), len(x.shape))
	if err != nil {
		return nil, err
	}
	n := len(c.n.Outputs)
	parts, ok := c.ints("split")
	if !ok && c.has(1) {
		if parts, err = c.constInts(1, "split"); err != nil {
			return nil, err
		}
	}
	d := x.shape[a]
	if len(parts) == 0 {
		if k := c.int("num_outputs", 0); k != 0 && k != int64(n) {
			return nil, fmt.Errorf("num_outputs is %d, but the node has %d outputs", k, n)
		}
		if n == 0 {
			return nil, fmt.Errorf("no outputs")
		}
		each := ceilDiv(d, int64(n))
		for i := range n {
			parts = append(parts, min(each, max(d-int64(i)*each, 0)))
		}
	}
	if len(parts) != n {
		return nil, fmt.Errorf("split %v does not cut dimension %d of %v into %d outputs", parts, d, x.shape, n)
	}
	var total int64
	var outs []*value
	for _, p := range parts {
		if p < 0 {
			return nil, fmt.Errorf("split %v has a negative part", parts)
		}
		if total, ok = addDim(total, p); !ok {
			return nil, overflow("the sum of split %v", parts)
		}
		s := slices.Clone(x.shape)
		s[a] = p
		outs = append(outs, shaped(x.elem, s))
	}
	if total != d {
		return nil, fmt.Errorf("split %v does not cut dimension %d of %v into %d outputs", parts, d, x.shape, len(c.n.Outputs))
	}
	return outs, nil
}

func (c *opCtx) slice() ([]*value, error) {
	x, err := c.input(0)
	if err != nil {
		return nil, err
	}
	var starts, ends, axes, steps []int64
	if c.has(1) {
		if starts, err = c.constInts(1, "starts"); err != nil {
			return nil, err
		}
		if ends, err = c.constInts(2, "ends"); err != nil {
			return nil, err
		}
		if c.has(3) {
			if axes, err = c.constInts(3, "axes"); err != nil {
				return nil, err
			}
		}
		if c.has(4) {
			if steps, err = c.constInts(4, "steps"); err != nil {
				return nil, err
			}
		}
	} else {
		starts, _ = c.ints("starts")
		ends, _ = c.ints("ends")
		axes, _ = c.ints("axes")
	}
	r := len(x.shape)
	if len(axes) == 0 {
		for i := range starts {
			axes = append(axes, int64(i))
		}
	}
	if len(steps) == 0 {
		for range starts {
			steps = append(steps, 1)
		}
	}
	if len(ends) != len(starts) || len(axes) != len(starts) || len(steps) != len(starts) {
		return nil, fmt.Errorf("starts, ends, axes and steps differ in length")
	}
	out := slices.Clone(x.shape)
	los, sts := make([]int64, r), make([]int64, r) // per axis, for values
	for k := range sts {
		sts[k] = 1
	}
	for i := range starts {
		k, err := axis(axes[i], r)
		if err != nil {
			return nil, err
		}
		d, st := x.shape[k], steps[i]
		if st == 0 {
			return nil, fmt.Errorf("step 0")
		}
		lo, hi := starts[i], ends[i]
		if lo < 0 {
			lo += d
		}
		if hi < 0 {
			hi += d
		}
		var n int64
		if st > 0 {
			lo, hi = min(max(lo, 0), d), min(max(hi, 0), d)
			if hi > lo {
				n = (hi-lo-1)/st + 1
			}
		} else {
			lo, hi = min(max(lo, 0), d-1), min(max(hi, -1), d-1)
			if lo > hi {
				n = 1 // st = MinInt64: one element (and -st overflows)
				if st != math.MinInt64 {
					n = (lo-hi-1)/-st + 1
				}
			}
		}
		out[k] = n
		los[k], sts[k] = lo, st
	}
	v := shaped(x.elem, out)
	if x.ints != nil {
		v = withInts(v, gatherValues(x.ints, x.shape, out, func(o, i []int64) {
			for k := range o {
				i[k] = los[k] + o[k]*sts[k]
			}
		}))
	}
	return []*value{v}, nil
}

func (c *opCtx) gather() ([]*value, error) {
	x, idx, err := c.inputs2()
	if err != nil {
		return nil, err
	}
	if len(x.shape) == 0 {
		return nil, fmt.Errorf("the data input is a scalar")
	}
	a, err := axis(c.int("axis", 0), len(x.shape))
	if err != nil {
		return nil, err
	}
	out := append(append(slices.Clone(x.shape[:a]), idx.shape...), x.shape[a+1:]...)
	v := shaped(x.elem, out)
	if len(x.shape) == 1 && x.ints != nil && idx.ints != nil {
		vals := make([]int64, len(idx.ints))
		for i, j := range idx.ints {
			if j < 0 {
				j += int64(len(x.ints))
			}
			if j < 0 || j >= int64(len(x.ints)) {
				return nil, fmt.Errorf("index %d out of range", idx.ints[i])
			}
			vals[i] = x.ints[j]
		}
		v = withInts(v, vals)
	}
	return []*value{v}, nil
}

func (c *opCtx) gatherND() ([]*value, error) {
	x, idx, err := c.inputs2()
	if err != nil {
		return nil, err
	}
	b := int(c.int("batch_dims", 0))
	q := len(idx.shape)
	if q == 0 || b < 0 || b >= q {
		return nil, fmt.Errorf("bad indices rank %d", q)
	}
	last := idx.shape[q-1]
	if last < 0 || int64(b)+last > int64(len(x.shape)) {
		return nil, fmt.Errorf("indices' last dimension %d too large", last)
	}
	out := append(slices.Clone(idx.shape[:q-1]), x.shape[int64(b)+last:]...)
	return []*value{shaped(x.elem, out)}, nil
}

func (c *opCtx) pad() ([]*value, error) {
	x, err := c.input(0)
	if err != nil {
		return nil, err
	}
	r := len(x.shape)
	pads, ok := c.ints("pads")
	if !ok {
		if pads, err = c.constInts(1, "pads"); err != nil {
			return nil, err
		}
	}
	axes := make([]int64, r)
	for i := range axes {
		axes[i] = int64(i)
	}
	if c.has(3) {
		if axes, err = c.constInts(3, "axes"); err != nil {
			return nil, err
		}
	}
	n := len(axes)
	if len(pads) != 2*n {
		return nil, fmt.Errorf("%d pads for %d axes", len(pads), n)
	}
	out := slices.Clone(x.shape)
	for i, a := range axes {
		k, err := axis(a, r)
		if err != nil {
			return nil, err
		}
		var ok bool
		if out[k], ok = sum(out[k], pads[i], pads[i+n]); !ok {
			return nil, overflow("dimension %d (%d) padded by %d and %d", k, x.shape[k], pads[i], pads[i+n])
		}
		if out[k] < 0 {
			return nil, fmt.Errorf("pads %v make a negative size", pads)
		}
	}
	return []*value{shaped(x.elem, out)}, nil
}

// gatherValues computes the values of a small tensor of shape out whose
// element at index o is the input's element at index(o).
func gatherValues(vals, in, out []int64, index func(o, i []int64)) []int64 {
	n, ok := elements(out)
	if !ok || n > maxValues {
		return nil
	}
	res := make([]int64, n)
	o, i := make([]int64, len(out)), make([]int64, len(in))
	for e := range res {
		index(o, i)
		flat := int64(0)
		for k := range in {
			if i[k] < 0 || i[k] >= in[k] {
				return nil
			}
			flat = flat*in[k] + i[k]
		}
		if flat >= int64(len(vals)) {
			return nil
		}
		res[e] = vals[flat]
		for k := len(out) - 1; k >= 0; k-- {
			if o[k]++; o[k] < out[k] {
				break
			}
			o[k] = 0
		}
	}
	return res
}
