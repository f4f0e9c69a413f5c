package onnx

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/optalloc/optalloc/formats"
	"github.com/optalloc/optalloc/model"
)

func init() {
	formats.Register(".onnx", func(r io.Reader, name string) (*model.Problem, error) {
		return readProblem(r, name, Options{})
	})
}

// LoadFile reads the ONNX model at path and returns its arena with opt
// (the symbolic dimensions that --dim fixes).
func LoadFile(path string, opt Options) (*Arena, error) {
	m, err := ReadFile(path)
	if err != nil {
		return nil, err
	}
	return m.Arena(opt)
}

// Alignment is the offset alignment of every planned tensor: 64 bytes,
// the alignment ONNX Runtime's CPU allocator gives its buffers.
const Alignment = 64

// Options tune Model.Arena.
type Options struct {
	// Dims fixes symbolic dimensions: a dim_param name, or "INPUT:AXIS"
	// for an unnamed dimension of graph input INPUT.
	Dims map[string]int64
	// NoFold keeps in the arena the tensors a runtime computes once at
	// load time (outputs of nodes whose inputs are all weights, and of
	// Shape and Size): by default they are weights, as ONNX Runtime's
	// constant folding makes them.
	NoFold bool
}

// ParseDim parses a NAME=VALUE dimension (the CLI's --dim).
func ParseDim(s string) (string, int64, error) {
	i := strings.LastIndexByte(s, '=')
	if i <= 0 {
		return "", 0, fmt.Errorf("--dim %q: want NAME=VALUE", s)
	}
	v, err := strconv.ParseInt(s[i+1:], 10, 64)
	if err != nil || v < 0 {
		return "", 0, fmt.Errorf("--dim %q: the value must be a non-negative integer", s)
	}
	return s[:i], v, nil
}

// Arena is the memory problem of a model: one buffer per tensor computed
// at run time (graph inputs, node outputs, the tensors of the If branches
// that may run), with its exact byte size, aligned to Alignment.
// Initializers, Constant outputs and views of them are weights, outside.
type Arena struct {
	Problem *model.Problem
	// Weights counts initializers, Constant outputs and folded constants
	// (not planned).
	Weights int
	// Views counts the buffers planned in place inside their input
	// (Reshape, Flatten, Squeeze, Unsqueeze, Identity).
	Views int
	// Branches counts If branches planned; Skipped the branches left out
	// because their node's condition is a constant.
	Branches, Skipped int
	// OpenConditions describes each If node whose condition is not a
	// constant, so that both branches are planned, with the --dim that
	// could fix it where a scalar input may decide it.
	OpenConditions []string
	// Reordered counts graphs whose nodes were not listed in execution
	// order and got a derived order.
	Reordered int
}

// Arena infers every tensor's shape and builds the arena problem.
//
// Lifetimes follow the TFLite front end (TFLite Micro's scopes): graph
// inputs are created at scope 0; each node opens a scope where its outputs
// are created; an If node then walks each branch it may take, each in
// scopes of its own (then before else, so the two never overlap and may
// share memory), and the branch's outputs are used at the branch's end;
// then the node's inputs and outputs are used at the current scope. Graph
// outputs are used at the last scope. A tensor's buffer is live over
// [first+1, last+2).
func (m *Model) Arena(opt Options) (*Arena, error) {
	in := newInferer(m, opt.Dims)
	in.noFold = opt.NoFold
	if err := in.run(); err != nil {
		return nil, m.inputErr(err)
	}
	a, err := in.arena()
	if err != nil {
		return nil, m.inputErr(err)
	}
	return a, nil
}

func (m *Model) inputErr(err error) error {
	var ie *inputError
	if errors.As(err, &ie) {
		return &model.InputError{File: m.Name, Msg: ie.msg}
	}
	return err
}

type timeline struct {
	in    *inferer
	scope int
	a     *Arena
}

func (t *timeline) created(v *value) {
	if v != nil && v.first < 0 {
		v.first = t.scope
	}
}

func (t *timeline) used(v *value) {
	if v != nil {
		if v.first < 0 {
			v.first = t.scope
		}
		v.last = t.scope
	}
}

func (t *timeline) walk(g *Graph) {
	for _, n := range t.in.orders[g] {
		t.scope++
		for _, o := range t.in.outs[n.seq] {
			t.created(o)
		}
		if n.OpType == "If" {
			for _, b := range []string{"then_branch", "else_branch"} {
				if tk := t.in.taken[n]; tk != "" && tk != b {
					t.a.Skipped++
					continue
				}
				t.a.Branches++
				t.scope++
				body := n.Graphs[b]
				t.walk(body)
				for _, o := range t.in.bodyOuts[body] {
					t.used(o)
				}
			}
		}
		for _, v := range t.in.ins[n.seq] {
			t.used(v)
		}
		for _, o := range t.in.outs[n.seq] {
			t.used(o)
		}
	}
}

