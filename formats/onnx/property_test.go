package onnx

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	pb "github.com/optalloc/optalloc/formats/onnx/internal/onnxpb"
)

// inferMany runs ONNX's own shape inference (strict, with data
// propagation) on every model named on the command line, saving each
// inferred model beside it as NAME.ref; a model ONNX refuses gets
// NAME.err with the reason.
const inferMany = `
import sys, onnx
from onnx import shape_inference
for p in sys.argv[1:]:
    try:
        m = shape_inference.infer_shapes(onnx.load(p), strict_mode=True, data_prop=True)
        onnx.save(m, p + ".ref")
    except Exception as e:
        open(p + ".err", "w").write(str(e))
`

// TestInferredSizesAgreeWithONNXOnGeneratedGraphs is a property test:
// random graphs of the shape-changing operators (convolutions and pooling
// with strides, dilations, pads and ceil_mode, ConvTranspose, Concat,
// Split, Slice with negative and large steps, Tile, Flatten, Reshape,
// Transpose, Pad, Unsqueeze, DepthToSpace, SpaceToDepth, reductions,
// Gather, MatMul, Range) are inferred by this package and by
// onnx.shape_inference; every tensor's shape and byte size must agree.
func TestInferredSizesAgreeWithONNXOnGeneratedGraphs(t *testing.T) {
	py := "/usr/bin/python3"
	if exec.Command(py, "-c", "import onnx").Run() != nil {
		t.Skip("python3 with onnx not found (apt-get install python3-onnx); the property test against ONNX's shape inference does not run")
	}
	graphs := 300
	if testing.Short() {
		graphs = 30
	}
	dir := t.TempDir()
	var paths []string
	for seed := range graphs {
		g := genGraph(t, uint64(seed))
		p := filepath.Join(dir, fmt.Sprintf("g%03d.onnx", seed))
		require.NoError(t, os.WriteFile(p, encode(t, g), 0o644))
		paths = append(paths, p)
	}
	out, err := exec.Command(py, append([]string{"-c", inferMany}, paths...)...).CombinedOutput()
	require.NoError(t, err, string(out))
	tensors, refused := 0, 0
	for _, p := range paths {
		if msg, err := os.ReadFile(p + ".err"); err == nil {
			refused++
			t.Errorf("%s: ONNX refuses a generated graph: %s", filepath.Base(p), msg)
			continue
		}
		ref, err := ReadFile(p + ".ref")
		require.NoError(t, err)
		want := map[string]*pb.ValueInfoProto{}
		for _, vi := range append(slices.Clone(ref.Graph.ValueInfo), ref.Graph.Outputs...) {
			want[vi.GetName()] = vi
		}
		m, err := ReadFile(p)
		require.NoError(t, err)
		ours, err := inferShapes(m)
		require.NoError(t, err, filepath.Base(p))
		in := &inferer{m: ref, dims: map[string]int64{}, used: map[string]bool{}}
		for _, v := range ours.values {
			if v.weight || v.node == nil {
				continue
			}
			vi := want[v.name]
			require.NotNil(t, vi, "%s: ONNX gives no shape for %q (ours %v)", filepath.Base(p), v.name, v.shape)
			elem, shape, known, _, err := in.declared(vi, false)
			require.NoError(t, err)
			if !known {
				t.Errorf("%s: ONNX leaves %q (%s) partly unknown: %v; ours %v", filepath.Base(p), v.name, nodeName(v.node), shape, v.shape)
				continue
			}
			n, _ := elements(shape)
			wantBytes, _ := tensorBytes(elem, n)
			m, _ := elements(v.shape)
			gotBytes, _ := tensorBytes(v.elem, m)
			if wantBytes != gotBytes || !slices.Equal(shape, v.shape) || elem != v.elem {
				var ins []string
				for _, x := range ours.ins[v.node.seq] {
					if x != nil {
						ins = append(ins, fmt.Sprintf("%v%v", x.shape, x.ints))
					}
				}
				t.Errorf("%s: tensor %q (%s, inputs %v, %v): ours %s %v (%d bytes), ONNX's %s %v (%d bytes)", filepath.Base(p), v.name,
					nodeName(v.node), ins, v.node.Attrs, TypeName(v.elem), v.shape, gotBytes, TypeName(elem), shape, wantBytes)
			}
			tensors++
		}
	}
	t.Logf("%d generated graphs, %d tensors compared with onnx.shape_inference, %d graphs refused by ONNX", graphs, tensors, refused)
	require.Positive(t, tensors)
}

