package solve

import (
	"context"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/exact/bnb"
	"github.com/optalloc/optalloc/formats"
	"github.com/optalloc/optalloc/heuristics"
	"github.com/optalloc/optalloc/internal/brute"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/refine"
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
	assert.NotContains(t, res.Stats.Engines, "stack", "the refinement's windows are not too dense: no early stack")
	assert.NotContains(t, res.Method, "stack")
}

// panguFile is PanGu-α 2.6B in the shared benchmarks.
const panguFile = "../../shared/benchmarks/traces/mindspore-pangu_2.6B.csv"

// loadPanGu loads panguFile, or skips the test when it is absent.
func loadPanGu(t *testing.T) *model.Problem {
	t.Helper()
	if _, err := os.Stat(panguFile); err != nil {
		t.Skip("shared benchmarks absent: ", panguFile)
	}
	p, err := formats.Load(panguFile)
	require.NoError(t, err)
	return p
}

// TestSolveStackPanGu: PanGu-α 2.6B (shared benchmarks), where every
// planner stopped 0.758% above max-live and the refinement's windows are
// too dense to search, is proven optimal through the peak stack, run first
// (earlyStackStage): the heuristic portfolio never runs, since the stack's
// plan is at the bound. With NoStack it is not proven, and the stack does
// not run. The solve is bounded by work (Options.Work), so the answer is
// the same on any machine.
func TestSolveStackPanGu(t *testing.T) {
	p := loadPanGu(t)
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
			if c.noStack {
				require.Contains(t, res.Stats.Engines, "refine")
				assert.Greater(t, res.Peak, ml)
				assert.NotContains(t, res.Stats.Engines["refine"], "stack")
				assert.NotContains(t, res.Stats.Engines, "stack")
				assert.NotContains(t, res.Method, "stack")
				return
			}
			assert.Equal(t, Optimal, res.Status)
			assert.Equal(t, ml, res.Peak)
			assert.Equal(t, "stack", res.Method)
			require.Contains(t, res.Stats.Engines, "stack")
			st := res.Stats.Engines["stack"].(map[string]any)
			assert.Equal(t, 2, st["windows"], "the second window reaches max-live")
			assert.Equal(t, ml, st["peak"])
			assert.NotContains(t, res.Stats.PhaseMillis, "heuristics", "the stack came first and closed the gap")
			assert.NotContains(t, res.Stats.Engines, "refine", "nothing runs after the bound")
		})
	}
}

// TestStackFirstFromAnyStart: on PanGu-α 2.6B the stack closes the gap
// from whichever plan the solve holds: its plans depend on the problem
// alone, and below the peak of every planner's plan it reaches max-live.
// The early stack is chosen from the pipeline's first plan (freelist's),
// whose peak the refinement finds too dense to search (refine.TooDense),
// as those of greedy-size and greedy-textbook; firstfit-peak's and
// sweep-peak's peaks lie in windows the refinement can search (there the
// stack runs after it, as before). Work-bounded (refine.Untimed), as in a
// work-budgeted solve.
func TestStackFirstFromAnyStart(t *testing.T) {
	p := loadPanGu(t)
	ml := p.ComputeSweep().MaxLive
	ctx := refine.Untimed(context.Background())
	for _, c := range []struct {
		name  string
		dense bool
	}{{"freelist", true}, {"greedy-size", true}, {"greedy-textbook", true}, {"firstfit-peak", false}, {"sweep-peak", false}} {
		name := c.name
		t.Run(name, func(t *testing.T) {
			pl, ok := heuristics.ByName(name)
			require.True(t, ok)
			start, err := pl.Plan(ctx, p)
			require.NoError(t, err)
			require.Greater(t, start.Peak(p), ml, "the start leaves a gap")
			assert.Equal(t, c.dense, refine.TooDense(p, start, refine.DefaultBudget))
			var best *model.Plan
			st, err := refine.Stack(ctx, p, ml, start.Peak(p), bnb.Options{}, refine.Work, stackPlace, func(q *model.Plan) { best = q })
			require.NoError(t, err)
			require.NotNil(t, best, "%v", st)
			require.Empty(t, verify.Check(p, best))
			assert.Equal(t, ml, best.Peak(p))
		})
	}
}
