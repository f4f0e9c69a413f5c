package onnx

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	pb "github.com/optalloc/optalloc/formats/onnx/internal/onnxpb"
	"github.com/optalloc/optalloc/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"
)

// hostile is the folder of crafted files of issue 36 (../shared/hostile,
// beside the repository).
const hostile = "../../../shared/hostile/onnx"

// TestHostileShapes: the crafted models of issue 36 (D3, D4, D5, D15)
// either plan every tensor at ONNX's size or give one InputError naming
// the tensor and its node; none panics, wraps a size or allocates
// without bound.
func TestHostileShapes(t *testing.T) {
	if _, err := os.Stat(hostile); err != nil {
		t.Skipf("hostile inputs not found at %s", hostile)
	}
	for _, tc := range []struct {
		file string
		dims map[string]int64
		want string // the error; "" when the model plans
		size map[string]int64
	}{
		{"dims65.onnx", nil, "", map[string]int64{"y": 4000, "z": 4000}},
		{"input_noshape.onnx", nil, `graph input tensor "x" has no shape`, nil},
		{"lying_vi.onnx", nil, `tensor "a" (output 0 of node #0 (Relu)): the model declares shape [1], but the node gives [1000]`, nil},
		{"tile_wrap.onnx", nil, `tensor "y" (output 0 of node #0 (Tile)): dimension 0 (4294967296) × repeats 4294967296 overflows int64`, nil},
		{"concat_wrap.onnx", nil, `tensor "y" (output 0 of node #0 (Concat)): the concatenated dimension 0 overflows int64`, nil},
		{"convT_wrap.onnx", nil, `tensor "y" (output 0 of node #0 (ConvTranspose)): the output size 4611686018427387904×(5-1)+0+(1-1)×1+1 overflows int64`, nil},
		{"pool_dil_wrap.onnx", nil, `tensor "y" (output 0 of node #0 (MaxPool)): the dilated kernel (4294967297-1)×4294967296+1 overflows int64`, nil},
		{"d2s_div0.onnx", nil, `tensor "y" (output 0 of node #0 (DepthToSpace)): blocksize² (4294967296²) overflows int64`, nil},
		{"d2s_odd.onnx", nil, `the channels (4) are not a multiple of blocksize² (4611686022722355201)`, nil},
		{"s2d_big.onnx", nil, `tensor "y" (output 0 of node #0 (SpaceToDepth)): blocksize² (4294967296²) overflows int64`, nil},
		{"slice_maxstep.onnx", nil, "", map[string]int64{"y": 4}},
		{"flatten_ovf.onnx", nil, `tensor "f" (output 0 of node #0 (Flatten)): flattening [1099511627776 1099511627776] at axis 0 overflows int64`, nil},
		{"range_max.onnx", nil, `tensor "r" (output 0 of node #0 (Range)): its shape [9223372036854775807] of int64 has more bytes than int64 holds`, nil},
		{"range_nan.onnx", nil, `tensor "r" (output 0 of node #0 (Range)): Range's length is NaN`, nil},
		{"range_dim.onnx", map[string]int64{"n": 1<<63 - 1}, `tensor "r" (output 0 of node #0 (Range)): 9223372036854775807 elements of int64 overflow`, nil},
		{"split_2e8.onnx", nil, `num_outputs is 200000000, but the node has 2 outputs`, nil},
		{"split_huge.onnx", nil, `num_outputs is 1099511627776, but the node has 2 outputs`, nil},
		{"id_latin1.onnx", nil, `tensor "caf\xe9" (output 0 of node #0 (Relu)): its name is not valid UTF-8`, nil},
		{"sum_overflow.onnx", nil, `tensor "z": the sizes of the tensors up to this one add up to more than 2^63-1 bytes`, nil},
	} {
		t.Run(tc.file, func(t *testing.T) {
			path := filepath.Join(hostile, tc.file)
			a, err := LoadFile(path, Options{Dims: tc.dims})
			if tc.want != "" {
				require.Error(t, err)
				assert.IsType(t, &model.InputError{}, err)
				assert.Contains(t, err.Error(), path+": ")
				assert.Contains(t, err.Error(), tc.want)
				return
			}
			require.NoError(t, err)
			got := map[string]int64{}
			for _, b := range a.Problem.Buffers {
				got[b.ID] = b.Size
			}
			for id, size := range tc.size {
				assert.Equal(t, size, got[id], id)
			}
		})
	}
}

// TestConvTransposeSame: with auto_pad SAME, ONNX 1.12's shape inference
// (pads of max(kernel-stride, 0) in all) and the operator's definition,
// which ONNX Runtime follows (input × stride), differ; the larger is
// planned.
func TestConvTransposeSame(t *testing.T) {
	for _, tc := range []struct {
		in, k, s, dil, opad, want int64
	}{
		{5, 1, 3, 1, 1, 15}, // ONNX: 3×4+1+1 = 14; definition 15
		{4, 3, 2, 1, 1, 9},  // ONNX: 2×3+1+3-1 = 9; definition 8
		{6, 3, 2, 1, 0, 12}, // both 12
		{4, 2, 3, 1, 0, 12}, // ONNX: 3×3+2 = 11; definition 12
	} {
		g := &pb.GraphProto{
			Name: proto.String("ct"),
			Node: []*pb.NodeProto{op("ConvTranspose", []string{"x", "w"}, []string{"y"}, aints("kernel_shape", tc.k),
				aints("strides", tc.s), aints("dilations", tc.dil), aints("output_padding", tc.opad), astr("auto_pad", "SAME_UPPER"))},
			Initializer: []*pb.TensorProto{f32("w", 1, 1, tc.k)},
			Input:       []*pb.ValueInfoProto{tinfo("x", TypeFloat, 1, 1, int(tc.in))},
			Output:      []*pb.ValueInfoProto{untyped("y", TypeFloat)},
		}
		a, err := arenaOf(t, g, nil)
		require.NoError(t, err)
		assert.Equal(t, 4*tc.want, a.Problem.Buffers[1].Size, "%+v", tc)
	}
}

