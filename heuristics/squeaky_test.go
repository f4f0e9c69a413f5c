package heuristics_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/benchmarks"
	"github.com/optalloc/optalloc/heuristics"
	"github.com/optalloc/optalloc/internal/brute"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/verify"
)

// TestSqueakyImproveNeverHigher: from any valid plan, every reported plan
// and the result are valid and no higher than the start; the statistics
// match.
func TestSqueakyImproveNeverHigher(t *testing.T) {
	for seed := uint64(1); seed <= 40; seed++ {
		rng := rand.New(rand.NewPCG(seed, 5))
		p := brute.Random(rng, 5+rng.IntN(60), brute.RandomOptions{MaxSize: 32, Align: 0.2, Pin: 0.05})
		if p.Validate() != nil {
			continue
		}
		start, _, err := heuristics.Portfolio(context.Background(), p, heuristics.PortfolioOptions{Planners: []string{"greedy-size"}})
		if err != nil {
			continue // pins no planner can honour
		}
		last := start.Peak(p)
		plan, st, err := (&heuristics.Squeaky{}).Improve(context.Background(), p, start, func(pl *model.Plan) {
			require.Empty(t, verify.Check(p, pl), "seed %d", seed)
			require.Less(t, pl.Peak(p), last, "seed %d", seed)
			last = pl.Peak(p)
		})
		require.NoError(t, err)
		require.Empty(t, verify.Check(p, plan), "seed %d", seed)
		require.LessOrEqual(t, plan.Peak(p), start.Peak(p), "seed %d", seed)
		assert.Equal(t, plan.Peak(p), min(st.Peak, start.Peak(p)), "seed %d", seed)
		assert.NotEmpty(t, st.Stopped)
	}
}

// TestSqueakyLowersTrainingTraces: from the textbook greedy's plan of
// generated training traces, the search comes lower on some seeds.
func TestSqueakyLowersTrainingTraces(t *testing.T) {
	lowered := 0
	for _, seed := range []uint64{2, 4} {
		p := benchmarks.Training(benchmarks.TrainingOptions{Buffers: 4000, Seed: seed})
		start, err := (heuristics.Textbook{}).Plan(context.Background(), p)
		require.NoError(t, err)
		plan, st, err := (&heuristics.Squeaky{}).Improve(context.Background(), p, start, nil)
		require.NoError(t, err)
		require.Empty(t, verify.Check(p, plan))
		require.LessOrEqual(t, plan.Peak(p), start.Peak(p))
		if plan.Peak(p) < start.Peak(p) {
			lowered++
		}
		t.Logf("seed %d: %+v", seed, st)
	}
	assert.Positive(t, lowered)
}
