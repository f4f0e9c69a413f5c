package solve

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/heuristics"
	"github.com/optalloc/optalloc/internal/brute"
	"github.com/optalloc/optalloc/verify"
)

// TestFirstPlanStat: the first plan's time is recorded, and every
// portfolio plan lower than those before it is reported as its planner
// ends (freelist's first with one thread, over 5 000 buffers), while the
// result is the portfolio's own choice, the same with one or two threads.
func TestFirstPlanStat(t *testing.T) {
	p := brute.Chain(rand.New(rand.NewPCG(4, 1)), 6000) // over 5 000: freelist first
	for _, method := range []string{"auto", "heuristic"} {
		t.Run(method, func(t *testing.T) {
			var phases []string
			res, err := Solve(context.Background(), p, Options{Method: method, Threads: 1,
				Progress: func(pr Progress) { phases = append(phases, pr.Phase) }})
			require.NoError(t, err)
			require.NotNil(t, res.Plan)
			require.Empty(t, verify.Check(p, res.Plan))
			assert.Greater(t, res.Stats.FirstPlanMillis, 0.0)
			assert.LessOrEqual(t, res.Stats.FirstPlanMillis, float64(res.Elapsed.Microseconds())/1000)
			require.NotEmpty(t, phases)
			assert.Equal(t, "freelist", phases[0], fmt.Sprint(phases))
			res2, err := Solve(context.Background(), p, Options{Method: method, Threads: 2})
			require.NoError(t, err)
			assert.Equal(t, res.Plan.Placements, res2.Plan.Placements)
			assert.Equal(t, res.Stats.Heuristics, res2.Stats.Heuristics)
		})
	}
}

// TestSqueakyPhase: auto and heuristic run the squeaky-wheel pass on a
// large plan above max-live; its statistics say what it did, and the
// result is never above the plan it started from.
func TestSqueakyPhase(t *testing.T) {
	p := brute.Chain(rand.New(rand.NewPCG(2, 1)), 5000)
	for _, tc := range []struct {
		method string
		off    bool
	}{{"heuristic", false}, {"heuristic", true}, {"auto", false}} {
		res, err := Solve(context.Background(), p, Options{Method: tc.method, Threads: 1, NoSqueaky: tc.off})
		require.NoError(t, err)
		require.Empty(t, verify.Check(p, res.Plan))
		if tc.off {
			assert.NotContains(t, res.Stats.Engines, "squeaky")
			continue
		}
		if tc.method == "auto" && res.Status == Optimal && res.Stats.Engines["squeaky"] == nil {
			continue // the refinement reached max-live first
		}
		require.Contains(t, res.Stats.Engines, "squeaky", tc.method)
		st := res.Stats.Engines["squeaky"].(heuristics.SqueakyStats)
		assert.LessOrEqual(t, res.Peak, st.StartPeak)
		assert.Equal(t, res.Peak <= st.Peak, true)
		assert.NotEmpty(t, st.Stopped)
	}
}

// TestFirstPlanBeforeBound: a minimisation reports its first plan before
// the lower bound is computed (lower bound 0 in the report), then the same
// plan again with the bound; a decision computes the bound first.
func TestFirstPlanBeforeBound(t *testing.T) {
	p := brute.Random(rand.New(rand.NewPCG(9, 9)), 6, brute.RandomOptions{MaxSize: 9})
	for _, capacity := range []int64{0, 1 << 40} {
		var got []Progress
		r, err := Solve(context.Background(), p, Options{Threads: 1, Capacity: capacity, Progress: func(pr Progress) { got = append(got, pr) }})
		require.NoError(t, err)
		require.NotEmpty(t, got)
		if capacity == 0 {
			require.GreaterOrEqual(t, len(got), 2)
			assert.Zero(t, got[0].LowerBound, "the first plan comes before the bound")
			assert.Equal(t, got[0].Peak, got[1].Peak)
			assert.Positive(t, got[1].LowerBound)
		} else {
			assert.Positive(t, got[0].LowerBound, "a decision's bound comes first")
		}
		assert.Equal(t, r.LowerBound, got[len(got)-1].LowerBound)
	}
}
