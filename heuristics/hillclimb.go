package heuristics

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/optalloc/optalloc/model"
)

func init() {
	Register(&HillClimb{Seed: 1})
}

// HillClimb is an improvement pass that keeps the best (like TVM's hill
// climb over greedy orders). It starts from the best of the greedy orders
// (size, area, lifetime; best-fit and first-fit) and of the skyline's
// order, then repeatedly takes an item that defines the peak (its top is
// the peak) and moves it to a random earlier place in the order, or swaps
// it with a random item placed before it, re-places everything and keeps
// the new order when the peak does not grow (or, annealing, with a small
// probability when it does). The best plan seen is returned. It stops at
// the max-live bound, at the iteration cap, when the work budget is spent
// or when ctx is done (returning the best so far). Deterministic for a
// given Seed (the budget counts work, not time).
type HillClimb struct {
	Seed int64
	// Iterations caps the number of re-placements; 0 means 5000, negative
	// means none (only the starting orders).
	Iterations int
	// Budget caps the total work, in list entries scanned by the placer
	// (about n²/2 per re-placement); 0 means 1e8 on up to 1000 items,
	// scaled down by (1000/n)² above (one greedy run on 5 000 items).
	Budget float64
	// NoSwap disables the swap move (only moves to an earlier place).
	NoSwap bool
	// Targeted makes three moves in four put the item just before one of
	// the conflicting items placed before it (by default the earlier place
	// is uniform; measured worse on MiniMalloc A–K).
	Targeted bool
	// Excess makes a move that keeps the peak acceptable only when it does
	// not grow the excess (the sum over items of how far their top rises
	// above max-live); by default any move that does not grow the peak is
	// accepted. Measured slightly worse on MiniMalloc A–K.
	Excess bool
	// Temp makes the climb a simulated annealing: a worse order is accepted
	// with probability exp(-Δ/T), T starting at Temp × max-live and falling
	// to 1/100 of it. 0 means 0.01; negative means a plain climb.
	Temp float64
	// NoSkyline leaves the skyline's order out of the starting orders.
	NoSkyline bool
}

// Name implements Planner.
func (h *HillClimb) Name() string { return "hillclimb" }

// Plan implements Planner.
func (h *HillClimb) Plan(ctx context.Context, p *model.Problem) (*model.Plan, error) {
	return perPool(ctx, p, h.plan)
}

func (h *HillClimb) plan(ctx context.Context, its []item) ([]int64, error) {
	lb := max(maxLive(its), stopAt(ctx))
	pc := newPlacer(its)
	n := float64(len(its))
	cost := pc.work() // n²/2 + n on plain items
	budget := h.Budget
	if budget <= 0 {
		budget = scaledBudget(1e8, len(its))
	}
	temp := h.Temp
	if temp == 0 {
		temp = 0.01
	}
	iters := h.Iterations
	if iters == 0 {
		iters = 5000
	}
	// start: the best of the greedy orders
	var bestOrder []int32
	var bestOff []int64
	bestPeak, bestFF := int64(-1), false
	for _, spec := range []string{"size", "area", "lifetime"} {
		keys, _ := parseKeys(spec, its)
		order := orderBy(its, keys)
		for _, ff := range []bool{true, false} {
			if bestPeak >= 0 && budget < cost {
				break
			}
			budget -= cost
			peak, err := pc.run(ctx, order, ff)
			if err != nil {
				if bestOff != nil {
					return bestOff, nil // cancelled: the best so far
				}
				return nil, err
			}
			if bestPeak < 0 || peak < bestPeak {
				bestPeak, bestFF, bestOrder, bestOff = peak, ff, order, slices.Clone(pc.off)
			}
		}
	}
	if budget < n*n+2*cost || bestPeak <= lb || h.NoSkyline {
		// no skyline start
	} else if _, seq, err := (&Skyline{}).order(ctx, its); err == nil && seq != nil {
		budget -= n * n
		for _, ff := range []bool{true, false} {
			budget -= cost
			peak, err := pc.run(ctx, seq, ff)
			if err != nil {
				return bestOff, nil // cancelled: the best so far
			}
			if peak < bestPeak {
				bestPeak, bestFF, bestOrder, bestOff = peak, ff, seq, slices.Clone(pc.off)
			}
		}
	}
	rng := rand.New(rand.NewPCG(uint64(h.Seed), 0x9e3779b97f4a7c15))
	cur := slices.Clone(bestOrder)
	curPeak, curOff := bestPeak, slices.Clone(bestOff)
	curEx := excess(its, curOff, lb)
	pos := make([]int, len(its))
	next := make([]int32, len(cur))
	var crit, below []int32
	for it := 0; it < iters && budget >= cost && bestPeak > lb; it++ {
		if ctx.Err() != nil {
			break // keep the best so far
		}
		budget -= cost
		crit = crit[:0]
		for k := range its {
			if its[k].pin < 0 && its[k].size > 0 && curOff[k]+its[k].size == curPeak {
				crit = append(crit, int32(k))
			}
		}
		if len(crit) == 0 {
			break // only pins define the peak
		}
		for i, k := range cur {
			pos[k] = i
		}
		c := crit[rng.IntN(len(crit))]
		from := pos[c]
		if from == 0 {
			continue
		}
		to := rng.IntN(from)
		if h.Targeted && rng.IntN(4) != 0 {
			// before a random conflicting item placed earlier: one of
			// those c sits on.
			below = below[:0]
			for _, j := range cur[:from] {
				if its[j].size > 0 && its[j].start < its[c].end && its[c].start < its[j].end {
					below = append(below, j)
				}
			}
			if len(below) > 0 {
				to = pos[below[rng.IntN(len(below))]]
			}
		}
		copy(next, cur)
		if !h.NoSwap && rng.IntN(2) == 0 {
			next[from], next[to] = next[to], next[from]
		} else {
			copy(next[to+1:from+1], cur[to:from])
			next[to] = c
		}
		ff := bestFF
		peak, err := pc.run(ctx, next, ff)
		if err != nil {
			break
		}
		ex := excess(its, pc.off, lb)
		accept := peak < curPeak || (peak == curPeak && (!h.Excess || ex <= curEx))
		if !accept && temp > 0 {
			// annealing: accept a worse peak with probability
			// exp(-Δ/T), T falling geometrically to 1/100 of its start.
			T := temp * float64(lb) * math.Pow(0.01, float64(it)/float64(iters))
			d := float64(peak-curPeak) + float64(ex-curEx)/float64(len(its))
			accept = rng.Float64() < math.Exp(-d/T)
		}
		if accept {
			cur, next = next, cur
			curPeak, curEx = peak, ex
			copy(curOff, pc.off)
			if peak < bestPeak {
				bestPeak = peak
				copy(bestOff, pc.off)
			}
		}
	}
	return bestOff, nil
}

// excess is the sum over items of how far their top rises above lb.
func excess(its []item, off []int64, lb int64) int64 {
	var e int64
	for k := range its {
		if t := off[k] + its[k].size; its[k].size > 0 && t > lb {
			e += t - lb
		}
	}
	return e
}

// WithSeed implements Seeded: a copy of the planner with another seed.
func (h *HillClimb) WithSeed(seed int64) Planner {
	c := *h
	c.Seed = seed
	return &c
}
