package onnx

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/optalloc/optalloc/formats/onnx/internal/onnxpb"
	"github.com/optalloc/optalloc/internal/suggest"
)

// value is one tensor of the model as the planner sees it: its element
// type and shape (after shape inference), the values of a small integer
// tensor where they are known (shape arithmetic: Shape, Gather, Concat
// feeding a Reshape), and where it lives.
type value struct {
	name  string
	elem  int32
	shape []int64
	known bool // shape is known
	ints  []int64
	flts  []float64

	weight bool  // an initializer, a Constant's output or a view of one
	node   *Node // producer; nil for graph inputs and initializers
	graph  *Graph
	out    int    // output index at the producer
	view   *value // in-place view of this value (Reshape, Identity, ...)

	first, last int // allocation scopes (see lifetimes)
	buffer      int // index in the problem, -1 if none
}

func (v *value) String() string { return strconv.Quote(v.name) }

// scope maps tensor names to values; a control-flow body's scope sees the
// enclosing ones.
type scope struct {
	vals   map[string]*value
	parent *scope
}

func (s *scope) get(name string) *value {
	for ; s != nil; s = s.parent {
		if v, ok := s.vals[name]; ok {
			return v
		}
	}
	return nil
}

// inferer runs shape inference over a graph and its bodies.
type inferer struct {
	m      *Model
	dims   map[string]int64
	used   map[string]bool // --dim names used
	values []*value        // every value in creation order
	// taken[n] is the only branch of If node n that can run (its
	// condition is known), "" when both may.
	taken map[*Node]string
	// open describes the If nodes whose both branches were planned.
	open []string
	// orders holds each graph's nodes in execution order.
	orders map[*Graph][]*Node
	// strip drops declared shapes of every tensor but graph inputs (tests
	// compare inference with ONNX's).
	strip bool
	// noFold keeps constant-foldable tensors in the arena.
	noFold bool
	// reordered counts the graphs whose nodes were listed out of order.
	reordered int
	// ins and outs are each node's input and output values; bodyOuts
	// each control-flow body's output values.
	ins, outs [][]*value // by Node.seq
	bodyOuts  map[*Graph][]*value
	// held counts the dimensions and folded values of the tensors inferred
	// so far: bounded by the file's size (budget), so that a small file
	// cannot make shape inference hold gigabytes (a chain of Neg on a
	// 4 096-value constant, of Transpose on a rank-65 536 input).
	held int64
}

// budget is the most dimensions and folded values that the inferred
// tensors may hold together: 4 M, plus 8 per byte of the file.
func (in *inferer) budget() int64 { return 1<<22 + 8*in.m.FileBytes }

func (in *inferer) newValue(name string, g *Graph) *value {
	v := &value{name: name, graph: g, first: -1, last: -1, buffer: -1}
	in.values = append(in.values, v)
	return v
}

// declared is the shape a ValueInfoProto gives, with --dim values
// substituted: known when every dimension is. A graph input's unnamed
// dimension is named "INPUT:AXIS".
func (in *inferer) declared(vi *onnxpb.ValueInfoProto, input bool) (elem int32, shape []int64, known bool, missing []string, err error) {
	tt := vi.GetType().GetTensorType()
	if tt == nil {
		if vi.GetType() != nil && vi.GetType().Value != nil {
			return 0, nil, false, nil, fmt.Errorf("tensor %q is not a tensor (a sequence, map or optional): it has no fixed size", vi.GetName())
		}
		return 0, nil, false, nil, nil
	}
	elem = tt.GetElemType()
	if tt.Shape == nil {
		if input {
			return 0, nil, false, nil, fmt.Errorf("tensor %q has no shape (not even a rank; a scalar has an empty shape)", vi.GetName())
		}
		return elem, nil, false, nil, nil
	}
	known = true
	for k, d := range tt.Shape.GetDim() {
		switch {
		case isDimValue(d):
			if d.GetDimValue() < 0 {
				return 0, nil, false, nil, fmt.Errorf("tensor %q has a negative dimension %d", vi.GetName(), d.GetDimValue())
			}
			shape = append(shape, d.GetDimValue())
			continue
		case d.GetDimParam() != "":
			if x, ok := in.dims[d.GetDimParam()]; ok {
				in.used[d.GetDimParam()] = true
				shape = append(shape, x)
				continue
			}
			missing = append(missing, d.GetDimParam())
		default:
			name := vi.GetName() + ":" + strconv.Itoa(k)
			if x, ok := in.dims[name]; ok && input {
				in.used[name] = true
				shape = append(shape, x)
				continue
			}
			missing = append(missing, name)
		}
		known = false
		shape = append(shape, -1)
	}
	return elem, shape, known, missing, nil
}

