package onnx

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// inferWithONNX fixes Silero's input shapes, runs ONNX's own
// onnx.shape_inference.infer_shapes (with data propagation) and saves the
// model with the value_info it found.
const inferWithONNX = `
import sys, onnx
from onnx import shape_inference
m = onnx.load(sys.argv[1])
def fix(vi, dims):
    for d, v in zip(vi.type.tensor_type.shape.dim, dims):
        d.Clear(); d.dim_value = v
fix(m.graph.input[0], [1, 576]); fix(m.graph.input[1], [2, 1, 128])
onnx.save(shape_inference.infer_shapes(m, data_prop=True), sys.argv[2])
`

// TestSileroShapesAgreeWithONNX compares the shapes inferred for Silero
// VAD's tensors with those onnx.shape_inference finds, on every tensor of
// the planned branches to which ONNX gives a full shape.
func TestSileroShapesAgreeWithONNX(t *testing.T) {
	if _, err := os.Stat(silero); err != nil {
		t.Skipf("shared ONNX model not found at %s", silero)
	}
	py := "/usr/bin/python3"
	if exec.Command(py, "-c", "import onnx").Run() != nil {
		t.Skip("python3 with onnx not found (apt-get install python3-onnx)")
	}
	out := filepath.Join(t.TempDir(), "inferred.onnx")
	cmd := exec.Command(py, "-c", inferWithONNX, silero, out)
	msg, err := cmd.CombinedOutput()
	require.NoError(t, err, string(msg))
	ref, err := ReadFile(out)
	require.NoError(t, err)
	want := map[string][]int64{}
	in := &inferer{m: ref, dims: map[string]int64{}, used: map[string]bool{}}
	var walk func(g *Graph)
	walk = func(g *Graph) {
		for _, vi := range g.ValueInfo {
			if _, shape, known, _, err := in.declared(vi, false); err == nil && known {
				want[vi.GetName()] = shape
			}
		}
		for _, n := range g.Nodes {
			for _, b := range n.Graphs {
				walk(b)
			}
		}
	}
	walk(ref.Graph)

	m, err := ReadFile(silero)
	require.NoError(t, err)
	ours := newInferer(m, sileroDims)
	ours.noFold = true
	require.NoError(t, ours.run())
	agree, differ := 0, 0
	for _, v := range ours.values {
		w, ok := want[v.name]
		if !ok {
			continue
		}
		if slices.Equal(w, v.shape) {
			agree++
		} else {
			differ++
			t.Errorf("%s: ours %v, ONNX's %v", v.name, v.shape, w)
		}
	}
	t.Logf("Silero VAD: of the %d tensors of the planned branches, %d have a full shape from onnx.shape_inference: %d agree, %d differ (ONNX gives %d full shapes over all branches)",
		len(ours.values), agree+differ, agree, differ, len(want))
	assert.Positive(t, agree)
}
