package onnx

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	"github.com/optalloc/optalloc/formats"
	pb "github.com/optalloc/optalloc/formats/onnx/internal/onnxpb"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/solve"
	"github.com/optalloc/optalloc/verify"
)

const silero = "../../../shared/models/onnx/silero_vad_v5.onnx"

// sileroDims fixes Silero VAD v5's inputs for one 16 kHz window: batch 1,
// 512 samples plus 64 of context, and the sample rate its If reads.
var sileroDims = map[string]int64{"input:0": 1, "input:1": 576, "state:1": 1, "sr": 16000}

func TestChainArena(t *testing.T) {
	a, err := arenaOf(t, chain(), map[string]int64{"batch": 1})
	require.NoError(t, err)
	type row struct {
		id         string
		start, end int64
		size       int64
		kind       model.Kind
		parent     string
	}
	var got []row
	for _, b := range a.Problem.Buffers {
		r := row{b.ID, b.Start, b.End, b.Size, b.Kind, ""}
		if b.Alias != nil {
			r.parent = b.Alias.Parent
			assert.Zero(t, b.Alias.Delta)
		}
		assert.Equal(t, int64(Alignment), b.Align)
		got = append(got, r)
	}
	assert.Equal(t, []row{
		{"x", 1, 3, 768, model.Input, ""},
		{"c", 2, 4, 1024, "", ""},
		{"r", 3, 5, 1024, "", ""},
		{"flat", 4, 6, 1024, "", "r"},
		{"y", 5, 6, 40, model.Output, ""},
	}, got)
	assert.Equal(t, 3, a.Weights)
	assert.Equal(t, 1, a.Views)
}

func TestDims(t *testing.T) {
	_, err := arenaOf(t, chain(), nil)
	require.Error(t, err)
	assert.IsType(t, &model.InputError{}, err)
	assert.Contains(t, err.Error(), "test.onnx: the graph inputs have dimensions without a size: batch (give each with --dim NAME=VALUE")

	a, err := arenaOf(t, chain(), map[string]int64{"batch": 4})
	require.NoError(t, err)
	assert.Equal(t, int64(4*768), a.Problem.Buffers[0].Size)

	_, err = arenaOf(t, chain(), map[string]int64{"batch": 1, "bach": 2})
	require.EqualError(t, err, `test.onnx: --dim bach: the model has no symbolic dimension "bach"`)

	g := chain()
	g.Input[0] = tinfo("x", TypeFloat, nil, 3, 8, 8)
	_, err = arenaOf(t, g, nil)
	require.ErrorContains(t, err, "without a size: x:0")
	_, err = arenaOf(t, g, map[string]int64{"x:0": 2})
	require.NoError(t, err)

	for _, tc := range []struct{ in, name string }{{"batch=1", "batch"}, {"x:0=7", "x:0"}, {"a=b=3", "a=b"}} {
		name, _, err := ParseDim(tc.in)
		require.NoError(t, err)
		assert.Equal(t, tc.name, name)
	}
	for _, bad := range []string{"batch", "=3", "b=-1", "b=x"} {
		_, _, err := ParseDim(bad)
		assert.Error(t, err, bad)
	}
}

