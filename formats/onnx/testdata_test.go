package onnx

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// onnxNodeTests is where Debian's libonnx-testdata installs ONNX's
// one-operator test models (apt-get install libonnx-testdata).
const onnxNodeTests = "/usr/share/libonnx-testdata/data/node"

// listed are the operators the issue names (elementwise ones stand for
// their families) plus those Silero VAD uses.
var listed = set("Add", "Sub", "Mul", "Div", "Pow", "Equal", "Less", "Greater", "Where", "Relu", "Sigmoid", "Sqrt",
	"Conv", "ConvTranspose", "Gemm", "MatMul", "MaxPool", "AveragePool", "GlobalMaxPool", "GlobalAveragePool",
	"Reshape", "Concat", "Split", "Slice", "Transpose", "Squeeze", "Unsqueeze", "Flatten", "Gather",
	"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL2", "ReduceSumSquare",
	"Softmax", "LayerNormalization", "Resize", "LSTM", "Pad", "ConstantOfShape", "Shape", "Cast", "Identity",
	"Size", "Not", "If", "Constant")

// multiNode groups the test models of several nodes (function expansions,
// PyTorch exports).
const multiNode = "(models of several nodes)"

type verdict struct{ agree, differ, fail int }

// TestShapeInferenceAgreesWithONNX: on every one-node model of ONNX's
// test data, the shapes of the graph outputs (which ONNX's reference
// declared) are inferred again from the inputs alone, small inputs
// (Reshape's shape, Slice's starts, Resize's scales: at most 64 elements)
// being given as constants from the test's input data, and compared.
func TestShapeInferenceAgreesWithONNX(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join(onnxNodeTests, "test_*"))
	for _, more := range []string{"pytorch-converted", "pytorch-operator", "simple"} {
		d, _ := filepath.Glob(filepath.Join(onnxNodeTests, "..", more, "test_*"))
		dirs = append(dirs, d...)
	}
	if len(dirs) == 0 {
		t.Skipf("ONNX's test models not found under %s (apt-get install libonnx-testdata)", onnxNodeTests)
	}
	per := map[string]*verdict{}
	var differ []string
	for _, dir := range dirs {
		op, msg, ok := compareDir(t, dir)
		if op == "" {
			continue
		}
		v := per[op]
		if v == nil {
			v = &verdict{}
			per[op] = v
		}
		switch {
		case ok:
			v.agree++
		case msg != "" && strings.HasPrefix(msg, "differ"):
			v.differ++
			differ = append(differ, filepath.Base(dir)+": "+msg)
		default:
			v.fail++
			if listed[op] || op == multiNode {
				t.Logf("%s (%s): not inferred: %s", filepath.Base(dir), op, msg)
			}
		}
	}
	ops := make([]string, 0, len(per))
	for op := range per {
		ops = append(ops, op)
	}
	sort.Strings(ops)
	var sb strings.Builder
	total := verdict{}
	for _, op := range ops {
		v := per[op]
		if !listed[op] && v.agree == 0 {
			continue
		}
		mark := ""
		if listed[op] {
			mark = " (listed)"
		}
		fmt.Fprintf(&sb, "%s%s: %d/%d agree, %d differ, %d not inferred\n", op, mark, v.agree, v.agree+v.differ+v.fail, v.differ, v.fail)
		total.agree += v.agree
		total.differ += v.differ
		total.fail += v.fail
	}
	t.Logf("per operator:\n%stotal: %d agree, %d differ, %d not inferred", sb.String(), total.agree, total.differ, total.fail)
	assert.Empty(t, differ, "inferred shapes that differ from ONNX's")
	for op := range listed {
		if v := per[op]; v != nil {
			assert.Positive(t, v.agree, op)
		}
	}
}

// compareDir infers the model of one test directory; op is "" when the
// model is not a single node.
func compareDir(t *testing.T, dir string) (op, msg string, ok bool) {
	data, err := os.ReadFile(filepath.Join(dir, "model.onnx"))
	require.NoError(t, err)
	m, err := Decode(data, dir)
	if err != nil {
		return "", "", false
	}
	g := m.Graph
	if len(g.Nodes) == 0 {
		return "", "", false
	}
	op = g.Nodes[0].OpType
	if len(g.Nodes) > 1 {
		op = multiNode
	}
	var inputs = g.Inputs[:0:0]
	for k, vi := range g.Inputs {
		raw, err := os.ReadFile(filepath.Join(dir, "test_data_set_0", fmt.Sprintf("input_%d.pb", k)))
		if err != nil {
			inputs = append(inputs, vi)
			continue
		}
		tn, err := tensor(raw)
		if n, ok := elements(tn.Dims); err == nil && ok && n <= 64 && (tn.Ints != nil || tn.Floats != nil) {
			tn.Name = vi.GetName()
			// The test data hold bfloat16 as uint16: keep the declared type.
			tn.DataType = vi.GetType().GetTensorType().GetElemType()
			g.Initializers = append(g.Initializers, tn)
			continue
		}
		inputs = append(inputs, vi)
	}
	g.Inputs = inputs
	in := newInferer(m, nil)
	in.strip = true
	if err := in.run(); err != nil {
		return op, err.Error(), false
	}
	byName := map[string]*value{}
	for _, v := range in.values {
		if v.graph == g {
			byName[v.name] = v
		}
	}
	for _, vi := range g.Outputs {
		elem, shape, known, _, err := in.declared(vi, false)
		if err != nil || !known {
			return "", "", false // ONNX declared no full shape: nothing to compare
		}
		v := byName[vi.GetName()]
		if v == nil {
			return op, "output " + vi.GetName() + " not produced", false
		}
		if !slices.Equal(v.shape, shape) || v.elem != elem {
			return op, fmt.Sprintf("differ: %s is %s %v, ONNX says %s %v", vi.GetName(), TypeName(v.elem), v.shape, TypeName(elem), shape), false
		}
	}
	return op, "", true
}
