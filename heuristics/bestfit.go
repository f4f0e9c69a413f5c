package heuristics

import (
	"context"
	"slices"
	"sort"

	"github.com/optalloc/optalloc/model"
)

func init() {
	Register(&BestFit{Order: "size"})
}

// BestFit is the greedy-by-size planner of TFLite and XLA's heap simulator:
// items are taken largest first (ties: longer lifetime, then earlier start);
// each goes into the smallest gap between already placed, time-conflicting
// items that holds it, or on top of them when no gap does. Pinned items are
// placed first, at their pins.
type BestFit struct {
	Order string
}

// Name implements Planner.
func (g *BestFit) Name() string { return "greedy-size" }

// Plan implements Planner.
func (g *BestFit) Plan(ctx context.Context, p *model.Problem) (*model.Plan, error) {
	its, of, delta := items(p)
	order := make([]int, len(its))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		x, y := &its[order[a]], &its[order[b]]
		if (x.pin >= 0) != (y.pin >= 0) {
			return x.pin >= 0
		}
		if x.size != y.size {
			return x.size > y.size
		}
		if lx, ly := x.end-x.start, y.end-y.start; lx != ly {
			return lx > ly
		}
		return x.start < y.start
	})
	offsets := make([]int64, len(its))
	var placed []int
	type span struct{ lo, hi int64 }
	var busy []span
	for n, k := range order {
		if n%1024 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		it := &its[k]
		if it.pin >= 0 {
			offsets[k] = it.pin
			placed = append(placed, k)
			continue
		}
		busy = busy[:0]
		for _, j := range placed {
			o := &its[j]
			if o.size > 0 && o.start < it.end && it.start < o.end {
				busy = append(busy, span{offsets[j], offsets[j] + o.size})
			}
		}
		slices.SortFunc(busy, func(a, b span) int { return int(min(max(a.lo-b.lo, -1), 1)) })
		best, bestGap := int64(-1), int64(-1)
		var top int64
		for _, s := range busy {
			lo := alignUp(top, it.align)
			if gap := s.lo - lo; gap >= it.size && (bestGap < 0 || gap < bestGap) {
				best, bestGap = lo, gap
			}
			top = max(top, s.hi)
		}
		if best < 0 {
			best = alignUp(top, it.align)
		}
		offsets[k] = best
		placed = append(placed, k)
	}
	return toPlan(p, offsets, of, delta), nil
}