// TestIdentityChainIsOneViewChain: 20 000 chained Identity nodes are one
// chain of views of the first tensor, each inside the previous one (the
// chain used to be walked to its root for every view: 10^5 took 26-53 s,
// now 1.5 s for the whole bounds command).
func TestIdentityChainIsOneViewChain(t *testing.T) {
	const n = 20000
	g := &pb.GraphProto{Name: proto.String("ids"), Input: []*pb.ValueInfoProto{tinfo("x", TypeFloat, 16)},
		Node: []*pb.NodeProto{op("Relu", []string{"x"}, []string{"t0"})}}
	for i := 1; i < n; i++ {
		g.Node = append(g.Node, op("Identity", []string{fmt.Sprintf("t%d", i-1)}, []string{fmt.Sprintf("t%d", i)}))
	}
	g.Output = []*pb.ValueInfoProto{untyped(fmt.Sprintf("t%d", n-1), TypeFloat)}
	a, err := arenaOf(t, g, nil)
	require.NoError(t, err)
	assert.Equal(t, n-1, a.Views)
	for i, b := range a.Problem.Buffers[2:] {
		require.NotNil(t, b.Alias)
		assert.Equal(t, fmt.Sprintf("t%d", i), b.Alias.Parent)
	}
}

// TestInferenceHeldIsBoundedByTheFile: the folded values of a chain of Neg
// on a 4 096-value constant took 32 KB per 20-byte node (10^5 nodes: about
// 3 GB); what inference holds is now bounded by the file's size.
func TestInferenceHeldIsBoundedByTheFile(t *testing.T) {
	vals := make([]int64, maxValues)
	g := &pb.GraphProto{Name: proto.String("neg"), Initializer: []*pb.TensorProto{i64("c", vals...)},
		Input: []*pb.ValueInfoProto{tinfo("x", TypeFloat, 4)}, Node: []*pb.NodeProto{op("Relu", []string{"x"}, []string{"y"})}}
	prev := "c"
	for i := range 2000 {
		name := fmt.Sprintf("n%d", i)
		g.Node = append(g.Node, op("Neg", []string{prev}, []string{name}))
		prev = name
	}
	g.Output = []*pb.ValueInfoProto{untyped("y", TypeFloat)}
	_, err := arenaOf(t, g, nil)
	require.Error(t, err)
	assert.IsType(t, &model.InputError{}, err)
	assert.Contains(t, err.Error(), "the inferred shapes and values hold more than")
}

// TestFoldedShapeArithmeticIsChecked: shape values computed from constants
// (Mul, Add, Sub, Div, Neg) that overflow are not folded, so the shape
// they feed is an error instead of a wrapped size (Expand to 2^32 × 2^32
// used to be 0 elements).
func TestFoldedShapeArithmeticIsChecked(t *testing.T) {
	for _, tc := range []struct {
		op   string
		a, b int64
	}{{"Mul", 1 << 32, 1 << 32}, {"Add", 1<<63 - 1, 1}, {"Sub", -(1 << 62), 1<<63 - 1}, {"Div", -1 << 63, -1}} {
		g := &pb.GraphProto{Name: proto.String("fold"),
			Node:        []*pb.NodeProto{op(tc.op, []string{"a", "b"}, []string{"s"}), op("Expand", []string{"x", "s"}, []string{"y"})},
			Initializer: []*pb.TensorProto{i64("a", tc.a), i64("b", tc.b)},
			Input:       []*pb.ValueInfoProto{tinfo("x", TypeFloat, 1)},
			Output:      []*pb.ValueInfoProto{untyped("y", TypeFloat)}}
		_, err := arenaOf(t, g, nil)
		require.Error(t, err, tc.op)
		assert.Contains(t, err.Error(), `tensor "y" (output 0 of node "y_op" (Expand)): its shape is unknown: its shape (input "s") is not a constant`, tc.op)
	}
}

// TestDeclaredShapeOfAWeightIsNotChecked: a value_info contradicting the
// inferred shape is an error for an arena tensor (lying_vi), but a folded
// constant is not planned, so its inferred shape is kept.
func TestDeclaredShapeOfAWeightIsNotChecked(t *testing.T) {
	g := &pb.GraphProto{Name: proto.String("w"),
		Node:        []*pb.NodeProto{op("Neg", []string{"c"}, []string{"n"}), op("Add", []string{"x", "n"}, []string{"y"})},
		Initializer: []*pb.TensorProto{f32("c", 4)},
		Input:       []*pb.ValueInfoProto{tinfo("x", TypeFloat, 4)},
		Output:      []*pb.ValueInfoProto{untyped("y", TypeFloat)},
		ValueInfo:   []*pb.ValueInfoProto{tinfo("n", TypeFloat, 2)}}
	a, err := arenaOf(t, g, nil)
	require.NoError(t, err)
	assert.Equal(t, int64(16), a.Problem.Buffers[1].Size)
}
