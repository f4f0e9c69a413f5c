package heuristics

import (
	"cmp"
	"context"
	"errors"
	"slices"

	"github.com/optalloc/optalloc/model"
)

// Reserve (an experiment of issue 44 item 3, not registered: measured far
// worse than sweep-peak, docs/experiments.md) plans the items that live through a high-load time first, and
// then every other item by a time sweep that honours them. An item is a
// high-load one when the highest load (bytes live at one time) over its
// lifetime is at least Theta × max-live; those items form short clusters
// around the trace's high-load times, and sweep-peak plans them alone
// (each cluster from its own time of max-live, as stretches), with the
// re-pack pass of sweep-repack after it. The other items — which live only
// while the load is lower — are placed by a forward sweep as sweep-peak
// places its items (the smallest free blocks, against the held neighbour
// whose end is nearest), but a place is taken only where no high-load item
// that starts during the item's lifetime will need the bytes: the high-load
// items are reservations, taken at their starts where their plan put them.
// Pins are reservations for the whole run. Its name is "sweep-reserve".
type Reserve struct {
	// Theta is the share of max-live from which an item is a high-load one
	// (0: 0.9).
	Theta float64
	// NoRepack leaves the high-load items at sweep-peak's plan.
	NoRepack bool
}

// Name implements Planner.
func (r *Reserve) Name() string { return "sweep-reserve" }

// Plan implements Planner.
func (r *Reserve) Plan(ctx context.Context, p *model.Problem) (*model.Plan, error) {
	return perPool(ctx, p, r.plan)
}

func (r *Reserve) plan(ctx context.Context, its []item) ([]int64, error) {
	theta := r.Theta
	if theta <= 0 {
		theta = 0.9
	}
	ml := maxLive(its)
	load, _ := lifetimeLoads(its)
	off := make([]int64, len(its))
	fixed := make([]bool, len(its))
	var crit []int32
	for k := range its {
		it := &its[k]
		switch {
		case it.pin >= 0:
			off[k], fixed[k] = it.pin, true
		case it.size == 0:
			off[k] = it.up(0)
		case float64(load[k]) >= theta*float64(ml):
			crit = append(crit, int32(k))
		}
	}
	sub := make([]item, len(crit))
	for i, k := range crit {
		sub[i] = its[k]
	}
	soff, err := (&PeakSweep{}).plan(ctx, sub)
	if err != nil {
		return nil, err
	}
	if !r.NoRepack {
		repackTop(ctx, sub, soff, (&Repack{}).options(len(sub)), &RepackStats{})
	}
	for i, k := range crit {
		off[k], fixed[k] = soff[i], true
	}
	return off, fillAround(ctx, its, off, fixed)
}

// errReserved is a reserved item whose bytes were not free at its start
// (a bug: the fill must keep them free).
var errReserved = errors.New("sweep-reserve: a reserved item's bytes were taken")

// fillAround places every item with bytes that is not fixed by a forward
// sweep in which the fixed items (at off) are taken at their starts; see
// Reserve.
func fillAround(ctx context.Context, its []item, off []int64, fixed []bool) error {
	var ks, res []int32
	for k := range its {
		if its[k].size > 0 && its[k].end > its[k].start {
			ks = append(ks, int32(k))
			if fixed[k] {
				res = append(res, int32(k))
			}
		}
	}
	// the reservations by start, for the look-ahead
	resT := sortByTime(res, func(k int32) int64 { return its[k].start })
	opens := slices.Clone(ks)
	openT := sortByTime(opens, func(k int32) int64 { return its[k].start })
	// at one time: the fixed items first, then the larger
	for i := 0; i < len(opens); {
		j := i + 1
		for j < len(opens) && openT[j] == openT[i] {
			j++
		}
		if j-i > 1 {
			slices.SortStableFunc(opens[i:j], func(x, y int32) int {
				if fixed[x] != fixed[y] {
					if fixed[x] {
						return -1
					}
					return 1
				}
				return cmp.Compare(its[y].size, its[x].size)
			})
		}
		i = j
	}
	closes := slices.Clone(ks)
	closeT := sortByTime(closes, func(k int32) int64 { return its[k].end })
	a := newSweepArena(nil, defaultCandidates)
	node := make([]int32, len(its))
	var spans []span
	for i, j, x := 0, 0, 0; i < len(opens) || j < len(closes); x++ {
		if x&4095 == 4095 && ctx.Err() != nil {
			return ctx.Err()
		}
		if j < len(closes) && (i == len(opens) || closeT[j] <= openT[i]) {
			if n := node[closes[j]]; n != 0 {
				a.b.release(n, true)
			}
			j++
			continue
		}
		k := opens[i]
		i++
		it := &its[k]
		if fixed[k] {
			n := a.takeAt(off[k], it.size)
			if n == 0 {
				return errReserved
			}
			node[k] = a.held(n, it.end)
			continue
		}
		// the reservations that start during the item's lifetime
		lo, _ := slices.BinarySearch(resT, it.start+1)
		hi, _ := slices.BinarySearch(resT, it.end)
		spans = spans[:0]
		for _, r := range res[lo:hi] {
			spans = append(spans, span{off[r], off[r] + its[r].size})
		}
		slices.SortFunc(spans, func(x, y span) int { return cmp.Compare(x.lo, y.lo) })
		n := a.allocAround(it, it.end, spans)
		node[k] = n
		off[k] = a.b.ns[n].lo
	}
	return nil
}

