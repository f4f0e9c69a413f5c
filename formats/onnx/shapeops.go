package onnx

import (
	"fmt"
	"math"
	"slices"
)

// shapeOps infer operators whose output shape is not simply an input's.
var shapeOps map[string]func(c *opCtx) ([]*value, error)

func init() {
	shapeOps = map[string]func(c *opCtx) ([]*value, error){
		"Cast": func(c *opCtx) ([]*value, error) {
			x, err := c.input(0)
			if err != nil {
				return nil, err
			}
			to := int32(c.int("to", 0))
			out := shaped(to, x.shape)
			if isInt(to) && x.ints != nil {
				out = withInts(out, x.ints)
			} else if isFloat(to) && x.ints != nil && len(x.ints) <= maxFloats {
				out.flts = make([]float64, len(x.ints))
				for i, v := range x.ints {
					out.flts[i] = float64(v)
				}
			} else if isInt(to) && x.flts != nil {
				v := make([]int64, len(x.flts))
				for i, f := range x.flts {
					v[i] = int64(f)
				}
				out = withInts(out, v)
			}
			return []*value{out}, nil
		},
		"CastLike": func(c *opCtx) ([]*value, error) {
			x, err := c.input(0)
			if err != nil {
				return nil, err
			}
			t, err := c.input(1)
			if err != nil {
				return nil, err
			}
			return []*value{shaped(t.elem, x.shape)}, nil
		},
		"Not": func(c *opCtx) ([]*value, error) {
			x, err := c.input(0)
			if err != nil {
				return nil, err
			}
			out := shaped(TypeBool, x.shape)
			if x.ints != nil {
				v := make([]int64, len(x.ints))
				for i, b := range x.ints {
					v[i] = b2i(b == 0)
				}
				out = withInts(out, v)
			}
			return []*value{out}, nil
		},
		"Shape": func(c *opCtx) ([]*value, error) {
			x, err := c.input(0)
			if err != nil {
				return nil, err
			}
			r := int64(len(x.shape))
			clamp := func(v int64) int64 {
				if v < 0 {
					v += r
				}
				return min(max(v, 0), r)
			}
			lo, hi := clamp(c.int("start", 0)), clamp(c.int("end", r))
			dims := []int64{}
			if lo < hi {
				dims = slices.Clone(x.shape[lo:hi])
			}
			return []*value{withInts(shaped(TypeInt64, []int64{int64(len(dims))}), dims)}, nil
		},
		"Size": func(c *opCtx) ([]*value, error) {
			x, err := c.input(0)
			if err != nil {
				return nil, err
			}
			n, _ := elements(x.shape)
			return []*value{withInts(shaped(TypeInt64, nil), []int64{n})}, nil
		},
		"ConstantOfShape": func(c *opCtx) ([]*value, error) {
			shape, err := c.constInts(0, "shape")
			if err != nil {
				return nil, err
			}
			if err := nonNegative(shape); err != nil {
				return nil, err
			}
			elem, fill := TypeFloat, int64(0)
			if t := c.n.Tensors["value"]; t != nil {
				elem = t.DataType
				if len(t.Ints) == 1 {
					fill = t.Ints[0]
				}
			}
			out := shaped(elem, slices.Clone(shape))
			if n, ok := elements(shape); ok && n <= maxValues && isInt(elem) {
				v := make([]int64, n)
				for i := range v {
					v[i] = fill
				}
				out = withInts(out, v)
			}
			return []*value{out}, nil
		},
		"Where": func(c *opCtx) ([]*value, error) {
			var shapes [][]int64
			for k := range 3 {
				x, err := c.input(k)
				if err != nil {
					return nil, err
				}
				shapes = append(shapes, x.shape)
			}
			s, err := broadcast(shapes...)
			if err != nil {
				return nil, err
			}
			return []*value{shaped(c.ins[1].elem, s)}, nil
		},
		"BatchNormalization": func(c *opCtx) ([]*value, error) {
			x, err := c.input(0)
			if err != nil {
				return nil, err
			}
			outs := []*value{shaped(x.elem, x.shape)}
			for k := 1; k < len(c.n.Outputs); k++ {
				m, err := c.input(3)
				if err != nil {
					return nil, err
				}
				outs = append(outs, shaped(m.elem, m.shape))
			}
			return outs, nil
		},
		"LayerNormalization": func(c *opCtx) ([]*value, error) {
			x, err := c.input(0)
			if err != nil {
				return nil, err
			}
			a, err := axis(c.int("axis", -1), len(x.shape))
			if err != nil {
				return nil, err
			}
			stat := slices.Clone(x.shape)
			for i := a; i < len(stat); i++ {
				stat[i] = 1
			}
			stash := int32(c.int("stash_type", int64(TypeFloat)))
			return []*value{shaped(x.elem, x.shape), shaped(stash, stat), shaped(stash, stat)}, nil
		},
		"Conv":          (*opCtx).conv,
		"ConvInteger":   (*opCtx).conv,
		"ConvTranspose": (*opCtx).convTranspose,
		"Gemm": func(c *opCtx) ([]*value, error) {
			a, err := c.input(0)
			if err != nil {
				return nil, err
			}
			b, err := c.input(1)
			if err != nil {
				return nil, err
			}
			if len(a.shape) != 2 || len(b.shape) != 2 {
				return nil, fmt.Errorf("Gemm needs 2-D inputs, not %v and %v", a.shape, b.shape)
			}
			m, n := a.shape[0], b.shape[1]
			if c.int("transA", 0) != 0 {
				m = a.shape[1]
			}
			if c.int("transB", 0) != 0 {
				n = b.shape[0]
			}
			return []*value{shaped(a.elem, []int64{m, n})}, nil
		},
		"MatMul":        (*opCtx).matmul,
		"MatMulInteger": (*opCtx).matmul,
		"Reshape":       (*opCtx).reshape,
		"Flatten": func(c *opCtx) ([]*value, error) {
			x, err := c.input(0)
			if err != nil {
				return nil, err
			}
			r := len(x.shape)
			a := c.int("axis", 1)
			if a < 0 {
				a += int64(r)
			}
			if a < 0 || a > int64(r) {
				return nil, fmt.Errorf("axis %d is out of range for rank %d", c.int("axis", 1), r)
			}
			p, _ := elements(x.shape[:a])
			q, _ := elements(x.shape[a:])
			return []*value{withInts(shaped(x.elem, []int64{p, q}), x.ints)}, nil
		},
		"Squeeze":   (*opCtx).squeeze,
		"Unsqueeze": (*opCtx).unsqueeze,
		"Concat":    (*opCtx).concat,
		"Split":     (*opCtx).split,
		"Slice":     (*opCtx).slice,
		"Transpose": func(c *opCtx) ([]*value, error) {
			x, err := c.input(0)
			if err != nil {
				return nil, err
			}
			r := len(x.shape)
			perm, ok := c.ints("perm")
			if !ok || len(perm) == 0 {
				perm = make([]int64, r)
				for i := range perm {
					perm[i] = int64(r - 1 - i)
				}
			}
			if len(perm) != r {
				return nil, fmt.Errorf("perm has %d values for rank %d", len(perm), r)
			}
			shape := make([]int64, r)
			seen := make([]bool, r)
			for i, p := range perm {
				k, err := axis(p, r)
				if err != nil || seen[k] {
					return nil, fmt.Errorf("perm %v is not a permutation", perm)
				}
				seen[k] = true
				shape[i] = x.shape[k]
			}
			v := shaped(x.elem, shape)
			if x.ints != nil {
				v = withInts(v, gatherValues(x.ints, x.shape, shape, func(o, i []int64) {
					for j, p := range perm {
						k, _ := axis(p, r)
						i[k] = o[j]
					}
				}))
			}
			return []*value{v}, nil
		},
		"Gather":         (*opCtx).gather,
		"GatherElements": func(c *opCtx) ([]*value, error) { return c.like(1, 0) },
		"GatherND":       (*opCtx).gatherND,
		"Expand": func(c *opCtx) ([]*value, error) {
			x, err := c.input(0)
			if err != nil {
				return nil, err
			}
			s, err := c.constInts(1, "shape")
			if err != nil {
				return nil, err
			}
			out, err := broadcast(x.shape, s)
			if err != nil {
				return nil, err
			}
			return []*value{shaped(x.elem, out)}, nil
		},
		"Tile": func(c *opCtx) ([]*value, error) {
			x, err := c.input(0)
			if err != nil {
				return nil, err
			}
			rep, err := c.constInts(1, "repeats")
			if err != nil {
				return nil, err
			}
			if len(rep) != len(x.shape) {
				return nil, fmt.Errorf("%d repeats for rank %d", len(rep), len(x.shape))
			}
			shape := slices.Clone(x.shape)
			for i := range shape {
				shape[i] *= rep[i]
			}
			return []*value{shaped(x.elem, shape)}, nil
		},
		"Pad":      (*opCtx).pad,
		"Resize":   (*opCtx).resize,
		"Upsample": (*opCtx).resize,
		"LSTM":     (*opCtx).rnn,
		"GRU":      (*opCtx).rnn,
		"RNN":      (*opCtx).rnn,
		"Range": func(c *opCtx) ([]*value, error) {
			var v [3]float64
			var elem int32
			for k := range 3 {
				x, err := c.input(k)
				if err != nil {
					return nil, err
				}
				elem = x.elem
				switch {
				case len(x.ints) == 1:
					v[k] = float64(x.ints[0])
				case len(x.flts) == 1:
					v[k] = x.flts[0]
				default:
					return nil, fmt.Errorf("its input %q is not a constant", x.name)
				}
			}
			if v[2] == 0 {
				return nil, fmt.Errorf("delta is 0")
			}
			n := int64(max(math.Ceil((v[1]-v[0])/v[2]), 0))
			out := shaped(elem, []int64{n})
			if isInt(elem) && n <= maxValues {
				vals := make([]int64, n)
				for i := range vals {
					vals[i] = int64(v[0] + float64(i)*v[2])
				}
				out = withInts(out, vals)
			}
			return []*value{out}, nil
		},
		"TopK": func(c *opCtx) ([]*value, error) {
			x, err := c.input(0)
			if err != nil {
				return nil, err
			}
			k, err := c.constInts(1, "K")
			if err != nil {
				return nil, err
			}
			a, err := axis(c.int("axis", -1), len(x.shape))
			if err != nil {
				return nil, err
			}
			if len(k) != 1 {
				return nil, fmt.Errorf("K has %d values", len(k))
			}
			shape := slices.Clone(x.shape)
			shape[a] = k[0]
			return []*value{shaped(x.elem, shape), shaped(TypeInt64, shape)}, nil
		},
		"DepthToSpace": func(c *opCtx) ([]*value, error) { return c.space(false) },
		"SpaceToDepth": func(c *opCtx) ([]*value, error) { return c.space(true) },
		"QuantizeLinear": func(c *opCtx) ([]*value, error) {
			x, err := c.input(0)
			if err != nil {
				return nil, err
			}
			elem := TypeUint8
			if c.has(2) {
				elem = c.ins[2].elem
			}
			if t := c.int("output_dtype", 0); t != 0 {
				elem = int32(t)
			}
			return []*value{shaped(elem, x.shape)}, nil
		},
		"DequantizeLinear": func(c *opCtx) ([]*value, error) {
			x, err := c.input(0)
			if err != nil {
				return nil, err
			}
			s, err := c.input(1)
			if err != nil {
				return nil, err
			}
			return []*value{shaped(s.elem, x.shape)}, nil
		},
		"RandomNormalLike":  (*opCtx).randomLike,
		"RandomUniformLike": (*opCtx).randomLike,
		"RandomNormal":      (*opCtx).random,
		"RandomUniform":     (*opCtx).random,
		"NegativeLogLikelihoodLoss": func(c *opCtx) ([]*value, error) {
			x, err := c.input(0)
			if err != nil {
				return nil, err
			}
			tg, err := c.input(1)
			if err != nil {
				return nil, err
			}
			if c.str("reduction", "mean") == "none" {
				return []*value{shaped(x.elem, tg.shape)}, nil
			}
			return []*value{shaped(x.elem, nil)}, nil
		},
		"PRelu": func(c *opCtx) ([]*value, error) {
			// the slope broadcasts to X (along the channel before opset 7)
			x, err := c.input(0)
			if err != nil {
				return nil, err
			}
			return []*value{shaped(x.elem, x.shape)}, nil
		},
		"Neg": (*opCtx).negate,
		"Abs": (*opCtx).negate,
		"NonZero": func(c *opCtx) ([]*value, error) {
			return nil, fmt.Errorf("NonZero's output size depends on the data")
		},
	}
}

