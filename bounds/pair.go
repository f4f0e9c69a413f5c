package bounds

import (
	"cmp"
	"context"
	"math"
	"slices"

	"github.com/optalloc/optalloc/internal/blockunion"
)

// The two-time alignment bound.
//
// A section bound (Align) looks at one time: there the unaligned bytes
// may fill every padding, so with few aligned buffers it says no more than
// max-live. Two times say more, because a buffer live at both keeps its
// offset. Take two times τ1 < τ2 and a level A (as in Align: the
// A-items are the whole items whose alignment is a multiple of A). Split
// the bytes into
//
//   - both: every piece live at τ1 and at τ2 (one piece, so one offset);
//   - X: the A-items live at τ1 but not at τ2, and Y: those live at τ2 but
//     not at τ1 (the other pieces live at only one time are left out).
//
// In a valid plan with peak H the pieces of "both" are disjoint from every
// piece live at τ1 and from every piece live at τ2, so they avoid the union
// U of the footprints of X (at τ1) and of Y (at τ2): H ≥ both + |U|, where
// the A-items of "both" are counted in "both" (they are disjoint from X and
// from Y, so they add their own bytes to the union anyway).
//
// |U| is at least the smallest union any placement of X and Y can have.
// An A-item starts at a block boundary of the A-grid and covers whole
// blocks and then a prefix of its last block; the next A-item of the same
// time starts at a block boundary again. So in every block each time
// covers a prefix, and the union of the block is the larger of the two
// prefixes: |U| = Σ_blocks max(cX, cY). blockunion.Min finds the smallest
// such sum exactly, by a search over blocks from the bottom (memoised; no
// height limit, which can only lower the minimum). Example (MiniMalloc C, every
// buffer ≥ 64 KiB aligned to 64 KiB, in 1 KiB units): at one time a
// 696-unit buffer, at the next 86, 144 and 466, and 319 units of small
// buffers live at both. 696 takes 11 blocks; the three need 13 blocks
// with partial last blocks, and the best union is 782, so H ≥ 319 + 782 =
// 1101, where max-live is 1015.
//
// The bound only grows when a time's live set grows (a piece added to
// both, to X or to Y never shrinks the union), so only the times at which
// pieces start are paired. Pairs are taken nearest first, under budgets of
// work (the constants below), so the bound stays cheap on large problems;
// a pair whose search would be too large gets the block relaxation
// (blockunion.Relaxed), and what the budgets skip only leaves the bound lower.

// Limits of the two-time bound.
const (
	pairWork   = 5_000_000 // item visits over all pairs
	pairBlocks = 256       // items of more blocks get the relaxation only
	pairStates = 50_000    // memoised states of one blockunion.Min
	pairTotal  = 250_000   // memoised states of all blockunion.Min searches
	pairTimes  = 4_000     // more start times than this: the bound is skipped
)

// pairResult is the strongest two-time bound found.
type pairResult struct {
	lb         int64
	t1, t2     int64
	level      int64
	both, cost int64 // bytes live at both times, the smallest union
}

// pairBound returns the strongest two-time bound (see above); its lb is at
// most best when no pair beats best. Piece k (items[k]) is live on [starts[k], ends[k]).
// It stops with the best pair so far when ctx ends.
func pairBound(ctx context.Context, starts, ends []int64, items []alignItem, best int64) pairResult {
	var res pairResult
	var levels []int64
	for _, it := range items {
		if it.whole && it.align > 1 && !slices.Contains(levels, it.align) {
			levels = append(levels, it.align)
		}
	}
	if len(levels) == 0 || ctx.Err() != nil {
		return res
	}
	// The start times and the pieces live just after each of them.
	times := slices.Clone(starts)
	slices.Sort(times)
	times = slices.Compact(times)
	if len(times) > pairTimes {
		return res
	}
	order := make([]int, len(items))
	for k := range order {
		order[k] = k
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(starts[a], starts[b]) })
	live := make([][]int, len(times))
	var cur []int
	next := 0
	for i, t := range times {
		for ; next < len(order) && starts[order[next]] <= t; next++ {
			cur = append(cur, order[next])
		}
		cur = slices.DeleteFunc(cur, func(k int) bool { return ends[k] <= t })
		live[i] = slices.Clone(cur)
	}
	work, states := 0, 0
	memo := blockunion.Cache{}
	res.lb = best // only a stronger bound replaces it
	var xs, ys []int64
	// rigid collects the sizes of the A-items of list that keep says.
	rigid := func(dst []int64, list []int, A int64, keep func(k int) bool) ([]int64, int64) {
		var sum int64
		for _, k := range list {
			if it := items[k]; it.whole && it.align%A == 0 && keep(k) {
				dst = append(dst, it.size)
				sum += it.size
			}
		}
		return dst, sum
	}
	for d := 1; d < len(times) && work < pairWork; d++ {
		for i := 0; i+d < len(times) && work < pairWork; i++ {
			if i%64 == 0 && ctx.Err() != nil {
				return res
			}
			j := i + d
			t1, t2 := times[i], times[j]
			var both int64
			for _, k := range live[i] {
				if ends[k] > t2 {
					both += items[k].size
				}
			}
			work += len(live[i]) + len(live[j])
			for _, A := range levels {
				var sx, sy int64
				xs, sx = rigid(xs[:0], live[i], A, func(k int) bool { return ends[k] <= t2 })
				ys, sy = rigid(ys[:0], live[j], A, func(k int) bool { return starts[k] > t1 })
				if len(xs) == 0 || len(ys) == 0 || both > math.MaxInt64/4 || sx > math.MaxInt64/4 || sy > math.MaxInt64/4 {
					continue
				}
				if both+sx+sy <= res.lb || both+blockunion.Stacked(xs, ys, A) <= res.lb {
					continue // a placement with this union exists: cannot beat the best
				}
				u, ok := int64(0), false
				if states < pairTotal && slices.Max(xs) <= pairBlocks*A && slices.Max(ys) <= pairBlocks*A {
					var n int
					u, n, ok = memo.Min(xs, ys, A, pairStates)
					states += n
				}
				if !ok {
					u = blockunion.Relaxed(xs, ys, A) // a relaxation: still a bound
				}
				if lb := both + u; lb > res.lb {
					res = pairResult{lb: lb, t1: t1, t2: t2, level: A, both: both, cost: u}
				}
			}
		}
	}
	return res
}