// takeAt gives the bytes [x, x+size) to an item: they must lie in one free
// block, or at or above the free block at the top, or above the top; it
// returns the item's node, or 0 when the bytes are not free.
func (a *sweepArena) takeAt(x, size int64) int32 {
	b := &a.b
	if x >= a.top {
		b.pad(a.top, x, true)
		a.top = x + size
		return b.push(x, size, false)
	}
	for n := b.tail; n != 0; n = b.ns[n].prev {
		if b.ns[n].lo > x {
			continue
		}
		if !b.ns[n].free {
			return 0
		}
		if n == b.tail && x+size > b.hi(n) {
			a.top = x + size
			return b.extendTail(x, size)
		}
		if x+size > b.hi(n) {
			return 0
		}
		return b.take(n, x, size)
	}
	return 0
}

// gapIn returns the lowest and the highest offset in [lo, hi) (hi < 0: no
// end) at which the item fits clear of the spans (sorted by lo), and
// whether it fits at all.
func gapIn(it *item, lo, hi int64, spans []span) (low, high int64, ok bool) {
	from := lo
	try := func(to int64) {
		x := it.up(from)
		if x+it.size > to {
			return
		}
		if !ok {
			low = x
		}
		high, ok = it.down(to-it.size), true
	}
	for _, s := range spans {
		if s.hi <= from || (hi >= 0 && s.lo >= hi) {
			continue
		}
		try(s.lo)
		from = max(from, s.hi)
	}
	if hi < 0 {
		x := it.up(from)
		if !ok {
			low = x
		}
		return low, max(high, x), true
	}
	try(hi)
	return low, high, ok
}

// allocAround places it, which ends at e, as alloc does but clear of the
// spans (the bytes of the reservations that start during its lifetime):
// among the smallest free blocks that hold it, at the bottom or the top of
// the part clear of them, against the neighbour whose end is nearest its
// own; else in the lowest place clear of them at or above the free block
// at the top.
func (a *sweepArena) allocAround(it *item, e int64, spans []span) int32 {
	b := &a.b
	var best int32
	var at int64
	score := int64(-1)
	seen, scanned := 0, 0
	x := &b.idx
	for c, j := x.find(it.size, -1); c < len(x.chunks) && seen < a.cand && scanned < 8*a.cand; {
		n := x.chunks[c][j].n
		if j++; j == len(x.chunks[c]) {
			c, j = c+1, 0
		}
		scanned++
		lo, hi := b.ns[n].lo, b.hi(n)
		low, high, ok := gapIn(it, lo, hi, spans)
		if !ok {
			continue
		}
		seen++
		if low == lo && hi-lo == it.size {
			best, at = n, lo
			break
		}
		d := int64(noEnd - 1)
		if low == lo {
			d = a.distance(b.ns[n].prev, e)
		}
		if score < 0 || d < score {
			best, at, score = n, low, d
		}
		if high+it.size == hi {
			if d := a.distance(b.ns[n].next, e); d < score {
				best, at, score = n, high, d
			}
		}
	}
	if best != 0 {
		return a.held(b.take(best, at, it.size), e)
	}
	from := a.top
	if t := b.tail; t != 0 && b.ns[t].free {
		from = b.ns[t].lo
	}
	low, _, _ := gapIn(it, from, -1, spans)
	return a.held(a.takeAt(low, it.size), e)
}