func nonNegative(shape []int64) error {
	for _, d := range shape {
		if d < 0 {
			return fmt.Errorf("negative dimension %d", d)
		}
	}
	return nil
}

// like: the shape of input s with the element type of input e.
func (c *opCtx) like(s, e int) ([]*value, error) {
	x, err := c.input(s)
	if err != nil {
		return nil, err
	}
	y, err := c.input(e)
	if err != nil {
		return nil, err
	}
	return []*value{shaped(y.elem, x.shape)}, nil
}

func (c *opCtx) conv() ([]*value, error) {
	x, err := c.input(0)
	if err != nil {
		return nil, err
	}
	w, err := c.input(1)
	if err != nil {
		return nil, err
	}
	if len(x.shape) < 3 || len(w.shape) != len(x.shape) {
		return nil, fmt.Errorf("input %v and weights %v do not fit", x.shape, w.shape)
	}
	k, ok := c.ints("kernel_shape")
	if !ok {
		k = w.shape[2:]
	}
	sp, err := c.window(x.shape[2:], k, false)
	if err != nil {
		return nil, err
	}
	elem := x.elem
	if c.n.OpType == "ConvInteger" {
		elem = TypeInt32
	}
	return []*value{shaped(elem, append([]int64{x.shape[0], w.shape[0]}, sp...))}, nil
}

