package solve

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/exact/bnb"
	"github.com/optalloc/optalloc/heuristics"
	"github.com/optalloc/optalloc/internal/brute"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/verify"
)

// longFeatureProblem is a random problem over a long schedule with
// alignments (a third with a pool alignment too), alias members, gaps and
// elastic buffers; pinned is the
// fraction of the alias roots then pinned where greedy-size puts them.
func longFeatureProblem(rng *rand.Rand, n int, pinned float64) *model.Problem {
	p := &model.Problem{Name: "long"}
	step := int64(16) // alias deltas: multiples of the pool's alignment
	if rng.IntN(3) == 0 {
		p.Pools = []model.Pool{{Name: "sram", Align: 32}}
		step = 32
	}
	aliased := map[int]bool{} // one alias per parent: two could share its bytes
	for i := 0; i < n; i++ {
		s := int64(i/4) + rng.Int64N(4)
		e := s + 1 + rng.Int64N(6)
		if rng.IntN(10) == 0 {
			e += rng.Int64N(40)
		}
		b := model.Buffer{ID: fmt.Sprint("b", i), Start: s, End: e, Size: 16 * (1 + rng.Int64N(32))}
		switch rng.IntN(10) {
		case 0:
			b.Align = 64
		case 1:
			b.Align = 128
		case 2:
			b.MaxSize, b.Kind = 2*b.Size, model.Scratch
		}
		if i == 0 || rng.IntN(10) != 0 {
			// no alias
		} else if j := max(0, i-1-rng.IntN(8)); p.Buffers[j].MaxSize == 0 && !aliased[j] {
			aliased[j] = true
			par := &p.Buffers[j]
			b.Size = 16 * (1 + rng.Int64N(par.Size/16))
			b.Alias = &model.Alias{Parent: par.ID, Delta: step * rng.Int64N((par.Size-b.Size)/step+1)}
			b.Align, b.MaxSize, b.Kind = 0, 0, ""
			b.Start, b.End = par.Start+rng.Int64N(par.End-par.Start), par.End+rng.Int64N(3)
		}
		if b.End-b.Start >= 3 && rng.IntN(10) == 0 {
			g := model.Gap{Start: b.Start + 1, End: b.Start + 2}
			if rng.IntN(2) == 0 {
				g.Window, g.Lo, g.Hi = true, 0, 16
			}
			b.Gaps = []model.Gap{g}
		}
		p.Buffers = append(p.Buffers, b)
	}
	if p.Validate() != nil {
		return nil
	}
	if pinned > 0 {
		plan, _, err := heuristics.Portfolio(context.Background(), p, heuristics.PortfolioOptions{Planners: []string{"greedy-size"}})
		if err != nil {
			return nil
		}
		for i := range p.Buffers {
			if p.Buffers[i].Alias == nil && rng.Float64() < pinned {
				off := plan.Placements[i].Offset
				p.Buffers[i].Pin = &off
			}
		}
	}
	return p
}

// TestRefineKeepsPlansValid: on 60 random long problems with alignments
// (some of the pool), alias members, gaps, elastic buffers and pins, every plan the refinement
// offers passes the verifier, keeps every pin, and is strictly lower than
// the one before; the last is the plan it ends with.
func TestRefineKeepsPlansValid(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 17))
	checked, lowered := 0, 0
	for k := 0; checked < 60 && k < 1000; k++ {
		p := longFeatureProblem(rng, 150+rng.IntN(150), []float64{0, 0.1, 0.3}[k%3])
		if p == nil {
			continue
		}
		start, _, err := heuristics.Portfolio(context.Background(), p, heuristics.PortfolioOptions{Planners: []string{"greedy-size"}})
		require.NoError(t, err)
		lb := p.ComputeSweep().MaxLive
		last := start.Peak(p)
		var plans []*model.Plan
		st, err := refine(context.Background(), p, start, lb, bnb.Options{}, refineBudget{refineWork / 4, refineAttempts[:4]}, func(pl *model.Plan) {
			require.Empty(t, verify.Check(p, pl), "instance %d", k)
			require.Less(t, pl.Peak(p), last, "instance %d", k)
			require.GreaterOrEqual(t, pl.Peak(p), lb, "instance %d", k)
			for i := range p.Buffers {
				if p.Buffers[i].Pin != nil {
					require.Equal(t, *p.Buffers[i].Pin, pl.Placements[i].Offset, "instance %d: pin of %s", k, p.Buffers[i].ID)
				}
			}
			last = pl.Peak(p)
			plans = append(plans, pl)
		})
		require.NoError(t, err)
		require.Equal(t, last, st["peak"], "instance %d", k)
		checked++
		if len(plans) > 0 {
			lowered++
		}
	}
	require.Equal(t, 60, checked)
	assert.Greater(t, lowered, checked/4, "the refinement should lower a fair share of greedy-size's plans")
	t.Logf("%d instances, lowered on %d", checked, lowered)
}

