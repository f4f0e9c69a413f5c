package onnx

import (
	"fmt"
	"math"
	"slices"
)

func (c *opCtx) conv() ([]*value, error) {
	x, w, err := c.inputs2()
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
	x, w, err := c.inputs2()
	if err != nil {
		return nil, err
	}
	if len(x.shape) < 3 || len(w.shape) != len(x.shape) {
		return nil, fmt.Errorf("input %v and weights %v do not fit", x.shape, w.shape)
	}
	n := len(x.shape) - 2
	ch, ok := mulDim(w.shape[1], c.int("group", 1))
	if !ok {
		return nil, overflow("the output channels %d × group %d", w.shape[1], c.int("group", 1))
	}
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
		if s[i] <= 0 || dil[i] <= 0 || k[i] <= 0 || op[i] < 0 || in < 1 {
			return nil, fmt.Errorf("non-positive stride, dilation, kernel or input size, or a negative output_padding")
		}
		a, ok1 := mulDim(s[i], in-1)
		b, ok2 := mulDim(k[i]-1, dil[i])
		o, ok3 := sum(a, op[i], b, 1)
		if !ok1 || !ok2 || !ok3 {
			return nil, overflow("the output size %d×(%d-1)+%d+(%d-1)×%d+1", s[i], in, op[i], k[i], dil[i])
		}
		if auto == "SAME_UPPER" || auto == "SAME_LOWER" {
			// the larger of ONNX's shape inference (pads of
			// max(kernel-stride, 0) in all) and the operator's
			// definition, which ONNX Runtime follows (input × stride)
			o -= max(b+1-s[i], 0)
			spec, ok := mulDim(in, s[i])
			if !ok {
				return nil, overflow("input size %d × stride %d", in, s[i])
			}
			out = append(out, max(o, spec))
			continue
		}
		if auto != "VALID" {
			if pads[i] < 0 || pads[i+n] < 0 {
				return nil, fmt.Errorf("negative pads %v", pads)
			}
			o -= pads[i] + pads[i+n] // both ≤ MaxInt64: a negative result is caught below
			if pads[i]+pads[i+n] < 0 {
				o = -1
			}
		}
		if o < 0 {
			return nil, fmt.Errorf("the pads %v are larger than the output", pads)
		}
		out = append(out, o)
	}
	return []*value{shaped(x.elem, out)}, nil
}

func (c *opCtx) matmul() ([]*value, error) {
	a, b, err := c.inputs2()
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
		return c.resized(x, sizes)
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
		if out[k], err = floatDim(math.Floor(float64(x.shape[k])*s), "the resized dimension"); err != nil {
			return nil, err
		}
	}
	return []*value{shaped(x.elem, out)}, nil
}

func (c *opCtx) resized(x *value, sizes []int64) ([]*value, error) {
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
			d, err := floatDim(math.Round(float64(x.shape[k])*scale), "the resized dimension")
			if err != nil {
				return nil, err
			}
			out[k] = d
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
	bb, ok := mulDim(b, b)
	if !ok {
		return nil, overflow("blocksize² (%d²)", b)
	}
	if toDepth {
		if s[2]%b != 0 || s[3]%b != 0 {
			return nil, fmt.Errorf("the height and width %d×%d are not multiples of blocksize %d", s[2], s[3], b)
		}
		c, ok := mulDim(s[1], bb)
		if !ok {
			return nil, overflow("channels %d × blocksize² %d", s[1], bb)
		}
		s[1], s[2], s[3] = c, s[2]/b, s[3]/b
	} else {
		if s[1]%bb != 0 {
			return nil, fmt.Errorf("the channels (%d) are not a multiple of blocksize² (%d)", s[1], bb)
		}
		h, ok1 := mulDim(s[2], b)
		w, ok2 := mulDim(s[3], b)
		if !ok1 || !ok2 {
			return nil, overflow("height and width %d×%d × blocksize %d", s[2], s[3], b)
		}
		s[1], s[2], s[3] = s[1]/bb, h, w
	}
	return []*value{shaped(x.elem, s)}, nil
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
	if x.ints != nil && !slices.Contains(x.ints, math.MinInt64) { // -MinInt64 overflows: not folded
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
