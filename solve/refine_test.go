package solve

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/exact/bnb"
	"github.com/optalloc/optalloc/internal/brute"
	"github.com/optalloc/optalloc/verify"
)

// TestSolveRefinesLargeProblems: auto on a chain of 5 000 ops is proven
// optimal (at max-live) through the refinement, which the statistics and
// the method name show, and so is a decision at max-live; --no-refine
// leaves it out.
func TestSolveRefinesLargeProblems(t *testing.T) {
	p := brute.Chain(rand.New(rand.NewPCG(2, 1)), 5000)
	res, err := Solve(context.Background(), p, Options{Work: DefaultWork})
	require.NoError(t, err)
	require.Equal(t, Optimal, res.Status)
	require.Empty(t, verify.Check(p, res.Plan))
	assert.Contains(t, res.Method, "refine")
	require.Contains(t, res.Stats.Engines, "refine")
	st := res.Stats.Engines["refine"].(map[string]any)
	assert.Equal(t, res.Peak, st["peak"])
	assert.Greater(t, st["lowered"], int64(0))

	// A decision at max-live: greedy-size's quick plan is above it, and
	// the refinement brings it down.
	res, err = Solve(context.Background(), p, Options{Work: DefaultWork, Capacity: p.ComputeSweep().MaxLive})
	require.NoError(t, err)
	require.Empty(t, verify.Check(p, res.Plan))
	assert.LessOrEqual(t, res.Peak, p.ComputeSweep().MaxLive)
	assert.True(t, strings.HasPrefix(res.Method, "refine"), res.Method)
	assert.Greater(t, res.Stats.Heuristics["greedy-size"], p.ComputeSweep().MaxLive)

	res, err = Solve(context.Background(), p, Options{TimeLimit: time.Second, NoRefine: true, NoBnB: true, NoSAT: true})
	require.NoError(t, err)
	assert.NotContains(t, res.Stats.Engines, "refine")
	assert.NotContains(t, res.Method, "refine")
}

// TestWindowPairs counts overlapping lifetimes as all pairs do.
// TestRefineRacesWhenExactTakes: where an exact engine takes the problem,
// the refinement is one of the race's engines (first, for the turns of one
// thread) and does not run ahead of it; where none does, it runs ahead and
// is not in the race, nor are the engines that would decline. Ahead of the race it had taken half of 10 s on a
// 5 000-buffer transformer trace that the branch-and-bound proves in 1.5 s.
func TestRefineRacesWhenExactTakes(t *testing.T) {
	p := brute.Chain(rand.New(rand.NewPCG(1, 1)), 3000)
	for _, c := range []struct {
		name     string
		opt      Options
		inRace   bool
		declined bool
	}{
		{"exact engines take it", Options{Method: "auto", Threads: 2}, true, false},
		{"one thread", Options{Method: "auto", Threads: 1}, true, false},
		{"no exact engine takes it", Options{Method: "auto", Threads: 2, NoSAT: true, BnB: bnb.Options{MaxItems: 100}}, false, true},
		{"switched off", Options{Method: "auto", Threads: 2, NoRefine: true}, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := &solver{p: p, opt: c.opt}
			s.res = s.newResult()
			s.res.LowerBound = p.ComputeSweep().MaxLive
			var names []string
			for _, e := range s.raceEngines(context.Background(), &race{s: s}, 0) {
				names = append(names, e.name)
			}
			if c.inRace {
				require.NotEmpty(t, names)
				assert.Equal(t, "refine", names[0], "%v", names)
			} else {
				assert.NotContains(t, names, "refine")
			}
			assert.Equal(t, c.declined, s.refineApplies() && !s.exactTakes(context.Background()), "runs ahead of the race")
			if c.declined {
				// The engines that would decline stay out of the race, and
				// why shows in the statistics.
				assert.NotContains(t, names, "bnb")
				assert.Contains(t, s.res.Stats.Engines["bnb_declined"], "budget of 100")
			}
		})
	}
}