// inferShapes runs this package's shape inference on m.
func inferShapes(m *Model) (*inferer, error) {
	in := newInferer(m, nil)
	in.noFold = true
	return in, in.run()
}

// genGraph builds a random graph of float tensors: each node reads an
// earlier tensor, with attributes and constant inputs drawn so that the
// node is valid for that tensor's shape (found by inferring the graph so
// far). Weights and constant inputs are initializers.
func genGraph(t *testing.T, seed uint64) *pb.GraphProto {
	r := rand.New(rand.NewPCG(seed, 42))
	rank := 3 + r.IntN(2)
	dims := []int{1 + r.IntN(2)}
	for range rank - 1 {
		dims = append(dims, 2+r.IntN(9))
	}
	anyDims := make([]any, len(dims))
	for i, d := range dims {
		anyDims[i] = d
	}
	g := &pb.GraphProto{Name: proto.String(fmt.Sprintf("gen%d", seed)), Input: []*pb.ValueInfoProto{tinfo("x", TypeFloat, anyDims...)}}
	pool := []string{"x"}
	shapes := map[string][]int64{"x": toInt64(dims)}
	k := 0
	name := func(p string) string { k++; return fmt.Sprintf("%s%d", p, k) }
	for len(g.Node) < 8 {
		x := pool[r.IntN(len(pool))]
		s := shapes[x]
		nodes, inits := genNode(r, x, s, name)
		if nodes == nil {
			continue
		}
		trial := proto.Clone(g).(*pb.GraphProto)
		trial.Node = append(trial.Node, nodes...)
		trial.Initializer = append(trial.Initializer, inits...)
		m, err := Decode(encode(t, trial), "gen.onnx")
		require.NoError(t, err)
		in, err := inferShapes(m)
		if err != nil {
			t.Logf("seed %d: generated node %s refused: %v", seed, nodes[len(nodes)-1].GetOpType(), err)
			continue
		}
		g = trial
		for _, v := range in.values {
			if v.node != nil && !v.weight && v.elem == TypeFloat && shapes[v.name] == nil {
				if n, _ := elements(v.shape); n > 0 && n <= 1<<16 && len(v.shape) > 0 {
					shapes[v.name] = v.shape
					pool = append(pool, v.name)
				}
			}
		}
	}
	for _, n := range g.Node {
		for _, o := range n.Output {
			g.Output = append(g.Output, untyped(o, TypeUndefined))
		}
	}
	for _, o := range g.Output {
		o.Type = nil
	}
	return g
}

func toInt64(d []int) []int64 {
	out := make([]int64, len(d))
	for i, v := range d {
		out[i] = int64(v)
	}
	return out
}