func isDimValue(d *onnxpb.TensorShapeProto_Dimension) bool {
	_, ok := d.Value.(*onnxpb.TensorShapeProto_Dimension_DimValue)
	return ok
}

// newInferer returns an inferer of m's graphs with the --dim values dims.
func newInferer(m *Model, dims map[string]int64) *inferer {
	if dims == nil {
		dims = map[string]int64{}
	}
	return &inferer{m: m, dims: dims, used: map[string]bool{}, taken: map[*Node]string{},
		orders: map[*Graph][]*Node{}, ins: make([][]*value, m.nodes), outs: make([][]*value, m.nodes), bodyOuts: map[*Graph][]*value{}}
}

// run infers the main graph.
func (in *inferer) run() error {
	g := in.m.Graph
	sc := &scope{vals: make(map[string]*value, len(g.Initializers)+len(g.Inputs)+len(g.Nodes))}
	for _, t := range g.Initializers {
		v := in.tensorValue(t, g)
		sc.vals[t.Name] = v
	}
	var missing []string
	for _, vi := range g.Inputs {
		if w := sc.vals[vi.GetName()]; w != nil {
			continue // an initializer listed as an input (IR < 4): a weight
		}
		elem, shape, known, miss, err := in.declared(vi, true)
		if err != nil {
			return in.fail("graph input %v", err)
		}
		v := in.newValue(vi.GetName(), g)
		v.elem, v.shape, v.known = elem, shape, known
		if x, ok := in.dims[vi.GetName()]; ok && isInt(elem) && known {
			if n, _ := elements(shape); n == 1 {
				// a scalar integer input's value (Silero VAD's sample rate)
				in.used[vi.GetName()] = true
				v.ints = []int64{x}
			}
		}
		sc.vals[vi.GetName()] = v
		for _, d := range miss {
			if !slices.Contains(missing, d) {
				missing = append(missing, d)
			}
		}
		if elem == TypeUndefined && vi.GetType().GetTensorType() == nil {
			return in.fail("graph input %q has no tensor type", vi.GetName())
		}
	}
	if len(missing) > 0 {
		// A --dim that names nothing is likely the missing one misspelled.
		unused := ""
		for _, name := range slices.Sorted(maps.Keys(in.dims)) {
			if !in.used[name] {
				unused += fmt.Sprintf("; --dim %s names no dimension of the model", name)
				if near := suggest.Nearest(name, missing); near != "" {
					unused += fmt.Sprintf(" (did you mean %s?)", near)
				}
			}
		}
		return in.fail("the graph inputs have dimensions without a size: %s (give each with --dim NAME=VALUE; an unnamed dimension is INPUT:AXIS)%s", strings.Join(missing, ", "), unused)
	}
	if err := in.graph(g, sc); err != nil {
		return err
	}
	for name := range in.dims {
		if !in.used[name] {
			return in.fail("--dim %s: the model has no symbolic dimension %q", name, name)
		}
	}
	return nil
}

func (in *inferer) fail(format string, args ...any) error {
	return &inputError{msg: fmt.Sprintf(format, args...)}
}

// inputError is a problem of the model; Problem turns it into a
// model.InputError naming the file.
type inputError struct{ msg string }

func (e *inputError) Error() string { return e.msg }

func (in *inferer) tensorValue(t *Tensor, g *Graph) *value {
	v := in.newValue(t.Name, g)
	v.elem, v.shape, v.known, v.weight = t.DataType, slices.Clone(t.Dims), true, true
	if v.shape == nil {
		v.shape = []int64{}
	}
	v.ints, v.flts = t.Ints, t.Floats
	return v
}

