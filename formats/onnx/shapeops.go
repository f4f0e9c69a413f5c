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
					if math.IsNaN(f) || f >= math.MaxInt64 || f < math.MinInt64 {
						v = nil // not an integer: not folded
						break
					}
					v[i] = int64(f)
				}
				if v != nil {
					out = withInts(out, v)
				}
			}
			return []*value{out}, nil
		},
		"CastLike": func(c *opCtx) ([]*value, error) {
			x, t, err := c.inputs2()
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
			n, ok := elements(x.shape)
			if !ok {
				return nil, overflow("the element count of %v", x.shape)
			}
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
			a, b, err := c.inputs2()
			if err != nil {
				return nil, err
			}
			if len(a.shape) != 2 || len(b.shape) != 2 {
				return nil, fmt.Errorf("inputs %v and %v are not 2-D", a.shape, b.shape)
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
			p, ok := elements(x.shape[:a])
			q, ok2 := elements(x.shape[a:])
			if !ok || !ok2 {
				return nil, overflow("flattening %v at axis %d", x.shape, a)
			}
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
				if rep[i] < 0 {
					return nil, fmt.Errorf("repeats %v has a negative value", rep)
				}
				var ok bool
				if shape[i], ok = mulDim(shape[i], rep[i]); !ok {
					return nil, overflow("dimension %d (%d) × repeats %d", i, x.shape[i], rep[i])
				}
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
			n, err := rangeLength(c.ins, v)
			if err != nil {
				return nil, err
			}
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
				return nil, fmt.Errorf("its K input has %d values", len(k))
			}
			if k[0] < 0 {
				return nil, fmt.Errorf("its K input is negative (%d)", k[0])
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
			x, s, err := c.inputs2()
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
			x, tg, err := c.inputs2()
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

// rangeLength is the number of elements of Range(start, limit, delta):
// max(⌈(limit-start)/delta⌉, 0), exactly for integers, checked for
// floats (NaN, infinities and lengths beyond int64 are errors).
func rangeLength(ins []*value, v [3]float64) (int64, error) {
	if ins[0].ints != nil && ins[1].ints != nil && ins[2].ints != nil {
		start, limit, delta := ins[0].ints[0], ins[1].ints[0], ins[2].ints[0]
		if delta == 0 {
			return 0, fmt.Errorf("delta is 0")
		}
		if delta < 0 {
			start, limit, delta = limit, start, -delta // same count; -MinInt64 is checked below
			if delta < 0 {
				return 0, overflow("Range's delta %d", ins[2].ints[0])
			}
		}
		if limit <= start {
			return 0, nil
		}
		span := uint64(limit) - uint64(start) // fits: limit > start
		n := span / uint64(delta)
		if span%uint64(delta) != 0 {
			n++
		}
		if n > math.MaxInt64 {
			return 0, overflow("Range's length")
		}
		return int64(n), nil
	}
	if v[2] == 0 {
		return 0, fmt.Errorf("delta is 0")
	}
	n, err := floatDim(math.Ceil((v[1]-v[0])/v[2]), "Range's length")
	if err != nil {
		return 0, err
	}
	return max(n, 0), nil
}