// TestRefineReachesMaxLiveOnChains: on chains of 5 000 ops greedy-size
// ends 5–9% above max-live, and the refinement brings every one down to
// max-live (so optimal), each time to the same plan.
func TestRefineReachesMaxLiveOnChains(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		p := brute.Chain(rand.New(rand.NewPCG(seed, 1)), 5000)
		start, _, err := heuristics.Portfolio(context.Background(), p, heuristics.PortfolioOptions{Planners: []string{"greedy-size"}})
		require.NoError(t, err)
		lb := p.ComputeSweep().MaxLive
		require.Greater(t, start.Peak(p), lb+lb/20, "seed %d: greedy-size should leave a gap", seed)
		var plans [2]*model.Plan
		for run := range plans {
			st, err := refine(context.Background(), p, start, lb, bnb.Options{}, defaultRefineBudget, func(pl *model.Plan) { plans[run] = pl })
			require.NoError(t, err)
			require.NotNil(t, plans[run])
			require.Empty(t, verify.Check(p, plans[run]))
			require.Equal(t, lb, plans[run].Peak(p), "seed %d: %v", seed, st)
		}
		require.Equal(t, plans[0].Placements, plans[1].Placements, "seed %d: the refinement is deterministic", seed)
	}
}

// TestSolveRefinesLargeProblems: auto on a chain of 5 000 ops is proven
// optimal (at max-live) through the refinement, which the statistics and
// the method name show, and so is a decision at max-live; --no-refine
// leaves it out.
func TestSolveRefinesLargeProblems(t *testing.T) {
	p := brute.Chain(rand.New(rand.NewPCG(2, 1)), 5000)
	res, err := Solve(context.Background(), p, Options{TimeLimit: 20 * time.Second})
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
	res, err = Solve(context.Background(), p, Options{TimeLimit: 20 * time.Second, Capacity: p.ComputeSweep().MaxLive})
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
func TestWindowPairs(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	for k := 0; k < 300; k++ {
		var bs []model.Buffer
		for range rng.IntN(30) {
			s := rng.Int64N(10)
			bs = append(bs, model.Buffer{Start: s, End: s + 1 + rng.Int64N(5)})
		}
		var want int64
		for i := range bs {
			for j := i + 1; j < len(bs); j++ {
				if bs[i].Start < bs[j].End && bs[j].Start < bs[i].End {
					want++
				}
			}
		}
		require.Equal(t, want, windowPairs(bs), "%+v", bs)
	}
}

// TestMergePins merges touching pins of one lifetime and nothing else.
func TestMergePins(t *testing.T) {
	got := mergePins([]model.Rect{
		{Start: 0, End: 5, Lo: 10, Hi: 20},
		{Start: 0, End: 5, Lo: 0, Hi: 10},
		{Start: 0, End: 5, Lo: 30, Hi: 40}, // a hole below it
		{Start: 1, End: 5, Lo: 20, Hi: 30}, // another lifetime
	})
	assert.Equal(t, []model.Rect{
		{Start: 0, End: 5, Lo: 0, Hi: 20},
		{Start: 0, End: 5, Lo: 30, Hi: 40},
		{Start: 1, End: 5, Lo: 20, Hi: 30},
	}, got)
}

// TestTopTree follows random changes against a linear scan.
func TestTopTree(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	for k := 0; k < 50; k++ {
		vals := make([]int64, 1+rng.IntN(40))
		for i := range vals {
			vals[i] = rng.Int64N(10) - 1
		}
		tr := newTopTree(vals)
		for range 100 {
			i := rng.IntN(len(vals))
			vals[i] = rng.Int64N(10) - 1
			tr.set(i, vals[i])
			high, at, below := int64(-1), -1, int64(-1)
			for j, v := range vals {
				if v > high {
					high, at = v, j
				}
			}
			for _, v := range vals {
				if v < high {
					below = max(below, v)
				}
			}
			if high < 0 {
				at = 0 // no value at all: the first leaf
			}
			gh, ga, gb := tr.top()
			require.Equal(t, [3]int64{high, int64(at), below}, [3]int64{gh, int64(ga), gb}, "%v", vals)
		}
	}
}

// TestAliveMatchesScan: the refiner's time index lists exactly the groups a
// scan finds alive in a window, short and long ones alike, each once.
func TestAliveMatchesScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	for k := 0; k < 40; k++ {
		p := &model.Problem{}
		for i := range 300 {
			s := rng.Int64N(400)
			life := 1 + rng.Int64N(8)
			if rng.IntN(8) == 0 {
				life += rng.Int64N(300) // longer than shortSpan times
			}
			p.Buffers = append(p.Buffers, model.Buffer{ID: fmt.Sprint(i), Start: s, End: s + life, Size: 1 + rng.Int64N(9)})
		}
		r := newRefiner(p, model.NewPlan(p), bnb.Options{})
		for range 50 {
			a := rng.IntN(len(r.times) - 1)
			b := a + 1 + rng.IntN(len(r.times)-1-a)
			var got, want []int32
			r.alive(a, b, func(g int32) { got = append(got, g) })
			for g := range r.group {
				if r.group[g].Start < r.times[b] && r.group[g].End > r.times[a] {
					want = append(want, int32(g))
				}
			}
			slices.Sort(got)
			require.Equal(t, want, got, "window [%d, %d)", a, b)
		}
	}
}

