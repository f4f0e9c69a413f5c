package heuristics

import (
	"cmp"
	"context"
	"math"
	"slices"
)

// chunkCap is the largest number of entries in one chunk of the placer's
// offset-ordered list: inserting costs O(chunkCap), scanning O(n).
const chunkCap = 256

// chunk is a run of placed items of the placer's list, in offset order:
// their lifetimes as packed time ranks (start<<32 | end, compact for a
// fast scan) and their byte ranges, plus the hull of their lifetimes so
// that a chunk with no item live in the queried window is skipped whole.
type chunk struct {
	se         []uint64
	sp         []span
	minS, maxE int32
}

type span struct{ lo, hi int64 }

// placer drops items, in a given order, into the gaps left by the already
// placed items they conflict with (the TFLite/XLA heap simulator). Placed
// items sit in a list ordered by offset, cut into chunks so that inserting
// is cheap; placing an item scans the list once: O(n) per item, no
// conflict graph (which is quadratic in memory on traces with many
// long-lived tensors).
//
// The list holds entries: a plain item is one entry (its rectangle), an
// item with an exact footprint (alias group, gapped buffer) one entry per
// rectangle of its footprint. Plain items are placed on the fast path
// (one pass over the entries, as before); the others by fitCompound.
type placer struct {
	its    []item
	rs, re []int32 // time ranks of every item (hull of its footprint)
	off    []int64
	placed []bool
	chunks []*chunk
	// Entries, when some item has an exact footprint (nil otherwise: entry
	// k is item k): item k owns entries first[k] ≤ x < first[k+1].
	first    []int32
	es, ee   []int32 // time ranks of every entry
	elo, ehi []int64 // bytes relative to the item's offset
	eit      []int32 // entry → item
	comp     []*compound
	// tree replaces the chunk scan when conflicts are sparse.
	tree *itree
	// gt replaces the chunk scan in first-fit runs of plain items (see
	// resetFor); useGT says the current run keeps its entries there.
	gt    *gapTree
	useGT bool
	found []int32
	spans []span
	forb  []span
}

// compound is the footprint of an item that is not a plain rectangle, in
// byte classes: the rectangles sharing [lo, hi), sorted by start, with the
// running maximum of their ends (so that "does a rectangle of the class
// meet this time window" is a binary search and a short backward scan).
type compound struct {
	cls []class
}

type class struct {
	lo, hi int64
	s, e   []int32
	pmax   []int32
	last   span // the forbidden interval added last (deduplication)
}

// meets reports whether a rectangle of the class is live during [xs, xe).
func (c *class) meets(xs, xe int32) bool {
	i, _ := slices.BinarySearch(c.s, xe) // rectangles with s < xe
	for j := i - 1; j >= 0 && c.pmax[j] > xs; j-- {
		if c.e[j] > xs {
			return true
		}
	}
	return false
}

func newPlacer(its []item) *placer {
	pc := &placer{its: its, off: make([]int64, len(its)), placed: make([]bool, len(its))}
	plain := true
	for k := range its {
		if its[k].fp != nil {
			plain = false
			break
		}
	}
	if plain {
		pc.rs, pc.re = timeRanks(its)
		if useTree(pc.rs, pc.re, func(x int) bool { return its[x].size > 0 }) {
			pc.tree = newITree(pc.rs, pc.re)
		}
		return pc
	}
	pc.entryRanks()
	if useTree(pc.es, pc.ee, func(x int) bool { return pc.ehi[x] > pc.elo[x] }) {
		pc.tree = newITree(pc.es, pc.ee)
	}
	return pc
}