// TestErrors: every model that cannot be planned is one InputError naming
// what is wrong.
func TestErrors(t *testing.T) {
	withNode := func(n *pb.NodeProto) *pb.GraphProto {
		g := chain()
		g.Node = append(g.Node, n)
		return g
	}
	cycle := chain()
	cycle.Node[0].Input[0] = "y"
	twice := chain()
	twice.Node[1].Output[0] = "c"
	strs := chain()
	strs.Node = append(strs.Node, op("Cast", []string{"y"}, []string{"s"}, aint("to", int64(TypeString))))
	loop := withNode(op("Loop", []string{"", "cond"}, []string{"l"}, agraph("body", &pb.GraphProto{})))
	loop.Initializer = append(loop.Initializer, &pb.TensorProto{Name: proto.String("cond"), DataType: proto.Int32(TypeBool), RawData: []byte{1}})
	for _, tc := range []struct {
		name string
		g    *pb.GraphProto
		want string
	}{
		{"unknown op", withNode(op("MyOp", []string{"y"}, []string{"z"})),
			`tensor "z" (output 0 of node "z_op" (MyOp)): its shape is unknown: operator MyOp has no shape inference here`},
		{"data-dependent", withNode(op("NonZero", []string{"y"}, []string{"z"})),
			`tensor "z" (output 0 of node "z_op" (NonZero)): its shape is unknown: NonZero's output size depends on the data`},
		{"shape not constant", withNode(op("Reshape", []string{"y", "y"}, []string{"z"})),
			`tensor "z" (output 0 of node "z_op" (Reshape)): its shape is unknown: its shape (input "y") is not a constant`},
		{"bad reshape", withNode(op("Reshape", []string{"y", "shape3"}, []string{"z"})), `reads tensor "shape3", which no node`},
		{"cycle", cycle, `the nodes form a cycle: node "c_op" (Conv) reads tensor "y", which node "y_op" (MatMul) writes after it`},
		{"written twice", twice, `tensor "c" is written by node "c_op" (Conv) and node "r_op" (Relu)`},
		{"string", strs, `tensor "s" (output 0 of node "s_op" (Cast)): element type string has no fixed size`},
		{"loop", loop, `node "l_op" (Loop): Loop bodies are not planned`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := arenaOf(t, tc.g, map[string]int64{"batch": 1})
			require.Error(t, err)
			assert.IsType(t, &model.InputError{}, err)
			assert.Contains(t, err.Error(), "test.onnx: ")
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// TestOutOfOrder: nodes listed out of execution order get a derived order.
func TestOutOfOrder(t *testing.T) {
	g := chain()
	g.Node[0], g.Node[3] = g.Node[3], g.Node[0]
	a, err := arenaOf(t, g, map[string]int64{"batch": 1})
	require.NoError(t, err)
	assert.Equal(t, 1, a.Reordered)
	want, err := arenaOf(t, chain(), map[string]int64{"batch": 1})
	require.NoError(t, err)
	assert.Equal(t, want.Problem.Buffers, a.Problem.Buffers)
}

// ifModel: x [4] -> If(cond) {then: Relu(x)+Abs, else: Neg(x)} -> y.
func ifModel(cond *pb.TensorProto, condInput bool) *pb.GraphProto {
	then := &pb.GraphProto{Name: proto.String("then"),
		Node:   []*pb.NodeProto{op("Relu", []string{"x"}, []string{"t1"}), op("Abs", []string{"t1"}, []string{"t2"})},
		Output: []*pb.ValueInfoProto{untyped("t2", TypeFloat)}}
	els := &pb.GraphProto{Name: proto.String("else"),
		Node:   []*pb.NodeProto{op("Neg", []string{"x"}, []string{"e1"})},
		Output: []*pb.ValueInfoProto{untyped("e1", TypeFloat)}}
	g := &pb.GraphProto{
		Node: []*pb.NodeProto{
			op("If", []string{"cond"}, []string{"y"}, agraph("then_branch", then), agraph("else_branch", els)),
			op("Sigmoid", []string{"y"}, []string{"z"}),
		},
		Input:  []*pb.ValueInfoProto{tinfo("x", TypeFloat, 4)},
		Output: []*pb.ValueInfoProto{untyped("z", TypeFloat)},
	}
	if condInput {
		g.Input = append(g.Input, tinfo("c", TypeBool))
		g.Node = append([]*pb.NodeProto{op("Identity", []string{"c"}, []string{"cond"})}, g.Node...)
	} else {
		g.Initializer = append(g.Initializer, cond)
	}
	return g
}

func TestIfBranches(t *testing.T) {
	lifetimes := func(a *Arena) map[string][2]int64 {
		m := map[string][2]int64{}
		for _, b := range a.Problem.Buffers {
			m[b.ID] = [2]int64{b.Start, b.End}
		}
		return m
	}
	// Unknown condition: both branches, then before else, inside the If.
	a, err := arenaOf(t, ifModel(nil, true), nil)
	require.NoError(t, err)
	assert.Equal(t, 2, a.Branches)
	// Said, so that a user can fix the condition (issue 35 item 12).
	require.Len(t, a.OpenConditions, 1)
	assert.Contains(t, a.OpenConditions[0], "its condition is not a constant, so both branches are planned")
	// Scopes: inputs 0, Identity 1, If 2, then entry 3, Relu 4, Abs 5,
	// else entry 6, Neg 7; the If's inputs and outputs are used at 7,
	// after both branches; Sigmoid 8. Buffers live over [first+1, last+2).
	assert.Equal(t, map[string][2]int64{
		"x": {1, 9}, "c": {1, 3}, "cond": {2, 9}, // captured x and the condition live across both branches
		"y":  {3, 10},              // the If's output: from the If's scope to Sigmoid's
		"t1": {5, 7}, "t2": {6, 7}, // the then branch's output is used at the branch's end
		"e1": {8, 9}, "z": {9, 10}, // the else branch runs after it: t1, t2 and e1 never meet
	}, lifetimes(a))
	// The branch outputs never meet: t2 ends before e1 starts.
	// A constant condition: only the branch taken is planned.
	cond := &pb.TensorProto{Name: proto.String("cond"), DataType: proto.Int32(TypeBool), RawData: []byte{0}}
	a, err = arenaOf(t, ifModel(cond, false), nil)
	require.NoError(t, err)
	assert.Equal(t, 1, a.Branches)
	assert.Equal(t, 1, a.Skipped)
	assert.Empty(t, a.OpenConditions)
	ids := lifetimes(a)
	assert.Contains(t, ids, "e1")
	assert.NotContains(t, ids, "t1")
}

func solveAndVerify(t *testing.T, p *model.Problem) *solve.Result {
	t.Helper()
	res, err := solve.Solve(context.Background(), p, solve.Options{TimeLimit: 3 * time.Second, Threads: 1})
	require.NoError(t, err)
	require.NotNil(t, res.Plan)
	require.Empty(t, verify.Check(p, res.Plan))
	return res
}

// TestSilero: the shared Silero VAD v5 model (nested If nodes, no
// value_info at all) plans and verifies through formats.Load's reader and
// with its dimensions fixed.
func TestSilero(t *testing.T) {
	if _, err := os.Stat(silero); err != nil {
		t.Skipf("shared ONNX model not found at %s (it sits beside the repository in CI)", silero)
	}
	_, err := formats.Load(silero)
	require.ErrorContains(t, err, "dimensions without a size: input:0, input:1, state:1")
	m, err := ReadFile(silero)
	require.NoError(t, err)
	noSR := map[string]int64{"input:0": 1, "input:1": 576, "state:1": 1}
	_, err = m.Arena(Options{Dims: noSR})
	require.ErrorContains(t, err, `node "If_0" (If): its condition is not a constant, so both branches are planned, and its else_branch fails`)
	require.ErrorContains(t, err, "fix its value with --dim sr=VALUE")
	a, err := m.Arena(Options{Dims: sileroDims})
	require.NoError(t, err)
	assert.Equal(t, 7, a.Branches)
	assert.Equal(t, 7, a.Skipped)
	assert.Positive(t, a.Views)
	res := solveAndVerify(t, a.Problem)
	assert.GreaterOrEqual(t, res.Plan.Peak(a.Problem), res.LowerBound)
	// Without constant folding the LSTM's weight shuffling is in the arena.
	nf, err := m.Arena(Options{Dims: sileroDims, NoFold: true})
	require.NoError(t, err)
	assert.Greater(t, len(nf.Problem.Buffers), len(a.Problem.Buffers))
	solveAndVerify(t, nf.Problem)
}

// TestDamagedFilesNeverPanic: every truncation and many byte flips of a
// valid model are a model or one InputError.
func TestDamagedFilesNeverPanic(t *testing.T) {
	data := encode(t, ifModel(nil, true))
	check := func(b []byte) {
		m, err := Decode(b, "bad.onnx")
		if err != nil {
			require.IsType(t, &model.InputError{}, err)
			require.True(t, strings.HasPrefix(err.Error(), "bad.onnx: "), err.Error())
			require.NotContains(t, err.Error(), "\n")
			return
		}
		if _, err := m.Arena(Options{}); err != nil {
			require.IsType(t, &model.InputError{}, err)
		}
	}
	for n := range len(data) {
		check(data[:n])
	}
	for i := range data {
		for _, x := range []byte{0xff, 0x80, 0x01} {
			b := append([]byte(nil), data...)
			b[i] ^= x
			check(b)
		}
	}
	_, err := Decode(nil, "empty.onnx")
	require.EqualError(t, err, "empty.onnx: empty file: not an ONNX model")
	_, err = Decode([]byte("garbage that is not protobuf"), "g.onnx")
	require.ErrorContains(t, err, "g.onnx: ")
	whole := encode(t, chain())
	_, err = Decode(whole[:len(whole)/2], "cut.onnx")
	require.EqualError(t, err, "cut.onnx: not an ONNX model, or truncated or corrupted: unexpected EOF")
}

// TestWeightsNotCopied: initializer and Constant data are not kept.
func TestWeightsNotCopied(t *testing.T) {
	g := chain()
	g.Node = append(g.Node, constant("k", f32("kt", 1000)), op("Add", []string{"y", "k0"}, []string{"z"}))
	g.Node[4].Output[0] = "k0"
	m, err := Decode(encode(t, g), "w.onnx")
	require.NoError(t, err)
	for _, w := range m.Graph.Initializers {
		assert.Nil(t, w.Floats, w.Name) // floats only for small tensors
	}
	assert.Equal(t, int64(4000), m.Graph.Nodes[4].Tensors["value"].Bytes)
	assert.Equal(t, []int64{0, -1}, m.Graph.Initializers[1].Ints)
}

func TestElementSizes(t *testing.T) {
	for _, tc := range []struct {
		elem  int32
		n     int64
		bytes int64
		ok    bool
	}{
		{TypeFloat, 3, 12, true}, {TypeDouble, 3, 24, true}, {TypeFloat16, 3, 6, true}, {TypeBFloat16, 3, 6, true},
		{TypeInt8, 3, 3, true}, {TypeUint8, 3, 3, true}, {TypeBool, 3, 3, true}, {TypeInt16, 3, 6, true},
		{TypeUint16, 3, 6, true}, {TypeInt32, 3, 12, true}, {TypeUint32, 3, 12, true}, {TypeInt64, 3, 24, true},
		{TypeUint64, 3, 24, true}, {TypeComplex64, 3, 24, true}, {TypeComplex128, 3, 48, true},
		{TypeFloat8E4M3FN, 3, 3, true}, {TypeFloat8E4M3FNZ, 3, 3, true}, {TypeFloat8E5M2, 3, 3, true},
		{TypeFloat8E5M2FNZ, 3, 3, true}, {TypeFloat8E8M0, 3, 3, true},
		{TypeInt4, 3, 2, true}, {TypeUint4, 4, 2, true}, {TypeFloat4E2M1, 5, 3, true},
		{TypeString, 3, 0, false}, {TypeUndefined, 3, 0, false}, {99, 3, 0, false}, {TypeInt64, 1 << 61, 0, false},
	} {
		got, ok := tensorBytes(tc.elem, tc.n)
		assert.Equal(t, tc.ok, ok, TypeName(tc.elem))
		assert.Equal(t, tc.bytes, got, TypeName(tc.elem))
	}
	g := chain()
	g.Node = append(g.Node, op("Cast", []string{"y"}, []string{"q"}, aint("to", 99)))
	_, err := arenaOf(t, g, map[string]int64{"batch": 1})
	require.ErrorContains(t, err, `tensor "q" (output 0 of node "q_op" (Cast)): element type type 99 has no fixed size`)
}

// TestMisspelledDimIsNamed (issue 35 item 12): with one --dim misspelled
// and so another missing, the error named only the missing one; it names
// the unused one too, with the likely intended name.
func TestMisspelledDimIsNamed(t *testing.T) {
	src := filepath.Join("..", "..", "..", "shared", "models", "onnx", "silero_vad_v5.onnx")
	if _, err := os.Stat(src); err != nil {
		t.Skip("the shared ONNX model is absent")
	}
	_, err := LoadFile(src, Options{Dims: map[string]int64{"input:0": 1, "inptu:1": 576, "state:1": 1, "sr": 16000}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "dimensions without a size: input:1")
	assert.Contains(t, err.Error(), "--dim inptu:1 names no dimension of the model (did you mean input:1?)")
}
