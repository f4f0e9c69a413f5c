package onnx

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/optalloc/optalloc/formats/onnx/internal/onnxpb"
)

// shaped is an inferred output.
func shaped(elem int32, shape []int64) *value {
	if shape == nil {
		shape = []int64{}
	}
	return &value{elem: elem, shape: shape, known: true}
}

func withInts(v *value, ints []int64) *value {
	if n, ok := elements(v.shape); ok && int64(len(ints)) == n && n <= maxValues {
		v.ints = ints
	}
	return v
}

var errUnknownInput = errors.New("an input's shape is unknown")

// node infers the outputs of one node. An *inputError is fatal (a bad
// model); any other error says why the outputs' shapes are unknown.
func (in *inferer) node(n *Node, ins []*value, sc *scope) ([]*value, error) {
	c := &opCtx{in: in, n: n, ins: ins}
	if n.Domain != "" && n.Domain != "ai.onnx" {
		return nil, fmt.Errorf("operator %s of domain %q has no shape inference here (give its outputs' shapes in value_info)", n.OpType, n.Domain)
	}
	switch n.OpType {
	case "If":
		return in.ifNode(n, ins, sc)
	case "Loop", "Scan", "SequenceMap":
		return nil, in.fail("node %s: %s bodies are not planned (the number of iterations and what they carry are known only at run time)", nodeName(n), n.OpType)
	case "Constant":
		return c.constant()
	}
	outs, err := c.infer()
	if err != nil {
		return nil, err
	}
	if views[n.OpType] && len(outs) > 0 && outs[0] != nil && ins[0] != nil && ins[0].weight {
		outs[0].weight = true // a view of a weight is a weight
	}
	return outs, nil
}

// views are the operators whose output is its first input's bytes seen
// with another shape: planned in place (see Arena).
var views = set("Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity")

// opCtx is one node being inferred.
type opCtx struct {
	in  *inferer
	n   *Node
	ins []*value
}

func (c *opCtx) attr(name string) *onnxpb.AttributeProto {
	for _, a := range c.n.Attrs {
		if a.GetName() == name {
			return a
		}
	}
	return nil
}

func (c *opCtx) int(name string, def int64) int64 {
	if a := c.attr(name); a != nil {
		return a.GetI()
	}
	return def
}

func (c *opCtx) ints(name string) ([]int64, bool) {
	if a := c.attr(name); a != nil {
		return a.GetInts(), true
	}
	return nil, false
}

func (c *opCtx) str(name, def string) string {
	if a := c.attr(name); a != nil {
		return string(a.GetS())
	}
	return def
}

func (c *opCtx) floats(name string) ([]float32, bool) {
	if a := c.attr(name); a != nil {
		return a.GetFloats(), true
	}
	return nil, false
}

// input returns input k with a known shape; has reports whether it is given.
func (c *opCtx) input(k int) (*value, error) {
	if k >= len(c.ins) || c.ins[k] == nil {
		return nil, fmt.Errorf("input %d is missing", k)
	}
	if !c.ins[k].known {
		return nil, errUnknownInput
	}
	return c.ins[k], nil
}

// inputs2 returns the first two inputs, which must be known.
func (c *opCtx) inputs2() (*value, *value, error) {
	x, err := c.input(0)
	if err != nil {
		return nil, nil, err
	}
	y, err := c.input(1)
	return x, y, err
}

func (c *opCtx) has(k int) bool { return k < len(c.ins) && c.ins[k] != nil }

// constInts returns the values of input k, which must be known.
func (c *opCtx) constInts(k int, what string) ([]int64, error) {
	v, err := c.input(k)
	if err != nil {
		return nil, err
	}
	if v.ints == nil {
		return nil, fmt.Errorf("its %s (input %q) is not a constant", what, v.name)
	}
	return v.ints, nil
}

func axis(a int64, rank int) (int, error) {
	if a < -int64(rank) || a >= int64(rank) {
		return 0, fmt.Errorf("axis %d is out of range for rank %d", a, rank)
	}
	if a < 0 {
		a += int64(rank)
	}
	return int(a), nil
}

