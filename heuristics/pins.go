package heuristics

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"

	"github.com/optalloc/optalloc/model"
)

func init() {
	Register(&LowFirst{Seed: 1})
}

// LowFirst is a bottom-up planner built for pinned buffers (and good
// without them): pinned items are fixed obstacles placed first; then, at
// every step, the unplaced item whose lowest free offset (first fit among
// the placed items live at the same time) is the lowest goes there, ties
// to the longest lifetime. Holes below and between pins are filled before
// anything goes above them. Then squeaky-wheel rounds: each round targets
// a peak just below the best so far; the items that cannot be placed under
// it are put last, on top, and their priority among equals grows by a
// random factor for the next round. The best plan is returned. Stops at
// the lower bound (max-live, the top of every pin), at the round cap or
// the work budget, or when ctx is done. Deterministic for a given Seed.
// Above 6000 items in a pool it gives greedy-size's plan.
type LowFirst struct {
	Seed int64
	// Rounds caps the squeaky-wheel rounds; 0 means 100, negative none.
	Rounds int
	// Budget caps the work in list entries scanned (every first-fit
	// query counts all the entries); 0 means 3e8 on up to 1000 items,
	// scaled down by (1000/n)² above. When the first bottom-up pass alone
	// exceeds it (dense conflicts make it cubic), the plan is
	// greedy-size's.
	Budget float64
}

// Name implements Planner.
func (l *LowFirst) Name() string { return "lowfirst" }

// WithSeed implements Seeded.
func (l *LowFirst) WithSeed(seed int64) Planner {
	c := *l
	c.Seed = seed
	return &c
}

// Plan implements Planner.
func (l *LowFirst) Plan(ctx context.Context, p *model.Problem) (*model.Plan, error) {
	return perPool(ctx, p, func(ctx context.Context, its []item) ([]int64, error) {
		if len(its) > lowFirstMax {
			return (&BestFit{Order: "size"}).planItems(ctx, its, 0)
		}
		rounds := l.Rounds
		if rounds == 0 {
			rounds = 100
		}
		budget := l.Budget
		if budget <= 0 {
			budget = scaledBudget(lowFirstBudget, len(its))
		}
		pc := newPlacer(its)
		off, _, err := pc.lowSearch(ctx, lifetimeKey(its), 0, max(rounds, 0), l.Seed, budget)
		if err == errBudget {
			return (&BestFit{Order: "size"}).planItems(ctx, its, 0)
		}
		return off, err
	})
}

// lowFirstBudget is LowFirst's default work budget on up to 1000 items.
const lowFirstBudget = 3e8

// errBudget reports that lowFirst ran out of its work budget.
var errBudget = errors.New("work budget spent")

// lowFirstMax is the number of items of a pool above which LowFirst gives
// greedy-size's plan (a round scans the unplaced items at every step).
const lowFirstMax = 6000

// lifetimeKey is the default tie-break of lowFirst: longer lifetime first.
func lifetimeKey(its []item) []float64 {
	key := make([]float64, len(its))
	for k := range its {
		key[k] = float64(its[k].end - its[k].start)
	}
	return key
}

// hasPins reports whether some item with bytes is pinned.
func hasPins(its []item) bool {
	for k := range its {
		if its[k].pin >= 0 && its[k].size > 0 {
			return true
		}
	}
	return false
}

// pinFloor returns a lower bound on the peak of items: max-live, and the
// top of every pinned item.
func pinFloor(its []item) int64 {
	lb := maxLive(its)
	for k := range its {
		if its[k].pin >= 0 && its[k].size > 0 {
			lb = max(lb, its[k].pin+its[k].size)
		}
	}
	return lb
}

