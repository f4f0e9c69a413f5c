package zoo

import (
	"fmt"
	"hash/fnv"

	"github.com/optalloc/optalloc/formats/graph"
)

// net builds one model: it tracks tensor shapes and names and emits ops in
// execution order. Shapes are NCHW (batch 1) for images.
type net struct {
	m      graph.Model
	shapes map[string][]int64
	dtype  string
	ns     string // weight-hash namespace: same namespace + name = same content
}

func newNet(name, ns string) *net {
	return &net{m: graph.Model{Name: name}, shapes: map[string][]int64{}, dtype: "float32", ns: ns}
}

func (n *net) tensor(name string, shape []int64, kind string) string {
	if _, dup := n.shapes[name]; dup {
		panic("zoo: duplicate tensor " + name)
	}
	t := graph.Tensor{Name: name, Shape: shape, DType: n.dtype}
	if kind != "activation" {
		t.Kind = kind
	}
	if kind == "weight" {
		h := fnv.New64a()
		fmt.Fprintf(h, "%s/%s/%v", n.ns, name, shape)
		t.Hash = fmt.Sprintf("fnv64:%016x", h.Sum64())
	}
	n.m.Tensors = append(n.m.Tensors, t)
	n.shapes[name] = shape
	return name
}

func (n *net) input(name string, shape ...int64) string { return n.tensor(name, shape, "input") }

func (n *net) weight(name string, shape ...int64) string { return n.tensor(name, shape, "weight") }

// op adds an op whose single output is a new activation of the given shape.
func (n *net) op(name, typ string, ins []string, out []int64, mod ...func(*graph.Op)) string {
	o := n.tensor(name, out, "activation")
	op := graph.Op{Name: name, Type: typ, Inputs: ins, Outputs: []string{o}}
	for _, f := range mod {
		f(&op)
	}
	n.m.Ops = append(n.m.Ops, op)
	return o
}

// markOutput turns an activation into a graph output.
func (n *net) markOutput(name string) {
	for i := range n.m.Tensors {
		if n.m.Tensors[i].Name == name {
			n.m.Tensors[i].Kind = "output"
		}
	}
}

func axis(a int) func(*graph.Op) { return func(o *graph.Op) { o.Axis = &a } }

func scratch(s graph.Scratch) func(*graph.Op) {
	return func(o *graph.Op) { o.Scratch = append(o.Scratch, s) }
}

func i64(v int64) *int64 { return &v }

func convOut(h, k, s, p int64) int64 { return (h+2*p-k)/s + 1 }

// conv is a 2-D convolution (batch norm folded into weight and bias) with
// an optional fused activation; groups == cin makes it depthwise. Convs
// with k > 1 that are not depthwise get an im2col scratch that may be tiled:
// at least one output row of patches, at most the whole patch matrix.
func (n *net) conv(name, x string, cout, k, s, p, groups int64, act string) string {
	sh := n.shapes[x]
	cin, h, w := sh[1], sh[2], sh[3]
	ho, wo := convOut(h, k, s, p), convOut(w, k, s, p)
	wt := n.weight(name+".w", cout, cin/groups, k, k)
	b := n.weight(name+".b", cout)
	typ := "Conv"
	var mods []func(*graph.Op)
	if act != "" {
		typ = "Conv+" + act
	}
	if k > 1 && groups == 1 {
		row := cin * k * k * wo * 4
		mods = append(mods, scratch(graph.Scratch{Name: "im2col", MinSize: i64(row), MaxSize: i64(row * ho)}))
	}
	return n.op(name, typ, []string{x, wt, b}, []int64{1, cout, ho, wo}, mods...)
}

func (n *net) unary(name, typ, x string) string {
	return n.op(name, typ, []string{x}, n.shapes[x])
}

func (n *net) add(name, x, y string) string {
	return n.op(name, "Add", []string{x, y}, n.shapes[x])
}

func (n *net) pool(name, typ, x string, k, s, p int64) string {
	sh := n.shapes[x]
	return n.op(name, typ, []string{x}, []int64{1, sh[1], convOut(sh[2], k, s, p), convOut(sh[3], k, s, p)})
}

func (n *net) globalPool(name, x string) string {
	sh := n.shapes[x]
	return n.op(name, "GlobalAveragePool", []string{x}, []int64{1, sh[1], 1, 1})
}

func (n *net) flatten(name, x string) string {
	sh := n.shapes[x]
	m := int64(1)
	for _, d := range sh[1:] {
		m *= d
	}
	return n.op(name, "Flatten", []string{x}, []int64{sh[0], m})
}

// gemm is y = x·Wᵀ + b for x [rows, in].
func (n *net) gemm(name, x string, out int64) string {
	sh := n.shapes[x]
	w := n.weight(name+".w", out, sh[len(sh)-1])
	b := n.weight(name+".b", out)
	o := append(append([]int64(nil), sh[:len(sh)-1]...), out)
	return n.op(name, "Gemm", []string{x, w, b}, o)
}

func file(comment string, m graph.Model) *graph.File {
	return &graph.File{Comment: comment, Name: m.Name, Alignment: 64, Tensors: m.Tensors, Ops: m.Ops}
}