func (c *opCtx) convTranspose() ([]*value, error) {
	x, err := c.input(0)
	if err != nil {
		return nil, err
	}
	w, err := c.input(1)
	if err != nil {
		return nil, err
	}
	if len(x.shape) < 3 || len(w.shape) != len(x.shape) {
		return nil, fmt.Errorf("input %v and weights %v do not fit", x.shape, w.shape)
	}
	n := len(x.shape) - 2
	ch := w.shape[1] * c.int("group", 1)
	if os, ok := c.ints("output_shape"); ok && len(os) > 0 {
		if len(os) == n+2 {
			os = os[2:]
		}
		if len(os) != n {
			return nil, fmt.Errorf("output_shape %v for %d spatial dimensions", os, n)
		}
		return []*value{shaped(x.elem, append([]int64{x.shape[0], ch}, os...))}, nil
	}
	k, ok := c.ints("kernel_shape")
	if !ok {
		k = w.shape[2:]
	}
	def := func(name string, d int64, size int) []int64 {
		v, ok := c.ints(name)
		if !ok || len(v) != size {
			v = make([]int64, size)
			for i := range v {
				v[i] = d
			}
		}
		return v
	}
	s, dil, op, pads := def("strides", 1, n), def("dilations", 1, n), def("output_padding", 0, n), def("pads", 0, 2*n)
	if len(k) != n {
		return nil, fmt.Errorf("kernel of rank %d for %d spatial dimensions", len(k), n)
	}
	out := []int64{x.shape[0], ch}
	auto := c.str("auto_pad", "NOTSET")
	for i := range n {
		in := x.shape[i+2]
		if auto == "SAME_UPPER" || auto == "SAME_LOWER" {
			out = append(out, in*s[i])
			continue
		}
		o := s[i]*(in-1) + op[i] + (k[i]-1)*dil[i] + 1
		if auto != "VALID" {
			o -= pads[i] + pads[i+n]
		}
		out = append(out, o)
	}
	return []*value{shaped(x.elem, out)}, nil
}

