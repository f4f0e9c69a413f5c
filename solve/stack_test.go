package solve

import (
	"context"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/formats"
	"github.com/optalloc/optalloc/internal/brute"
	"github.com/optalloc/optalloc/verify"
)

// TestSolveStack: where the refinement runs ahead of the race (no exact
// engine takes the problem), the peak stack runs just before it and its
// statistics say so, unless NoStack switches it off; on a chain of 5 000
// ops it reaches max-live itself.
func TestSolveStack(t *testing.T) {
	p := brute.Chain(rand.New(rand.NewPCG(2, 1)), 5000)
	for _, c := range []struct {
		name    string
		noStack bool
	}{{"on", false}, {"switched off", true}} {
		t.Run(c.name, func(t *testing.T) {
			res, err := Solve(context.Background(), p, Options{TimeLimit: 20 * time.Second, NoBnB: true, NoSAT: true, NoStack: c.noStack})
			require.NoError(t, err)
			require.Empty(t, verify.Check(p, res.Plan))
			assert.Equal(t, Optimal, res.Status)
			if c.noStack {
				assert.NotContains(t, res.Stats.Engines, "stack")
				assert.NotContains(t, res.Method, "stack")
				return
			}
			require.Contains(t, res.Stats.Engines, "stack")
			st := res.Stats.Engines["stack"].(map[string]any)
			assert.Equal(t, 1, st["lowered"])
			assert.Equal(t, res.Peak, st["peak"])
			assert.Contains(t, res.Method, "stack")
		})
	}
}

// TestSolveStackPanGu: PanGu-α 2.6B (shared benchmarks), where every
// planner stopped 0.758% above max-live, is proven optimal through the
// peak stack.
func TestSolveStackPanGu(t *testing.T) {
	const file = "../../shared/benchmarks/traces/mindspore-pangu_2.6B.csv"
	if _, err := os.Stat(file); err != nil {
		t.Skip("shared benchmarks absent: ", file)
	}
	p, err := formats.Load(file)
	require.NoError(t, err)
	res, err := Solve(context.Background(), p, Options{TimeLimit: 30 * time.Second})
	require.NoError(t, err)
	require.Empty(t, verify.Check(p, res.Plan))
	assert.Equal(t, Optimal, res.Status)
	assert.Equal(t, p.ComputeSweep().MaxLive, res.Peak)
	assert.Equal(t, "stack", res.Method)
}