// entryRanks builds the entries of every item and compresses their times
// (and the items' hulls) to ranks.
func (pc *placer) entryRanks() {
	its := pc.its
	var all []rect
	pc.first = make([]int32, len(its)+1)
	for k := range its {
		pc.first[k] = int32(len(all))
		for _, r := range its[k].entries() {
			all = append(all, r)
			pc.eit = append(pc.eit, int32(k))
		}
	}
	pc.first[len(its)] = int32(len(all))
	ts := make([]int64, 0, 2*(len(all)+len(its)))
	for k := range its {
		ts = append(ts, its[k].start, its[k].end)
	}
	for _, r := range all {
		ts = append(ts, r.start, r.end)
	}
	slices.Sort(ts)
	ts = slices.Compact(ts)
	rank := func(t int64) int32 {
		x, _ := slices.BinarySearch(ts, t)
		return int32(x)
	}
	n := len(all)
	pc.es, pc.ee = make([]int32, n), make([]int32, n)
	pc.elo, pc.ehi = make([]int64, n), make([]int64, n)
	for x, r := range all {
		pc.es[x], pc.ee[x], pc.elo[x], pc.ehi[x] = rank(r.start), rank(r.end), r.lo, r.hi
	}
	pc.rs, pc.re = make([]int32, len(its)), make([]int32, len(its))
	pc.comp = make([]*compound, len(its))
	for k := range its {
		pc.rs[k], pc.re[k] = rank(its[k].start), rank(its[k].end)
		if its[k].fp == nil {
			continue
		}
		cp := &compound{}
		byClass := map[span]int{}
		for x := pc.first[k]; x < pc.first[k+1]; x++ {
			key := span{pc.elo[x], pc.ehi[x]}
			ci, ok := byClass[key]
			if !ok {
				ci = len(cp.cls)
				byClass[key] = ci
				cp.cls = append(cp.cls, class{lo: key.lo, hi: key.hi})
			}
			c := &cp.cls[ci]
			c.s, c.e = append(c.s, pc.es[x]), append(c.e, pc.ee[x])
		}
		for ci := range cp.cls {
			c := &cp.cls[ci]
			idx := make([]int, len(c.s))
			for i := range idx {
				idx[i] = i
			}
			slices.SortFunc(idx, func(a, b int) int { return int(c.s[a] - c.s[b]) })
			s, e := make([]int32, len(idx)), make([]int32, len(idx))
			for i, j := range idx {
				s[i], e[i] = c.s[j], c.e[j]
			}
			c.s, c.e, c.pmax = s, e, make([]int32, len(s))
			for i := range e {
				c.pmax[i] = e[i]
				if i > 0 {
					c.pmax[i] = max(c.pmax[i], c.pmax[i-1])
				}
			}
		}
		pc.comp[k] = cp
	}
}

// work is the cost of one run of the placer in the unit of the improvement
// passes' budgets (entries scanned): n items times the entries, halved.
func (pc *placer) work() float64 {
	n := float64(len(pc.its))
	e := n
	if pc.eit != nil {
		e = float64(len(pc.eit))
	}
	return n*e/2 + n
}

// useTree decides between the linear scan (n²/2 cheap steps) and the
// interval tree (about E·log n steps and a sort per item), from the number
// of conflicting pairs E computed in O(n log n).
func useTree(s, e []int32, bytes func(int) bool) bool {
	n := float64(len(s))
	if n < 2048 {
		return false
	}
	return 8*conflictPairs(s, e, bytes)*math.Log2(n) < n*n/2
}

// conflictPairs counts the pairs of entries with bytes whose lifetimes
// intersect, in O(n log n): entry k meets the entries that start before its
// end, minus those that end at or before its start, minus itself.
func conflictPairs(s, e []int32, bytes func(int) bool) float64 {
	var starts, ends []int32
	for k := range s {
		if bytes(k) {
			starts = append(starts, s[k])
			ends = append(ends, e[k])
		}
	}
	slices.Sort(starts)
	slices.Sort(ends)
	var sum float64
	i := 0
	for _, e := range ends { // Σ over entries of #starts < end
		for i < len(starts) && starts[i] < e {
			i++
		}
		sum += float64(i)
	}
	j := 0
	for _, s := range starts { // Σ over entries of #ends ≤ start
		for j < len(ends) && ends[j] <= s {
			j++
		}
		sum -= float64(j)
	}
	return (sum - float64(len(starts))) / 2
}

// timeRanks compresses the starts and ends of the items to ranks.
func timeRanks(its []item) (rs, re []int32) {
	ts := make([]int64, 0, 2*len(its))
	for k := range its {
		ts = append(ts, its[k].start, its[k].end)
	}
	slices.Sort(ts)
	ts = slices.Compact(ts)
	rs, re = make([]int32, len(its)), make([]int32, len(its))
	for k := range its {
		a, _ := slices.BinarySearch(ts, its[k].start)
		b, _ := slices.BinarySearch(ts, its[k].end)
		rs[k], re[k] = int32(a), int32(b)
	}
	return rs, re
}