func broadcast(shapes ...[]int64) ([]int64, error) {
	r := 0
	for _, s := range shapes {
		r = max(r, len(s))
	}
	out := make([]int64, r)
	for i := range out {
		out[i] = 1
	}
	for _, s := range shapes {
		for i, d := range s {
			j := r - len(s) + i
			switch {
			case d == out[j] || d == 1:
			case out[j] == 1:
				out[j] = d
			default:
				return nil, fmt.Errorf("shapes %v do not broadcast", shapes)
			}
		}
	}
	return out, nil
}

func (c *opCtx) constant() ([]*value, error) {
	if t := c.n.Tensors["value"]; t != nil {
		v := withInts(shaped(t.DataType, slices.Clone(t.Dims)), t.Ints)
		v.flts, v.weight = t.Floats, true
		return []*value{v}, nil
	}
	for _, a := range c.n.Attrs {
		var v *value
		switch a.GetName() {
		case "value_float":
			v = shaped(TypeFloat, nil)
			v.flts = []float64{float64(a.GetF())}
		case "value_floats":
			v = shaped(TypeFloat, []int64{int64(len(a.GetFloats()))})
		case "value_int":
			v = withInts(shaped(TypeInt64, nil), []int64{a.GetI()})
		case "value_ints":
			v = withInts(shaped(TypeInt64, []int64{int64(len(a.GetInts()))}), a.GetInts())
		case "value_string":
			v = shaped(TypeString, nil)
		case "value_strings":
			v = shaped(TypeString, []int64{int64(len(a.GetStrings()))})
		default:
			continue
		}
		v.weight = true
		return []*value{v}, nil
	}
	return nil, fmt.Errorf("no value attribute this reader understands (sparse_value?)")
}

// infer dispatches on the operator type.
func (c *opCtx) infer() ([]*value, error) {
	op := c.n.OpType
	switch {
	case unary[op]:
		x, err := c.input(0)
		if err != nil {
			return nil, err
		}
		out := shaped(x.elem, x.shape)
		if op == "Identity" {
			out.ints, out.flts = x.ints, x.flts
		}
		outs := []*value{out}
		if op == "Dropout" && len(c.n.Outputs) > 1 {
			outs = append(outs, shaped(TypeBool, x.shape))
		}
		return outs, nil
	case predicate[op]:
		x, err := c.input(0)
		if err != nil {
			return nil, err
		}
		return []*value{shaped(TypeBool, x.shape)}, nil
	case arith[op] != nil || compare[op] != nil || logical[op]:
		return c.elementwise()
	case reduce[op]:
		return c.reduce()
	case pools[op]:
		return c.pool()
	}
	if f, ok := shapeOps[op]; ok {
		return f(c)
	}
	return nil, fmt.Errorf("operator %s has no shape inference here (give its outputs' shapes in value_info)", op)
}

var unary = set("Acos", "Acosh", "Asin", "Asinh", "Atan", "Atanh", "Ceil", "Cos", "Cosh", "Erf", "Exp",
	"Floor", "Log", "Reciprocal", "Relu", "Round", "Sigmoid", "Sign", "Sin", "Sinh", "Softplus", "Softsign",
	"Sqrt", "Tan", "Tanh", "HardSigmoid", "HardSwish", "LeakyRelu", "Elu", "Selu", "Celu", "Gelu", "Mish",
	"ThresholdedRelu", "Identity", "Dropout", "Clip", "Softmax", "LogSoftmax", "Hardmax", "LRN",
	"InstanceNormalization", "LpNormalization", "MeanVarianceNormalization", "Shrink", "CumSum", "Trilu",
	"ReverseSequence", "BitwiseNot", "GroupNormalization")

var predicate = set("IsNaN", "IsInf")

var logical = set("And", "Or", "Xor")

var arith = map[string]func(a, b int64) (int64, bool){
	"Add": addDim,
	"Sub": subChecked,
	"Mul": mulChecked,
	"Div": func(a, b int64) (int64, bool) {
		if b == 0 || b == -1 && a == math.MinInt64 {
			return 0, false
		}
		return a / b, true
	},
	"Max":        func(a, b int64) (int64, bool) { return max(a, b), true },
	"Min":        func(a, b int64) (int64, bool) { return min(a, b), true },
	"Sum":        addDim,
	"Pow":        nil,
	"Mod":        nil,
	"Mean":       nil,
	"BitShift":   nil,
	"BitwiseAnd": nil, "BitwiseOr": nil, "BitwiseXor": nil,
}

