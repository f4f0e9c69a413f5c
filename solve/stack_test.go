package solve

import (
	"context"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/formats"
	"github.com/optalloc/optalloc/internal/brute"
	"github.com/optalloc/optalloc/verify"
)

// TestSolveStackAfterRefine: the peak stack runs only when the refinement
// leaves a gap: on a chain of 5 000 ops, which the refinement brings to
// max-live ahead of the race, it does not run.
func TestSolveStackAfterRefine(t *testing.T) {
	p := brute.Chain(rand.New(rand.NewPCG(2, 1)), 5000)
	res, err := Solve(context.Background(), p, Options{Work: DefaultWork, NoBnB: true, NoSAT: true})
	require.NoError(t, err)
	require.Empty(t, verify.Check(p, res.Plan))
	assert.Equal(t, Optimal, res.Status)
	require.Contains(t, res.Stats.Engines, "refine")
	assert.NotContains(t, res.Stats.Engines["refine"], "stack")
	assert.NotContains(t, res.Method, "stack")
}

// TestSolveStackPanGu: PanGu-α 2.6B (shared benchmarks), where every
// planner stopped 0.758% above max-live and the refinement's windows are
// too dense to search, is proven optimal through the peak stack; with
// NoStack it is not, and the stack does not run. The solve is bounded by
// work (Options.Work), so the answer is the same on any machine.
func TestSolveStackPanGu(t *testing.T) {
	const file = "../../shared/benchmarks/traces/mindspore-pangu_2.6B.csv"
	if _, err := os.Stat(file); err != nil {
		t.Skip("shared benchmarks absent: ", file)
	}
	p, err := formats.Load(file)
	require.NoError(t, err)
	ml := p.ComputeSweep().MaxLive
	for _, c := range []struct {
		name    string
		noStack bool
	}{{"on", false}, {"switched off", true}} {
		t.Run(c.name, func(t *testing.T) {
			// A work budget, not wall time: with a 20 s limit the test
			// failed on a loaded 2-core machine (issue 42 item 6).
			res, err := Solve(context.Background(), p, Options{Work: DefaultWork, NoStack: c.noStack})
			require.NoError(t, err)
			require.Empty(t, verify.Check(p, res.Plan))
			require.Contains(t, res.Stats.Engines, "refine")
			st := res.Stats.Engines["refine"].(map[string]any)
			if c.noStack {
				assert.Greater(t, res.Peak, ml)
				assert.NotContains(t, st, "stack")
				assert.NotContains(t, res.Method, "stack")
				return
			}
			assert.Equal(t, Optimal, res.Status)
			assert.Equal(t, ml, res.Peak)
			assert.Equal(t, "stack", res.Method)
			require.Contains(t, st, "stack")
			assert.Equal(t, 1, st["stack"].(map[string]any)["lowered"])
		})
	}
}