func (pc *placer) reset() {
	clear(pc.placed)
	pc.chunks = pc.chunks[:0]
	if pc.tree != nil {
		pc.tree.reset()
	}
	pc.useGT = false
}

// gapTreeMin and gapTreeMax bound the number of items for which
// first-fit runs of plain items keep their entries in a gapTree instead of
// the chunk list: the same placements, and the tree's queries skip stacks
// of long-lived entries that the scan visits one by one (a 50 000-buffer
// training trace in the textbook order: 1.34 s → 0.32 s per pass,
// BenchmarkFirstFitTraining). Above the maximum the tree's sets (tens of
// intervals per entry before coalescing) would weigh on the memory of
// million-buffer runs.
var gapTreeMin, gapTreeMax = 4096, 200_000

// resetFor clears the placement before a run that fits first (firstFit)
// or best, choosing where the entries go for that run.
func (pc *placer) resetFor(firstFit bool) {
	pc.reset()
	if !firstFit || pc.eit != nil || pc.tree != nil || len(pc.its) < gapTreeMin || len(pc.its) > gapTreeMax {
		return
	}
	if pc.gt == nil {
		var ranks int32
		for k := range pc.re {
			ranks = max(ranks, pc.re[k])
		}
		pc.gt = newGapTree(int(ranks) + 1)
	} else {
		pc.gt.reset()
	}
	pc.useGT = true
}

func (c *chunk) hull() {
	c.minS, c.maxE = 1<<31-1, 0
	for _, v := range c.se {
		c.minS, c.maxE = min(c.minS, int32(v>>32)), max(c.maxE, int32(uint32(v)))
	}
}

// insert adds item k (already given its offset) to the list.
func (pc *placer) insert(k int) {
	pc.placed[k] = true
	if pc.eit == nil {
		if sz := pc.its[k].size; sz > 0 {
			pc.insertEntry(k, pc.rs[k], pc.re[k], pc.off[k], pc.off[k]+sz)
		}
		return
	}
	o := pc.off[k]
	for x := pc.first[k]; x < pc.first[k+1]; x++ {
		pc.insertEntry(int(x), pc.es[x], pc.ee[x], o+pc.elo[x], o+pc.ehi[x])
	}
}

// insertEntry adds entry x, live during ranks [s, e), at bytes [lo, hi).
func (pc *placer) insertEntry(x int, s, e int32, lo, hi int64) {
	if pc.useGT {
		if s < e {
			pc.gt.add(s, e, lo, hi)
		}
		return
	}
	if pc.tree != nil {
		pc.tree.add(x, e)
		return
	}
	if len(pc.chunks) == 0 {
		pc.chunks = append(pc.chunks, &chunk{se: make([]uint64, 0, chunkCap), sp: make([]span, 0, chunkCap)})
	}
	// the first chunk whose last entry is above lo
	c := 0
	for c < len(pc.chunks)-1 {
		if ch := pc.chunks[c]; ch.sp[len(ch.sp)-1].lo > lo {
			break
		}
		c++
	}
	ch := pc.chunks[c]
	i, _ := slices.BinarySearchFunc(ch.sp, lo, func(x span, o int64) int {
		if x.lo <= o {
			return -1
		}
		return 1
	})
	ch.se = slices.Insert(ch.se, i, uint64(s)<<32|uint64(e))
	ch.sp = slices.Insert(ch.sp, i, span{lo, hi})
	if len(ch.se) == 1 {
		ch.minS, ch.maxE = s, e
	}
	ch.minS, ch.maxE = min(ch.minS, s), max(ch.maxE, e)
	if len(ch.se) >= chunkCap {
		h := len(ch.se) / 2
		nc := &chunk{se: append(make([]uint64, 0, chunkCap), ch.se[h:]...), sp: append(make([]span, 0, chunkCap), ch.sp[h:]...)}
		ch.se, ch.sp = ch.se[:h], ch.sp[:h]
		ch.hull()
		nc.hull()
		pc.chunks = slices.Insert(pc.chunks, c+1, nc)
	}
}