// lowFirst places the pinned items at their pins, then the others
// bottom-up: at every step the unplaced item whose lowest free offset
// (first fit) is the lowest goes there, ties to the larger key. Offsets
// only rise as items are placed, so an item's lowest offset is recomputed
// lazily, when it is the candidate and an item live at the same time was
// placed since. Items that would end above limit (when > 0) are left out,
// returned in over, and placed last, first fit, in that order. Every
// first-fit query costs the number of entries from *budget; errBudget when
// it runs out. It returns the peak.
func (pc *placer) lowFirst(ctx context.Context, key []float64, limit int64, over []int32, budget *float64) (int64, []int32, error) {
	perFit := float64(len(pc.its))
	if pc.eit != nil {
		perFit = float64(len(pc.eit))
	}
	its := pc.its
	n := len(its)
	pc.reset()
	var peak int64
	low := make([]int64, n)
	stamp := make([]int32, n) // step at which low[k] was computed
	var free []int32
	for k := range its {
		if its[k].pin >= 0 {
			pc.off[k] = its[k].pin
			pc.insert(k)
			if its[k].size > 0 {
				peak = max(peak, its[k].pin+its[k].size)
			}
			continue
		}
		free = append(free, int32(k))
	}
	*budget -= perFit * float64(len(free))
	for _, k := range free {
		low[k] = pc.fit(int(k), true)
	}
	placed := make([]int32, 0, n) // the item placed at each step
	over = over[:0]
	for len(free) > 0 {
		if len(placed)&63 == 63 && ctx.Err() != nil {
			return 0, over, ctx.Err()
		}
		*budget -= float64(len(free)) // the scan for the candidate
		bi := 0
		for i, k := range free[1:] {
			b := free[bi]
			if low[k] < low[b] || (low[k] == low[b] && (key[k] > key[b] || (key[k] == key[b] && k < b))) {
				bi = i + 1
			}
		}
		k := free[bi]
		stale := false
		for _, j := range placed[stamp[k]:] {
			if its[j].start < its[k].end && its[k].start < its[j].end {
				stale = true
				break
			}
		}
		stamp[k] = int32(len(placed))
		if stale {
			if *budget -= perFit; *budget < 0 {
				return 0, over, errBudget
			}
			low[k] = pc.fit(int(k), true)
			continue
		}
		free = slices.Delete(free, bi, bi+1)
		if limit > 0 && low[k]+its[k].size > limit {
			over = append(over, k)
			continue
		}
		pc.off[k] = low[k]
		pc.insert(int(k))
		if its[k].size > 0 {
			peak = max(peak, low[k]+its[k].size)
		}
		placed = append(placed, k)
	}
	for _, k := range over {
		o := pc.fit(int(k), true)
		pc.off[k] = o
		pc.insert(int(k))
		if its[k].size > 0 {
			peak = max(peak, o+its[k].size)
		}
	}
	return peak, over, nil
}

// lowSearch runs lowFirst, then up to rounds squeaky-wheel rounds: each
// targets a peak just below the best so far, and the items that missed it
// get their key multiplied by a random factor in [1, 2). It stops at stop
// or pinFloor, or when budget is spent, and returns the best offsets and
// peak (errBudget when the first pass alone spent it).
func (pc *placer) lowSearch(ctx context.Context, key0 []float64, stop int64, rounds int, seed int64, budget float64) ([]int64, int64, error) {
	its := pc.its
	key := slices.Clone(key0)
	peak, over, err := pc.lowFirst(ctx, key, 0, nil, &budget)
	if err != nil {
		return nil, 0, err
	}
	best, bestPeak := slices.Clone(pc.off), peak
	stop = max(stop, pinFloor(its))
	rng := rand.New(rand.NewPCG(uint64(seed), 0x85ebca6b))
	for r := 0; r < rounds && bestPeak > stop; r++ {
		if peak, over, err = pc.lowFirst(ctx, key, bestPeak-1, over, &budget); err != nil {
			break // ctx done or budget spent: the best so far
		}
		if peak < bestPeak {
			bestPeak = peak
			copy(best, pc.off)
		}
		for _, k := range over {
			key[k] *= 1 + rng.Float64()
		}
	}
	return best, bestPeak, nil
}