var compare = map[string]func(a, b int64) bool{
	"Equal":          func(a, b int64) bool { return a == b },
	"Less":           func(a, b int64) bool { return a < b },
	"Greater":        func(a, b int64) bool { return a > b },
	"LessOrEqual":    func(a, b int64) bool { return a <= b },
	"GreaterOrEqual": func(a, b int64) bool { return a >= b },
}

func init() {
	for _, op := range []string{"Pow", "Mod", "Mean", "BitShift", "BitwiseAnd", "BitwiseOr", "BitwiseXor"} {
		arith[op] = func(a, b int64) (int64, bool) { return 0, false }
	}
}

func set(names ...string) map[string]bool {
	m := map[string]bool{}
	for _, n := range names {
		m[n] = true
	}
	return m
}

// elementwise: the broadcast shape of the inputs; values folded for
// small integer tensors (shape arithmetic).
func (c *opCtx) elementwise() ([]*value, error) {
	op := c.n.OpType
	var shapes [][]int64
	var xs []*value
	for k := range c.ins {
		if !c.has(k) {
			continue
		}
		x, err := c.input(k)
		if err != nil {
			return nil, err
		}
		shapes = append(shapes, x.shape)
		xs = append(xs, x)
	}
	if len(xs) == 0 {
		return nil, fmt.Errorf("no inputs")
	}
	shape, err := broadcast(shapes...)
	if err != nil {
		return nil, err
	}
	elem := xs[0].elem
	if compare[op] != nil || logical[op] {
		elem = TypeBool
	}
	out := shaped(elem, shape)
	if len(xs) == 2 && xs[0].ints != nil && xs[1].ints != nil && isInt(xs[0].elem) {
		n, _ := elements(shape)
		if n <= maxValues && (len(shape) <= 1) {
			vals := make([]int64, n)
			at := func(v []int64, i int64) int64 {
				if len(v) == 1 {
					return v[0]
				}
				return v[i]
			}
			ok := len(xs[0].ints) == 1 || int64(len(xs[0].ints)) == n
			ok = ok && (len(xs[1].ints) == 1 || int64(len(xs[1].ints)) == n)
			for i := int64(0); ok && i < n; i++ {
				a, b := at(xs[0].ints, i), at(xs[1].ints, i)
				switch {
				case arith[op] != nil:
					vals[i], ok = arith[op](a, b)
				case compare[op] != nil:
					vals[i] = b2i(compare[op](a, b))
				case op == "And":
					vals[i] = b2i(a != 0 && b != 0)
				case op == "Or":
					vals[i] = b2i(a != 0 || b != 0)
				case op == "Xor":
					vals[i] = b2i((a != 0) != (b != 0))
				}
			}
			if ok {
				out = withInts(out, vals)
			}
		}
	}
	return []*value{out}, nil
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

var reduce = set("ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
	"ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare", "ArgMax", "ArgMin")

func (c *opCtx) reduce() ([]*value, error) {
	x, err := c.input(0)
	if err != nil {
		return nil, err
	}
	r := len(x.shape)
	keep := c.int("keepdims", 1) != 0
	var axes []int64
	arg := strings.HasPrefix(c.n.OpType, "Arg")
	switch {
	case arg:
		axes = []int64{c.int("axis", 0)}
	case c.attr("axes") != nil:
		axes, _ = c.ints("axes")
	case c.has(1):
		if axes, err = c.constInts(1, "axes"); err != nil {
			return nil, err
		}
	}
	if len(axes) == 0 && !arg {
		if c.int("noop_with_empty_axes", 0) != 0 {
			return []*value{shaped(x.elem, x.shape)}, nil
		}
		for i := range r {
			axes = append(axes, int64(i))
		}
	}
	red := make([]bool, r)
	for _, a := range axes {
		k, err := axis(a, r)
		if err != nil {
			return nil, err
		}
		red[k] = true
	}
	var shape []int64
	for i, d := range x.shape {
		switch {
		case !red[i]:
			shape = append(shape, d)
		case keep:
			shape = append(shape, 1)
		}
	}
	elem := x.elem
	if arg {
		elem = TypeInt64
	}
	return []*value{shaped(elem, shape)}, nil
}

var pools = set("MaxPool", "AveragePool", "LpPool", "GlobalMaxPool", "GlobalAveragePool", "GlobalLpPool")

// pool: the spatial sizes of a pooling window sliding over the input.
func (c *opCtx) pool() ([]*value, error) {
	x, err := c.input(0)
	if err != nil {
		return nil, err
	}
	if len(x.shape) < 2 {
		return nil, fmt.Errorf("input rank %d is below 2", len(x.shape))
	}
	if strings.HasPrefix(c.n.OpType, "Global") {
		shape := slices.Clone(x.shape)
		for i := 2; i < len(shape); i++ {
			shape[i] = 1
		}
		return []*value{shaped(x.elem, shape)}, nil
	}
	k, ok := c.ints("kernel_shape")
	if !ok {
		return nil, fmt.Errorf("no kernel_shape")
	}
	sp, err := c.window(x.shape[2:], k, c.int("ceil_mode", 0) != 0)
	if err != nil {
		return nil, err
	}
	shape := append([]int64{x.shape[0], x.shape[1]}, sp...)
	outs := []*value{shaped(x.elem, shape)}
	if c.n.OpType == "MaxPool" && len(c.n.Outputs) > 1 {
		outs = append(outs, shaped(TypeInt64, shape))
	}
	return outs, nil
}

// window computes the output sizes of a convolution or pooling window
// (kernel k, attributes strides, dilations, pads, auto_pad).
func (c *opCtx) window(in, k []int64, ceil bool) ([]int64, error) {
	n := len(in)
	if len(k) != n {
		return nil, fmt.Errorf("kernel of rank %d for %d spatial dimensions", len(k), n)
	}
	get := func(name string, def int64, size int) ([]int64, error) {
		v, ok := c.ints(name)
		if !ok || len(v) == 0 {
			v = make([]int64, size)
			for i := range v {
				v[i] = def
			}
		}
		if len(v) != size {
			return nil, fmt.Errorf("%s has %d values, want %d", name, len(v), size)
		}
		return v, nil
	}
	strides, err := get("strides", 1, n)
	if err != nil {
		return nil, err
	}
	dil, err := get("dilations", 1, n)
	if err != nil {
		return nil, err
	}
	pads, err := get("pads", 0, 2*n)
	if err != nil {
		return nil, err
	}
	auto := c.str("auto_pad", "NOTSET")
	out := make([]int64, n)
	for i := range n {
		if strides[i] <= 0 || dil[i] <= 0 || k[i] <= 0 {
			return nil, fmt.Errorf("non-positive stride, dilation or kernel size")
		}
		ek, ok := mulDim(k[i]-1, dil[i])
		if ok {
			ek, ok = addDim(ek, 1)
		}
		if !ok {
			return nil, overflow("the dilated kernel (%d-1)×%d+1", k[i], dil[i])
		}
		// ONNX's convPoolShapeInference: SAME pads so that the output is
		// about in/stride, VALID pads nothing, and ceil_mode applies to
		// all three
		p0, p1 := pads[i], pads[i+n]
		switch auto {
		case "SAME_UPPER", "SAME_LOWER":
			total := ek - strides[i]
			if r := in[i] % strides[i]; r != 0 {
				total = ek - r
			}
			p0, p1 = 0, max(total, 0)
		case "VALID":
			p0, p1 = 0, 0
		}
		if p0 < 0 || p1 < 0 {
			return nil, fmt.Errorf("negative pads %v", pads)
		}
		padded, ok := sum(in[i], p0, p1)
		if !ok {
			return nil, overflow("the padded input %d+%d+%d", in[i], p0, p1)
		}
		span := padded - ek
		if span < 0 {
			return nil, fmt.Errorf("the window (%d) is larger than the padded input (%d)", ek, padded)
		}
		if ceil {
			// as ONNX's shape inference (up to 1.15) and ONNX Runtime
			// before 1.17: without PyTorch's rule that drops a last
			// window starting in the end padding, so never smaller
			out[i] = ceilDiv(span, strides[i]) + 1
		} else {
			out[i] = span/strides[i] + 1
		}
	}
	return out, nil
}