// TestWindowHoldsThePeak: a window holds its group, every movable group at
// the peak it meets, and at least k movable groups unless it is the whole
// schedule. In half the cases a chain buffer S and a long buffer L that
// starts as S ends are lifted to share the peak, so that L crosses any
// small window around S.
func TestWindowHoldsThePeak(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	for n := range 30 {
		p := brute.Chain(rng, 400+rng.IntN(400))
		s := rng.IntN(300)
		long := model.Buffer{ID: "L", Start: p.Buffers[s].End, End: p.Buffers[s].End + 200, Size: 2048}
		if n%2 == 0 {
			p.Buffers = append(p.Buffers, long)
		}
		plan, _, err := heuristics.Portfolio(context.Background(), p, heuristics.PortfolioOptions{Planners: []string{"greedy-size"}})
		require.NoError(t, err)
		if n%2 == 0 {
			top := plan.Peak(p) + max(p.Buffers[s].Size, long.Size)
			plan.Placements[s].Offset = top - p.Buffers[s].Size
			plan.Placements[len(p.Buffers)-1].Offset = top - long.Size
			require.Empty(t, verify.Check(p, plan))
		}
		r := newRefiner(p, plan, bnb.Options{})
		peak, c, _ := r.peak()
		for _, k := range []int{10, 96, 5000} {
			a, b := r.window(c, peak, k)
			t0, t1 := r.times[a], r.times[b]
			require.LessOrEqual(t, t0, r.group[c].Start)
			require.GreaterOrEqual(t, t1, r.group[c].End)
			inside := 0
			for g := range r.group {
				gr := &r.group[g]
				in := gr.Start >= t0 && gr.End <= t1
				if in && r.movable[g] {
					inside++
				}
				if r.off[g]+r.top[g] == peak && r.movable[g] && gr.Start < t1 && gr.End > t0 {
					require.True(t, in, "group %d at the peak crosses the window", g)
				}
			}
			if a > 0 || b < len(r.times)-1 {
				require.GreaterOrEqual(t, inside, k)
			}
		}
	}
}

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
			for _, e := range s.raceEngines(&race{s: s}, 0) {
				names = append(names, e.name)
			}
			if c.inRace {
				require.NotEmpty(t, names)
				assert.Equal(t, "refine", names[0], "%v", names)
			} else {
				assert.NotContains(t, names, "refine")
			}
			assert.Equal(t, c.declined, s.refineApplies() && !s.exactTakes(), "runs ahead of the race")
			if c.declined {
				// The engines that would decline stay out of the race, and
				// why shows in the statistics.
				assert.NotContains(t, names, "bnb")
				assert.Contains(t, s.res.Stats.Engines["bnb_declined"], "budget of 100")
			}
		})
	}
}