// graph infers the nodes of g in execution order, within scope sc (which
// holds g's inputs and initializers).
func (in *inferer) graph(g *Graph, sc *scope) error {
	decl := map[string]*onnxpb.ValueInfoProto{}
	if !in.strip {
		for _, vi := range g.ValueInfo {
			decl[vi.GetName()] = vi
		}
		for _, vi := range g.Outputs {
			decl[vi.GetName()] = vi
		}
	}
	order, err := in.order(g, sc)
	if err != nil {
		return err
	}
	in.orders[g] = order
	for _, n := range order {
		ins := make([]*value, len(n.Inputs))
		for k, name := range n.Inputs {
			if name == "" {
				continue
			}
			ins[k] = sc.get(name)
		}
		outs, why := in.node(n, ins, sc)
		if fatal, ok := why.(*inputError); ok {
			return fatal
		}
		if se, ok := why.(*sizeError); ok {
			return in.fail("tensor %q (output 0 of node %s): %v", outName(n, 0), nodeName(n), se)
		}
		for k, o := range outs {
			if o == nil || !o.known {
				continue
			}
			if len(o.shape) > maxRank {
				return in.fail("tensor %q (output %d of node %s): its inferred rank %d is above %d", outName(n, k), k, nodeName(n), len(o.shape), maxRank)
			}
			if _, ok := elements(o.shape); ok && nonNegative(o.shape) == nil {
				continue
			}
			if nonNegative(o.shape) != nil {
				outs[k], why = nil, fmt.Errorf("inferred shape %v has a negative dimension", o.shape)
				continue
			}
			return in.fail("tensor %q (output %d of node %s): its inferred shape %v has more elements than int64 holds", outName(n, k), k, nodeName(n), o.shape)
		}
		for k, name := range n.Outputs {
			if name == "" {
				continue
			}
			if _, dup := sc.vals[name]; dup {
				return in.fail("node %s writes tensor %q, which is already defined", nodeName(n), name)
			}
			v := in.newValue(name, g)
			v.node, v.out = n, k
			var o *value
			if k < len(outs) {
				o = outs[k]
			}
			if o != nil {
				v.elem, v.shape, v.known, v.ints, v.flts, v.weight = o.elem, o.shape, o.known, o.ints, o.flts, o.weight
			}
			if !in.noFold && folds(n, ins) {
				v.weight = true
			}
			if vi := decl[name]; vi != nil {
				elem, shape, known, _, err := in.declared(vi, false)
				if err != nil {
					return in.fail("%v", err)
				}
				if elem != TypeUndefined {
					v.elem = elem
				}
				if known && v.known && !slices.Equal(shape, v.shape) && !v.weight {
					// (a weight is not planned: its inferred shape is kept)
					return in.fail("tensor %q (output %d of node %s): the model declares shape %v, but the node gives %v", name, k, nodeName(n), shape, v.shape)
				}
				if known && !v.known {
					v.shape, v.known, v.ints, v.flts = shape, true, nil, nil
				}
			}
			if !v.known {
				reason := ""
				if why != nil {
					reason = ": " + why.Error()
				}
				return in.fail("tensor %q (output %d of node %s): its shape is unknown%s", name, k, nodeName(n), reason)
			}
			if v.elem == TypeUndefined {
				return in.fail("tensor %q (output %d of node %s): its element type is unknown", name, k, nodeName(n))
			}
			if in.held += int64(len(v.shape) + len(v.ints)); in.held > in.budget() {
				return in.fail("tensor %q (output %d of node %s): the inferred shapes and values hold more than %d numbers, more than a file of %d bytes describes", name, k, nodeName(n), in.budget(), in.m.FileBytes)
			}
			sc.vals[name] = v
		}
		in.ins[n.seq] = ins
		o := make([]*value, len(n.Outputs))
		for k, name := range n.Outputs {
			if name != "" {
				o[k] = sc.vals[name]
			}
		}
		in.outs[n.seq] = o
	}
	return nil
}

// outName is the name of output k of n ("" when it has none).
func outName(n *Node, k int) string {
	if k < len(n.Outputs) {
		return n.Outputs[k]
	}
	return ""
}

// nodeName names a node for messages: "NAME" (OP) or #INDEX (OP).
func nodeName(n *Node) string {
	if n.Name != "" {
		return strconv.Quote(n.Name) + " (" + n.OpType + ")"
	}
	return "#" + strconv.Itoa(n.Index) + " (" + n.OpType + ")"
}

// folds reports whether a node's outputs are constants a runtime computes
// once at load time (ONNX Runtime's constant folding): every input is a
// weight, or the node reads only its input's static shape (Shape, Size).
// Control flow and random operators never fold.
func folds(n *Node, ins []*value) bool {
	switch n.OpType {
	case "Shape", "Size":
		return len(ins) > 0 && ins[0] != nil && ins[0].known
	case "If", "Loop", "Scan", "RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike", "Bernoulli", "Multinomial":
		return false
	}
	if n.Domain != "" && n.Domain != "ai.onnx" {
		return false
	}
	some := false
	for _, v := range ins {
		if v == nil {
			continue
		}
		if !v.weight {
			return false
		}
		some = true
	}
	return some
}