// genNode draws one node reading x of shape s (nil when the drawn
// operator does not apply to s).
func genNode(r *rand.Rand, x string, s []int64, name func(string) string) ([]*pb.NodeProto, []*pb.TensorProto) {
	rk := len(s)
	ri := func(lo, hi int64) int64 { return lo + r.Int64N(hi-lo+1) }
	ax := func() int64 { return ri(-int64(rk), int64(rk)-1) }
	spatial := rk - 2
	out := name("t")
	switch r.IntN(19) {
	case 0:
		return []*pb.NodeProto{op([]string{"Relu", "Sigmoid", "Neg"}[r.IntN(3)], []string{x}, []string{out})}, nil
	case 1: // broadcasting with a weight of some dimensions 1 (and maybe a lower rank)
		w := name("w")
		drop := r.IntN(rk)
		wd := slices.Clone(s[drop:])
		for i := range wd {
			if r.IntN(2) == 0 {
				wd[i] = 1
			}
		}
		return []*pb.NodeProto{op([]string{"Add", "Mul"}[r.IntN(2)], []string{x, w}, []string{out})}, []*pb.TensorProto{f32(w, wd...)}
	case 2, 3, 4: // Conv, MaxPool, ConvTranspose
		if spatial < 1 {
			return nil, nil
		}
		var k, st, dil, pads []int64
		for i := range spatial {
			k = append(k, ri(1, 3))
			st = append(st, ri(1, 3))
			dil = append(dil, ri(1, 2))
			_ = i
		}
		for range 2 * spatial {
			pads = append(pads, ri(0, 2))
		}
		attrs := []*pb.AttributeProto{aints("kernel_shape", k...), aints("strides", st...), aints("dilations", dil...)}
		switch r.IntN(3) {
		case 0:
			attrs = append(attrs, aints("pads", pads...))
		case 1:
			attrs = append(attrs, astr("auto_pad", []string{"SAME_UPPER", "VALID", "SAME_LOWER"}[r.IntN(3)]))
		}
		w := name("w")
		switch r.IntN(3) {
		case 0:
			return []*pb.NodeProto{op("Conv", []string{x, w}, []string{out}, attrs...)},
				[]*pb.TensorProto{f32(w, append([]int64{ri(1, 4), s[1]}, k...)...)}
		case 1:
			attrs = append(attrs, aint("ceil_mode", ri(0, 1)))
			return []*pb.NodeProto{op("MaxPool", []string{x}, []string{out}, attrs...)}, nil
		}
		var opad []int64
		same := false
		for _, a := range attrs {
			same = same || a.GetName() == "auto_pad" && strings.HasPrefix(string(a.GetS()), "SAME")
		}
		for i := range spatial {
			opad = append(opad, ri(0, st[i]-1))
			if same {
				// where ONNX 1.12's inference and the operator's
				// definition agree (TestConvTransposeSame covers the rest)
				opad[i], k[i] = 0, max(k[i], st[i])
				dil[i] = 1
			}
		}
		attrs[0], attrs[2] = aints("kernel_shape", k...), aints("dilations", dil...)
		attrs = append(attrs, aints("output_padding", opad...))
		return []*pb.NodeProto{op("ConvTranspose", []string{x, w}, []string{out}, attrs...)},
			[]*pb.TensorProto{f32(w, append([]int64{s[1], ri(1, 3)}, k...)...)}
	case 5:
		return []*pb.NodeProto{op("Concat", []string{x, x, x}[:2+r.IntN(2)], []string{out}, aint("axis", ax()))}, nil
	case 6: // Split with a split input
		a := r.IntN(rk)
		d := s[a]
		cut := ri(0, d)
		sp := name("split")
		return []*pb.NodeProto{op("Split", []string{x, sp}, []string{out, name("t")}, aint("axis", int64(a)))},
			[]*pb.TensorProto{i64(sp, cut, d-cut)}
	case 7, 8: // Slice with any starts, ends and steps
		a := r.IntN(rk)
		d := s[a]
		vals := []int64{-d - 3, -d, -2, -1, 0, 1, 2, d - 1, d, d + 5, 1 << 62, -(1 << 62)}
		step := []int64{1, 2, 3, -1, -2, -3, 1 << 62, -(1 << 62), 1<<63 - 1}[r.IntN(9)]
		st, en, axs, stp := name("st"), name("en"), name("ax"), name("stp")
		return []*pb.NodeProto{op("Slice", []string{x, st, en, axs, stp}, []string{out})},
			[]*pb.TensorProto{i64(st, vals[r.IntN(len(vals))]), i64(en, vals[r.IntN(len(vals))]), i64(axs, int64(a)-int64(rk)*int64(r.IntN(2))), i64(stp, step)}
	case 9:
		rep := name("rep")
		var reps []int64
		for range rk {
			reps = append(reps, ri(0, 3))
		}
		return []*pb.NodeProto{op("Tile", []string{x, rep}, []string{out})}, []*pb.TensorProto{i64(rep, reps...)}
	case 10:
		return []*pb.NodeProto{op("Flatten", []string{x}, []string{out}, aint("axis", ri(-int64(rk), int64(rk))))}, nil
	case 11: // Reshape: reversed dims, one of them -1, maybe a 0 kept
		sh := slices.Clone(s)
		slices.Reverse(sh)
		sh[r.IntN(rk)] = -1
		if sh[0] == s[0] && r.IntN(2) == 0 {
			sh[0] = 0
		}
		v := name("shape")
		return []*pb.NodeProto{op("Reshape", []string{x, v}, []string{out})}, []*pb.TensorProto{i64(v, sh...)}
	case 12:
		perm := r.Perm(rk)
		return []*pb.NodeProto{op("Transpose", []string{x}, []string{out}, aints("perm", toInt64(perm)...))}, nil
	case 13:
		p := name("pads")
		var pads []int64
		for i := range 2 * rk {
			pads = append(pads, ri(-min(s[i%rk]/2, 1), 3))
		}
		return []*pb.NodeProto{op("Pad", []string{x, p}, []string{out})}, []*pb.TensorProto{i64(p, pads...)}
	case 14:
		a := name("axes")
		return []*pb.NodeProto{op("Unsqueeze", []string{x, a}, []string{out})}, []*pb.TensorProto{i64(a, ri(-int64(rk)-1, int64(rk)))}
	case 15: // DepthToSpace or SpaceToDepth when the shape divides
		if rk != 4 {
			return nil, nil
		}
		b := ri(2, 3)
		if s[1]%(b*b) == 0 && r.IntN(2) == 0 {
			return []*pb.NodeProto{op("DepthToSpace", []string{x}, []string{out}, aint("blocksize", b), astr("mode", []string{"DCR", "CRD"}[r.IntN(2)]))}, nil
		}
		if s[2]%b == 0 && s[3]%b == 0 {
			return []*pb.NodeProto{op("SpaceToDepth", []string{x}, []string{out}, aint("blocksize", b))}, nil
		}
		return nil, nil
	case 16:
		a := name("axes")
		return []*pb.NodeProto{op("ReduceSum", []string{x, a}, []string{out}, aint("keepdims", ri(0, 1)))}, []*pb.TensorProto{i64(a, ax())}
	case 17: // Gather with indices of rank 0 to 2
		idx := name("idx")
		a := ax()
		d := s[(a+int64(rk))%int64(rk)]
		var ids []int64
		shape := [][]int64{{}, {3}, {2, 2}}[r.IntN(3)]
		n, _ := elements(shape)
		for range n {
			ids = append(ids, ri(-d, d-1))
		}
		t := i64(idx, ids...)
		t.Dims = shape
		return []*pb.NodeProto{op("Gather", []string{x, idx}, []string{out}, aint("axis", a))}, []*pb.TensorProto{t}
	default: // MatMul with a weight, or a Range
		if r.IntN(2) == 0 {
			w := name("w")
			return []*pb.NodeProto{op("MatMul", []string{x, w}, []string{out})}, []*pb.TensorProto{f32(w, s[rk-1], ri(1, 5))}
		}
		a, b, c := name("a"), name("b"), name("c")
		ta, tb, tc := i64(a, ri(-5, 5)), i64(b, ri(-20, 20)), i64(c, []int64{1, 2, 3, -1, -3}[r.IntN(5)])
		for _, t := range []*pb.TensorProto{ta, tb, tc} {
			t.Dims = nil
		}
		return []*pb.NodeProto{op("Range", []string{a, b, c}, []string{out})}, []*pb.TensorProto{ta, tb, tc}
	}
}

func astr(name, v string) *pb.AttributeProto {
	return &pb.AttributeProto{Name: proto.String(name), Type: pb.AttributeProto_STRING.Enum(), S: []byte(strings.Clone(v))}
}