func (c *opCtx) matmul() ([]*value, error) {
	a, err := c.input(0)
	if err != nil {
		return nil, err
	}
	b, err := c.input(1)
	if err != nil {
		return nil, err
	}
	as, bs := slices.Clone(a.shape), slices.Clone(b.shape)
	if len(as) == 0 || len(bs) == 0 {
		return nil, fmt.Errorf("MatMul of a scalar")
	}
	va, vb := len(as) == 1, len(bs) == 1
	if va {
		as = []int64{1, as[0]}
	}
	if vb {
		bs = []int64{bs[0], 1}
	}
	if as[len(as)-1] != bs[len(bs)-2] {
		return nil, fmt.Errorf("inner dimensions %d and %d differ", as[len(as)-1], bs[len(bs)-2])
	}
	batch, err := broadcast(as[:len(as)-2], bs[:len(bs)-2])
	if err != nil {
		return nil, err
	}
	out := batch
	if !va {
		out = append(out, as[len(as)-2])
	}
	if !vb {
		out = append(out, bs[len(bs)-1])
	}
	elem := a.elem
	if c.n.OpType == "MatMulInteger" {
		elem = TypeInt32
	}
	return []*value{shaped(elem, out)}, nil
}

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
	total, _ := elements(x.shape)
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
		prod *= out[i]
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
		out[a] += x.shape[a]
		ok = ok && x.ints != nil
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
		if k := c.int("num_outputs", 0); k > 0 {
			n = int(k)
		}
		if n == 0 {
			return nil, fmt.Errorf("no outputs")
		}
		each := ceilDiv(d, int64(n))
		for i := range n {
			parts = append(parts, min(each, max(d-int64(i)*each, 0)))
		}
	}
	var sum int64
	var outs []*value
	for _, p := range parts {
		sum += p
		s := slices.Clone(x.shape)
		s[a] = p
		outs = append(outs, shaped(x.elem, s))
	}
	if sum != d || len(parts) != len(c.n.Outputs) {
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
				n = (hi - lo + st - 1) / st
			}
		} else {
			lo, hi = min(max(lo, -1), d-1), min(max(hi, -1), d-1)
			if lo > hi {
				n = (lo - hi - st - 1) / -st
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
	x, err := c.input(0)
	if err != nil {
		return nil, err
	}
	idx, err := c.input(1)
	if err != nil {
		return nil, err
	}
	if len(x.shape) == 0 {
		return nil, fmt.Errorf("Gather from a scalar")
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
	x, err := c.input(0)
	if err != nil {
		return nil, err
	}
	idx, err := c.input(1)
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
		out[k] += pads[i] + pads[i+n]
		if out[k] < 0 {
			return nil, fmt.Errorf("pads %v make a negative size", pads)
		}
	}
	return []*value{shaped(x.elem, out)}, nil
}

// resize: output sizes from the sizes input, or floor(input × scale).
func (c *opCtx) resize() ([]*value, error) {
	x, err := c.input(0)
	if err != nil {
		return nil, err
	}
	r := len(x.shape)
	var scales []float64
	switch {
	case c.n.OpType == "Upsample" && c.attr("scales") != nil:
		f, _ := c.floats("scales")
		for _, s := range f {
			scales = append(scales, float64(s))
		}
	case c.n.OpType == "Upsample":
		s, err := c.input(1)
		if err != nil {
			return nil, err
		}
		scales = s.flts
	case c.has(3) && c.ins[3].known && len(c.ins[3].shape) == 1 && c.ins[3].shape[0] > 0:
		sizes, err := c.constInts(3, "sizes")
		if err != nil {
			return nil, err
		}
		return c.resized(x, sizes, true)
	case c.has(2):
		s, err := c.input(2)
		if err != nil {
			return nil, err
		}
		if s.flts == nil {
			return nil, fmt.Errorf("its scales (input %q) are not a constant", s.name)
		}
		scales = s.flts
	}
	if scales == nil {
		return nil, fmt.Errorf("neither scales nor sizes are given as constants")
	}
	axes, _ := c.ints("axes")
	if len(axes) == 0 {
		if len(scales) != r {
			return nil, fmt.Errorf("%d scales for rank %d", len(scales), r)
		}
	} else if len(axes) != len(scales) {
		return nil, fmt.Errorf("%d scales for %d axes", len(scales), len(axes))
	}
	out := slices.Clone(x.shape)
	for i, s := range scales {
		k := i
		if len(axes) > 0 {
			if k, err = axis(axes[i], r); err != nil {
				return nil, err
			}
		}
		out[k] = int64(math.Floor(float64(x.shape[k]) * s))
	}
	return []*value{shaped(x.elem, out)}, nil
}

func (c *opCtx) resized(x *value, sizes []int64, _ bool) ([]*value, error) {
	r := len(x.shape)
	axes, _ := c.ints("axes")
	out := slices.Clone(x.shape)
	if len(axes) == 0 {
		if len(sizes) != r {
			return nil, fmt.Errorf("%d sizes for rank %d", len(sizes), r)
		}
		copy(out, sizes)
	} else {
		if len(axes) != len(sizes) {
			return nil, fmt.Errorf("%d sizes for %d axes", len(sizes), len(axes))
		}
		for i, a := range axes {
			k, err := axis(a, r)
			if err != nil {
				return nil, err
			}
			out[k] = sizes[i]
		}
	}
	if policy := c.str("keep_aspect_ratio_policy", "stretch"); policy != "stretch" {
		scale := math.Inf(1)
		if policy == "not_smaller" {
			scale = math.Inf(-1)
		}
		for k := range out {
			if out[k] == x.shape[k] && (len(axes) == 0 || !slices.Contains(axes, int64(k)) && !slices.Contains(axes, int64(k-r))) {
				continue
			}
			s := float64(out[k]) / float64(x.shape[k])
			if policy == "not_larger" {
				scale = min(scale, s)
			} else {
				scale = max(scale, s)
			}
		}
		for i := range sizes {
			k := i
			if len(axes) > 0 {
				k, _ = axis(axes[i], r)
			}
			out[k] = int64(math.Round(float64(x.shape[k]) * scale))
		}
	}
	if err := nonNegative(out); err != nil {
		return nil, err
	}
	return []*value{shaped(x.elem, out)}, nil
}

// rnn: LSTM, GRU and RNN outputs (Y, Y_h and LSTM's Y_c).
func (c *opCtx) rnn() ([]*value, error) {
	x, err := c.input(0)
	if err != nil {
		return nil, err
	}
	if len(x.shape) != 3 {
		return nil, fmt.Errorf("input rank %d, want 3", len(x.shape))
	}
	h := c.int("hidden_size", 0)
	if h <= 0 {
		w, err := c.input(1)
		if err != nil || len(w.shape) != 3 {
			return nil, fmt.Errorf("no hidden_size")
		}
		gates := map[string]int64{"LSTM": 4, "GRU": 3, "RNN": 1}[c.n.OpType]
		h = w.shape[1] / gates
	}
	nd := int64(1)
	if c.str("direction", "forward") == "bidirectional" {
		nd = 2
	}
	seq, batch := x.shape[0], x.shape[1]
	y, yh := []int64{seq, nd, batch, h}, []int64{nd, batch, h}
	if c.int("layout", 0) != 0 {
		batch, seq = x.shape[0], x.shape[1]
		y, yh = []int64{batch, seq, nd, h}, []int64{batch, nd, h}
	}
	return []*value{shaped(x.elem, y), shaped(x.elem, yh), shaped(x.elem, yh)}, nil
}

// space: DepthToSpace and SpaceToDepth.
func (c *opCtx) space(toDepth bool) ([]*value, error) {
	x, err := c.input(0)
	if err != nil {
		return nil, err
	}
	b := c.int("blocksize", 0)
	if len(x.shape) != 4 || b <= 0 {
		return nil, fmt.Errorf("want a 4-D input and a positive blocksize")
	}
	s := slices.Clone(x.shape)
	if toDepth {
		s[1], s[2], s[3] = s[1]*b*b, s[2]/b, s[3]/b
	} else {
		s[1], s[2], s[3] = s[1]/(b*b), s[2]*b, s[3]*b
	}
	return []*value{shaped(x.elem, s)}, nil
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

func (c *opCtx) randomLike() ([]*value, error) {
	x, err := c.input(0)
	if err != nil {
		return nil, err
	}
	return []*value{shaped(int32(c.int("dtype", int64(x.elem))), x.shape)}, nil
}

func (c *opCtx) random() ([]*value, error) {
	s, ok := c.ints("shape")
	if !ok {
		return nil, fmt.Errorf("no shape")
	}
	return []*value{shaped(int32(c.int("dtype", int64(TypeFloat))), slices.Clone(s))}, nil
}

// negate: Neg and Abs, with small integer values folded.
func (c *opCtx) negate() ([]*value, error) {
	x, err := c.input(0)
	if err != nil {
		return nil, err
	}
	out := shaped(x.elem, x.shape)
	if x.ints != nil {
		v := make([]int64, len(x.ints))
		for i, a := range x.ints {
			v[i] = -a
			if c.n.OpType == "Abs" && a >= 0 {
				v[i] = a
			}
		}
		out = withInts(out, v)
	}
	return []*value{out}, nil
}
