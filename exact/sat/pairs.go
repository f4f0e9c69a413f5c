package sat

import (
	"cmp"
	"context"
	"slices"
)

// Pairs of items alive together. The encoding needs a clause group for
// every pair of items whose pieces share a time; comparing every pair costs
// n²/2 (a chain of 100 000 ops: 5 billion comparisons, a minute, for a
// problem whose encoding has 100 000 pairs). A sweep over time (start, end
// are the hull of an item's pieces) finds the pairs whose hulls meet, a
// superset of the conflicting ones, in their number plus n log n.

// stopEvery: the sweeps look at the context once per this many steps.
const stopEvery = 1 << 12

// sweepPairs calls fn(i, j), i < j, for every pair of items of positive
// size whose hulls [start, end) intersect, in no particular order. It
// stops, returning false, when fn returns false or ctx ends.
func sweepPairs(ctx context.Context, items []item, fn func(i, j int) bool) bool {
	order := make([]int, 0, len(items))
	for i := range items {
		if items[i].size > 0 {
			order = append(order, i)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(items[a].start, items[b].start) })
	var active []int
	steps := 0
	for _, i := range order {
		start := items[i].start
		active = slices.DeleteFunc(active, func(j int) bool { return items[j].end <= start })
		steps += len(active) + 1
		if steps >= stopEvery {
			steps = 0
			if ctx.Err() != nil {
				return false
			}
		}
		for _, j := range active {
			if items[j].start >= items[i].end {
				continue // i's lifetime is empty
			}
			if !fn(min(i, j), max(i, j)) {
				return false
			}
		}
		active = append(active, i)
	}
	return ctx.Err() == nil
}

// directPairs: up to this many items, orderedPairs compares every pair
// (cheaper than sorting what the sweep finds on small dense problems).
const directPairs = 4096

// orderedPairs returns, for every item i, the items j > i whose hulls meet
// its own (both of positive size), in increasing order, so that whatever
// is built from the pairs is numbered as a loop over all pairs i < j would
// number it; ok is false when ctx ended first.
func orderedPairs(ctx context.Context, items []item) (after [][]int32, ok bool) {
	after = make([][]int32, len(items))
	if len(items) <= directPairs {
		for i := range items {
			if i%64 == 0 && ctx.Err() != nil {
				return nil, false
			}
			a := &items[i]
			for j := i + 1; j < len(items); j++ {
				b := &items[j]
				if a.size > 0 && b.size > 0 && a.start < b.end && b.start < a.end {
					after[i] = append(after[i], int32(j))
				}
			}
		}
		return after, true
	}
	if !sweepPairs(ctx, items, func(i, j int) bool {
		after[i] = append(after[i], int32(j))
		return true
	}) {
		return nil, false
	}
	for i := range after {
		slices.Sort(after[i])
	}
	return after, true
}

// stopped is the refusal of an encoding whose preparation ctx cut short.
func stopped(ctx context.Context) string {
	return "stopped before the encoding was sized: " + context.Cause(ctx).Error()
}
