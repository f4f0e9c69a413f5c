package multi

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/bounds"
	"github.com/optalloc/optalloc/formats/graph"
	"github.com/optalloc/optalloc/formats/tflite"
)

// randGraph is a random model as .graph.json tensors and ops: a chain of
// ADD and RELU ops (each reads the tensor before it, an ADD also an
// earlier one), INT8 tensors of random sizes, no weights.
func randGraph(rng *rand.Rand) (tensors, ops []map[string]any) {
	n := 2 + rng.IntN(7)
	for i := range n {
		t := map[string]any{"name": fmt.Sprintf("x%d", i), "shape": []int{1, 16 * (1 + rng.IntN(10))}, "dtype": "int8"}
		switch i {
		case 0:
			t["kind"] = "input"
		case n - 1:
			t["kind"] = "output"
		}
		tensors = append(tensors, t)
		if i == 0 {
			continue
		}
		in := []string{fmt.Sprintf("x%d", i-1)}
		typ := "relu"
		if i > 1 && rng.IntN(2) == 0 {
			typ = "add"
			in = append(in, fmt.Sprintf("x%d", rng.IntN(i-1)))
		}
		ops = append(ops, map[string]any{"name": fmt.Sprintf("op%d", i), "type": typ, "inputs": in, "outputs": []string{fmt.Sprintf("x%d", i)}})
	}
	return tensors, ops
}

// TestGraphJSONSamePeak: random models combined from their .tflite files
// (multi.Combine on TFLite Micro's arenas) and the same models in one
// multi-model .graph.json with the same schedule give the same optimal
// peak and the same max-live bound.
func TestGraphJSONSamePeak(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 43))
	for trial := range 40 {
		n := 2 + rng.IntN(3)
		var models []Model
		var gms []map[string]any
		names := make([]string, n)
		for k := range n {
			names[k] = fmt.Sprintf("m%d", k)
			ts, ops := randGraph(rng)
			one, err := json.Marshal(map[string]any{"alignment": 16, "tensors": ts, "ops": ops})
			require.NoError(t, err)
			g, err := graph.Decode(strings.NewReader(string(one)), names[k]+".graph.json")
			require.NoError(t, err)
			data, err := tflite.FromGraph(g, tflite.GraphOptions{Int8: true})
			require.NoError(t, err)
			m, err := tflite.Decode(data, names[k]+".tflite")
			require.NoError(t, err)
			a, err := m.Arena()
			require.NoError(t, err)
			require.Empty(t, a.Scratch, "ADD and RELU request no scratch")
			models = append(models, FromTFLite(names[k], m, a))
			gms = append(gms, map[string]any{"name": names[k], "tensors": ts, "ops": ops})
		}
		var sched Schedule
		var gs any
		switch rng.IntN(3) {
		case 0:
			sched, gs = Serial(n), "serial"
		case 1:
			sched, gs = Concurrent(n), "concurrent"
		default: // the first model alone, then the rest together
			rest := make([]int, 0, n-1)
			for k := 1; k < n; k++ {
				rest = append(rest, k)
			}
			sched, gs = Schedule{Stages: [][]int{{0}, rest}}, [][]string{{names[0]}, names[1:]}
		}
		c, err := Combine(models, sched, Options{})
		require.NoError(t, err)
		doc, err := json.Marshal(map[string]any{"alignment": 16, "schedule": gs, "models": gms})
		require.NoError(t, err)
		gp, _, err := graph.Read(strings.NewReader(string(doc)), "all.graph.json")
		require.NoError(t, err)
		require.Len(t, c.Problem.Buffers, len(gp.Buffers), "trial %d", trial)
		assert.Equal(t, bounds.MaxLive(gp), bounds.MaxLive(c.Problem), "trial %d: max-live", trial)
		want, st1 := solvePeak(t, gp)
		got, st2 := solvePeak(t, c.Problem)
		require.Equal(t, "optimal optimal", string(st1)+" "+string(st2), "trial %d", trial)
		assert.Equal(t, want, got, "trial %d: schedule %v", trial, gs)
	}
}