// entrySpan returns the bytes entry x occupies at its item's offset.
func (pc *placer) entrySpan(x int32) span {
	if pc.eit == nil {
		return span{pc.off[x], pc.off[x] + pc.its[x].size}
	}
	o := pc.off[pc.eit[x]]
	return span{o + pc.elo[x], o + pc.ehi[x]}
}

// run places the pinned items at their pins, then the others in order
// (pinned entries of order are skipped), and returns the peak.
func (pc *placer) run(ctx context.Context, order []int32, firstFit bool) (int64, error) {
	pc.resetFor(firstFit)
	var peak int64
	for k := range pc.its {
		if it := &pc.its[k]; it.pin >= 0 {
			pc.off[k] = it.pin
			pc.insert(k)
			if it.size > 0 {
				peak = max(peak, it.pin+it.size)
			}
		}
	}
	return pc.placeOrder(ctx, order, firstFit, peak)
}

// fit returns the offset for item k: the best (smallest) or first (lowest)
// gap among the placed conflicting items that holds it, else the top.
func (pc *placer) fit(k int, firstFit bool) int64 {
	it := &pc.its[k]
	if it.size == 0 {
		return it.up(0)
	}
	if pc.comp != nil && pc.comp[k] != nil {
		return pc.fitCompound(k, firstFit)
	}
	s, e, size := pc.rs[k], pc.re[k], it.size
	// A run on the gap tree fits first only (resetFor): every caller of
	// fit in such a run passes the run's firstFit.
	if pc.useGT && firstFit {
		if s >= e {
			return it.up(0)
		}
		return pc.gt.first(s, e, size, it.up)
	}
	best, bestGap := int64(-1), int64(-1)
	var top int64
	if pc.tree != nil {
		pc.found = pc.tree.query(s, e, pc.found[:0])
		pc.spans = pc.spans[:0]
		for _, x := range pc.found {
			pc.spans = append(pc.spans, pc.entrySpan(x))
		}
		slices.SortFunc(pc.spans, func(a, b span) int { return cmp.Compare(a.lo, b.lo) })
		for _, x := range pc.spans {
			if gap := x.lo - top; gap >= size && (bestGap < 0 || gap < bestGap || firstFit) {
				if c := it.up(top); x.lo-c >= size {
					if firstFit {
						return c
					}
					best, bestGap = c, gap
				}
			}
			top = max(top, x.hi)
		}
		if best >= 0 {
			return best
		}
		return it.up(top)
	}
	for _, ch := range pc.chunks {
		if ch.minS >= e || s >= ch.maxE {
			continue
		}
		for j, v := range ch.se {
			if int32(v>>32) >= e || s >= int32(uint32(v)) {
				continue
			}
			x := ch.sp[j]
			if gap := x.lo - top; gap >= size && (bestGap < 0 || gap < bestGap || firstFit) {
				if c := it.up(top); x.lo-c >= size {
					if firstFit {
						return c
					}
					best, bestGap = c, gap
				}
			}
			top = max(top, x.hi)
		}
	}
	if best >= 0 {
		return best
	}
	return it.up(top)
}

// placeOrder places the items of order not placed yet, each where fit puts
// it, and returns the peak (starting from peak).
func (pc *placer) placeOrder(ctx context.Context, order []int32, firstFit bool, peak int64) (int64, error) {
	for n, k := range order {
		if n&255 == 255 && ctx.Err() != nil {
			return 0, ctx.Err()
		}
		if pc.placed[k] {
			continue
		}
		o := pc.fit(int(k), firstFit)
		pc.off[k] = o
		pc.insert(int(k))
		if sz := pc.its[k].size; sz > 0 {
			peak = max(peak, o+sz)
		}
	}
	return peak, nil
}

// runFrom keeps the items with keep[k] at their offsets off[k], places the
// items of order around them and returns the peak.
func (pc *placer) runFrom(ctx context.Context, keep []bool, off []int64, order []int32, firstFit bool) (int64, error) {
	pc.resetFor(firstFit)
	var peak int64
	for k := range pc.its {
		if keep[k] || pc.its[k].pin >= 0 {
			pc.off[k] = off[k]
			pc.insert(k)
			if sz := pc.its[k].size; sz > 0 {
				peak = max(peak, off[k]+sz)
			}
		}
	}
	return pc.placeOrder(ctx, order, firstFit, peak)
}
