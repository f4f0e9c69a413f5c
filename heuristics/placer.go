package heuristics

import (
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
type placer struct {
	its    []item
	rs, re []int32 // time ranks of every item
	off    []int64
	placed []bool
	chunks []*chunk
	// tree replaces the chunk scan when conflicts are sparse.
	tree  *itree
	found []int32
	spans []span
}

func newPlacer(its []item) *placer {
	pc := &placer{its: its, off: make([]int64, len(its)), placed: make([]bool, len(its))}
	pc.rs, pc.re = timeRanks(its)
	if useTree(its) {
		pc.tree = newITree(pc.rs, pc.re)
	}
	return pc
}

// useTree decides between the linear scan (n²/2 cheap steps) and the
// interval tree (about E·log n steps and a sort per item), from the number
// of conflicting pairs E computed in O(n log n).
func useTree(its []item) bool {
	n := float64(len(its))
	if n < 2048 {
		return false
	}
	return 8*conflictPairs(its)*math.Log2(n) < n*n/2
}

// conflictPairs counts the pairs of items with bytes whose lifetimes
// intersect, in O(n log n): item k meets the items that start before its
// end, minus those that end at or before its start, minus itself.
func conflictPairs(its []item) float64 {
	var starts, ends []int64
	for k := range its {
		if its[k].size > 0 {
			starts = append(starts, its[k].start)
			ends = append(ends, its[k].end)
		}
	}
	slices.Sort(starts)
	slices.Sort(ends)
	var sum float64
	i := 0
	for _, e := range ends { // Σ over items of #starts < end
		for i < len(starts) && starts[i] < e {
			i++
		}
		sum += float64(i)
	}
	j := 0
	for _, s := range starts { // Σ over items of #ends ≤ start
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
	if pc.its[k].size == 0 {
		return
	}
	o := pc.off[k]
	if pc.tree != nil {
		pc.tree.add(k, pc.re[k])
		return
	}
	if len(pc.chunks) == 0 {
		pc.chunks = append(pc.chunks, &chunk{se: make([]uint64, 0, chunkCap), sp: make([]span, 0, chunkCap)})
	}
	// the first chunk whose last entry is above o
	c := 0
	for c < len(pc.chunks)-1 {
		if ch := pc.chunks[c]; ch.sp[len(ch.sp)-1].lo > o {
			break
		}
		c++
	}
	ch := pc.chunks[c]
	i, _ := slices.BinarySearchFunc(ch.sp, o, func(x span, o int64) int {
		if x.lo <= o {
			return -1
		}
		return 1
	})
	s, e := pc.rs[k], pc.re[k]
	ch.se = slices.Insert(ch.se, i, uint64(s)<<32|uint64(e))
	ch.sp = slices.Insert(ch.sp, i, span{o, o + pc.its[k].size})
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

// run places the pinned items at their pins, then the others in order
// (pinned entries of order are skipped), and returns the peak.
func (pc *placer) run(ctx context.Context, order []int32, firstFit bool) (int64, error) {
	pc.reset()
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

// fit returns the offset for item k: the best (smallest) or first (lowest)
// gap among the placed conflicting items that holds it, else the top.
func (pc *placer) fit(k int, firstFit bool) int64 {
	it := &pc.its[k]
	if it.size == 0 {
		return it.up(0)
	}
	s, e, size := pc.rs[k], pc.re[k], it.size
	best, bestGap := int64(-1), int64(-1)
	var top int64
	if pc.tree != nil {
		pc.found = pc.tree.query(s, e, pc.found[:0])
		pc.spans = pc.spans[:0]
		for _, j := range pc.found {
			pc.spans = append(pc.spans, span{pc.off[j], pc.off[j] + pc.its[j].size})
		}
		slices.SortFunc(pc.spans, func(a, b span) int { return cmp64(a.lo, b.lo) })
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

// runFrom keeps the items with keep[k] at their offsets off[k], places the
// items of order around them and returns the peak.
func (pc *placer) runFrom(ctx context.Context, keep []bool, off []int64, order []int32, firstFit bool) (int64, error) {
	pc.reset()
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
