package heuristics

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/optalloc/optalloc/model"
)

func init() {
	Register(&LNS{Seed: 1})
}

// LNS is a ruin-and-recreate improvement pass (large neighbourhood search).
// It starts from the best of the greedy orders and the skyline, then
// repeatedly picks an item that defines the peak, removes it and the items
// live during a window around it whose top lies in a band below the peak
// (the ruin), and places the removed items again, in order of decreasing
// size with random noise, first-fit or best-fit around the items that
// stayed (the recreate). The new plan is kept when the peak does not grow
// (or, annealing, with a small probability when it does); the best plan
// seen is returned. Deterministic for a given Seed; stops at max-live, at
// the iteration cap, when the work budget is spent or when ctx is done.
type LNS struct {
	Seed int64
	// Iterations caps the ruin-and-recreate rounds; 0 means 20000.
	Iterations int
	// Budget caps the work in list entries scanned by the placer; 0 means
	// 1e8 on up to 1000 items, scaled down by (1000/n)² above.
	Budget float64
	// Temp is the annealing temperature as a fraction of max-live; 0 means
	// 0.005, negative means accept only moves that do not raise the peak.
	Temp float64
	// The ruin removes the items live during the peak item's lifetime
	// widened on each side by up to Widen times its length (0 means 3)
	// whose top lies above peak × (1 − f), f drawn in [BandMin, BandMax]
	// (0 and 0 mean 0.3 and 1).
	BandMin, BandMax, Widen float64
	// StartIters are hill-climb iterations run to get the start; 0 means
	// none (only the starting orders).
	StartIters int
}

// Name implements Planner.
func (l *LNS) Name() string { return "lns" }

// WithSeed implements Seeded.
func (l *LNS) WithSeed(seed int64) Planner {
	c := *l
	c.Seed = seed
	return &c
}

// Plan implements Planner.
func (l *LNS) Plan(ctx context.Context, p *model.Problem) (*model.Plan, error) {
	return perPool(ctx, p, l.plan)
}

func (l *LNS) plan(ctx context.Context, its []item) ([]int64, error) {
	n := len(its)
	lb := max(maxLive(its), stopAt(ctx))
	budget := l.Budget
	if budget <= 0 {
		budget = scaledBudget(1e8, n)
	}
	iters := l.Iterations
	if iters <= 0 {
		iters = 20000
	}
	temp := l.Temp
	if temp == 0 {
		temp = 0.005
	}
	bmin, bmax, widen := l.BandMin, l.BandMax, l.Widen
	if bmin == 0 && bmax == 0 {
		bmin, bmax = 0.3, 1
	}
	if widen == 0 {
		widen = 3
	}
	// the start: the hill climb's starting orders
	si := l.StartIters
	if si == 0 {
		si = -1
	}
	start := &HillClimb{Iterations: si, Budget: budget / 4, Seed: l.Seed}
	off, err := start.plan(ctx, its)
	if err != nil {
		return nil, err
	}
	pc := newPlacer(its)
	perItem := 2 * pc.work() / float64(max(n, 1)) // entries scanned per item placed
	budget -= float64(n) * perItem                // what the start cost, roughly
	cur := slices.Clone(off)
	curPeak := peakOf(its, cur)
	best, bestPeak := slices.Clone(cur), curPeak
	rng := rand.New(rand.NewPCG(uint64(l.Seed), 0x2545f4914f6cdd1d))
	keep := make([]bool, n)
	var crit, removed []int32
	noise := make([]float64, n)
	for it := 0; it < iters && bestPeak > lb && budget > 0; it++ {
		if ctx.Err() != nil {
			break
		}
		crit = crit[:0]
		for k := range its {
			if its[k].pin < 0 && its[k].size > 0 && cur[k]+its[k].size == curPeak {
				crit = append(crit, int32(k))
			}
		}
		if len(crit) == 0 {
			break
		}
		c := crit[rng.IntN(len(crit))]
		// the ruin: a time window around c and a band below the peak
		span := its[c].end - its[c].start
		w0 := its[c].start - int64(widen*rng.Float64()*float64(span))
		w1 := its[c].end + int64(widen*rng.Float64()*float64(span))
		band := curPeak - int64((bmin+(bmax-bmin)*rng.Float64())*float64(curPeak))
		removed = removed[:0]
		for k := range its {
			rm := k == int(c) || (its[k].pin < 0 && its[k].size > 0 && its[k].start < w1 && w0 < its[k].end && cur[k]+its[k].size > band)
			keep[k] = !rm
			if rm {
				removed = append(removed, int32(k))
				noise[k] = float64(its[k].size) * (1 + 0.3*rng.Float64())
			}
		}
		slices.SortFunc(removed, func(a, b int32) int {
			if noise[a] != noise[b] {
				if noise[a] > noise[b] {
					return -1
				}
				return 1
			}
			return int(a - b)
		})
		budget -= perItem * float64(len(removed))
		peak, err := pc.runFrom(ctx, keep, cur, removed, rng.IntN(2) == 0)
		if err != nil {
			break
		}
		accept := peak <= curPeak
		if !accept && temp > 0 {
			T := temp * float64(lb) * math.Pow(0.01, float64(it)/float64(iters))
			accept = rng.Float64() < math.Exp(-float64(peak-curPeak)/T)
		}
		if accept {
			copy(cur, pc.off)
			curPeak = peak
			if peak < bestPeak {
				bestPeak = peak
				copy(best, cur)
			}
		}
	}
	return best, nil
}