func (in *inferer) arena() (*Arena, error) {
	g := in.m.Graph
	a := &Arena{Problem: &model.Problem{Name: in.m.Name}, Reordered: in.reordered, OpenConditions: in.open}
	t := &timeline{in: in, a: a}
	kinds := map[*value]model.Kind{}
	var inputs []*value
	for _, v := range in.values {
		if v.graph == g && v.node == nil && !v.weight {
			inputs = append(inputs, v)
			kinds[v] = model.Input
		}
	}
	for _, v := range inputs {
		t.used(v)
	}
	t.walk(g)
	top := map[string]*value{}
	for _, v := range in.values {
		if v.graph == g {
			top[v.name] = v
		}
	}
	for _, vi := range g.Outputs {
		if v := top[vi.GetName()]; v != nil && v.first >= 0 {
			t.used(v)
			if kinds[v] == "" {
				kinds[v] = model.Output
			}
		}
	}
	// Ids: the tensor name, with "#K" where a name is empty or repeated.
	count := map[string]int{}
	var planned []*value
	for _, v := range in.values {
		if v.weight {
			a.Weights++
			if n, ok := elements(v.shape); !ok || fixedWidth(v.elem) && !fits(v.elem, n) {
				return nil, in.fail("tensor %s: its shape %v of %s has more bytes than int64 holds", where(v), v.shape, TypeName(v.elem))
			}
			continue
		}
		if v.first < 0 {
			continue // in a branch that is not planned
		}
		if !utf8.ValidString(v.name) {
			return nil, in.fail("tensor %s: its name is not valid UTF-8 (a plan names each buffer by its tensor's name, and JSON plans must be UTF-8)", where(v))
		}
		count[v.name]++
		planned = append(planned, v)
	}
	ids := map[*value]string{}
	for k, v := range planned {
		id := v.name
		if id == "" || count[id] > 1 {
			id += "#" + strconv.Itoa(k)
		}
		ids[v] = id
	}
	buffers := make([]model.Buffer, 0, len(planned))
	var total int64
	for _, v := range planned {
		n, ok := elements(v.shape)
		where := where(v)
		if !ok {
			return nil, in.fail("tensor %s: shape %v overflows", where, v.shape)
		}
		if !fixedWidth(v.elem) {
			return nil, in.fail("tensor %s: element type %s has no fixed size, so it cannot be planned", where, TypeName(v.elem))
		}
		size, ok := tensorBytes(v.elem, n)
		if !ok {
			return nil, in.fail("tensor %s: %d elements of %s overflow", where, n, TypeName(v.elem))
		}
		if total, ok = addDim(total, size); !ok {
			return nil, in.fail("tensor %s: the sizes of the tensors up to this one add up to more than 2^63-1 bytes", where)
		}
		v.buffer = len(buffers)
		kind := kinds[v]
		buffers = append(buffers, model.Buffer{ID: ids[v], Start: int64(v.first) + 1, End: int64(v.last) + 2,
			Size: size, Align: Alignment, Kind: kind})
	}
	// Views: the output of Reshape, Flatten, Squeeze, Unsqueeze or
	// Identity lies on its input's bytes. All views of one tensor form a
	// chain (each inside the previous one), so no two members of a group
	// are siblings that the validator would have to keep apart.
	tail := map[*value]*value{}
	roots := map[*value]*value{} // each view's root, so a chain of views is linear
	root := func(v *value) *value {
		if r := roots[v]; r != nil {
			return r
		}
		return v
	}
	for _, n := range in.orderedNodes() {
		if !views[n.OpType] {
			continue
		}
		ins, outs := in.ins[n.seq], in.outs[n.seq]
		if len(ins) == 0 || len(outs) == 0 || ins[0] == nil || outs[0] == nil {
			continue
		}
		x, y := ins[0], outs[0]
		if x.buffer < 0 || y.buffer < 0 || buffers[x.buffer].Size != buffers[y.buffer].Size {
			continue
		}
		r := root(x)
		p := tail[r]
		if p == nil {
			p = r
		}
		if p == y || buffers[p.buffer].Size != buffers[y.buffer].Size {
			continue
		}
		y.view = p
		tail[r], roots[y] = y, r
		buffers[y.buffer].Alias = &model.Alias{Parent: ids[p]}
		a.Views++
	}
	a.Problem.Buffers = buffers
	if err := a.Problem.Validate(); err != nil {
		return nil, fmt.Errorf("the arena problem is invalid (a bug): %v", err)
	}
	return a, nil
}

// orderedNodes lists every planned node, graphs in a fixed order.
func (in *inferer) orderedNodes() []*Node {
	var out []*Node
	var walk func(g *Graph)
	walk = func(g *Graph) {
		for _, n := range in.orders[g] {
			out = append(out, n)
			names := make([]string, 0, len(n.Graphs))
			for b := range n.Graphs {
				names = append(names, b)
			}
			sort.Strings(names)
			for _, b := range names {
				if _, ok := in.orders[n.Graphs[b]]; ok {
					walk(n.Graphs[b])
				}
			}
		}
	}
	walk(in.m.Graph)
	return out
}

// where names a tensor for messages: "NAME" (output K of node N).
func where(v *value) string {
	if v.node != nil {
		return fmt.Sprintf("%v (output %d of node %s)", v, v.out, nodeName(v.node))
	}
	return v.String()
}

// fits reports whether n elements of the fixed-width type t have a byte
// size that fits in an int64.
func fits(t int32, n int64) bool {
	_, ok := tensorBytes(t, n)
	return ok
}
