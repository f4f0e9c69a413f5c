package refine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/exact/bnb"
	"github.com/optalloc/optalloc/heuristics"
	"github.com/optalloc/optalloc/internal/brute"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/verify"
)

// longFeatureProblem is brute.LongFeatures with the pins where greedy-size
// puts them.
func longFeatureProblem(rng *rand.Rand, n int, pinned float64) *model.Problem {
	return brute.LongFeatures(rng, n, pinned, func(p *model.Problem) (*model.Plan, error) {
		plan, _, err := heuristics.Portfolio(context.Background(), p, heuristics.PortfolioOptions{Planners: []string{"greedy-size"}})
		return plan, err
	})
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
		st, err := Refine(context.Background(), p, start, lb, bnb.Options{}, Budget{Work: Work / 4, Attempts: Attempts[:4]}, func(pl *model.Plan) {
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
			st, err := Refine(context.Background(), p, start, lb, bnb.Options{}, DefaultBudget, func(pl *model.Plan) { plans[run] = pl })
			require.NoError(t, err)
			require.NotNil(t, plans[run])
			require.Empty(t, verify.Check(p, plans[run]))
			require.Equal(t, lb, plans[run].Peak(p), "seed %d: %v", seed, st)
		}
		require.Equal(t, plans[0].Placements, plans[1].Placements, "seed %d: the refinement is deterministic", seed)
	}
}

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
