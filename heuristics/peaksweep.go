package heuristics

import (
	"cmp"
	"context"
	"math"
	"slices"

	"github.com/optalloc/optalloc/model"
)

func init() {
	Register(&PeakSweep{})
	Register(&PeakSweep{LongestLowest: true})
	Register(&PeakSweep{NoCentre: true})
}

// PeakSweep is a free-list sweep that starts at the time of max-live and
// places each buffer next to a neighbour that ends about when it does. It
// is O(n log n) like FreeList, and meant for the traces of hundreds of
// thousands to millions of buffers on which the best-fit family is too slow.
//
// Centre: the buffers live at the time t* where the live bytes reach
// max-live are stacked from the bottom first (in stackOrder), so that at
// t* the arena holds exactly max-live (up to alignment). Then two
// sweeps go out from t*, one forward over the buffers that start after it
// and one backward (time reversed: a buffer "starts" at its end) over those
// that end at or before it; each sees the stack release its buffers as it
// passes their ends (or starts). The two never meet: no buffer of one
// overlaps a buffer of the other. On a transformer trace with its backward
// pass (1 000 000 buffers) the saved activations nest around t*, and the
// plan is 0.0004% above max-live where FreeList's is 0.81%.
//
// Affinity: at each start the Candidates smallest free blocks that hold
// the buffer are looked at; an exact fit is taken, else the buffer goes
// against the held neighbour (below the block or above it) whose end is
// nearest its own, so that the two tend to be freed together and leave one
// larger hole rather than two small ones; with no held neighbour, the
// bottom of the smallest block. When no block holds it, it takes the free
// block at the top of the arena and extends it, or fresh memory.
//
// On 1 000 000 buffers of the generator's dense random trace the plan is
// about 2% above max-live where FreeList's is 4.4%, on 100 000 4.3% where
// the best planner of the portfolio's is 6.6% (docs/heuristics.md). Pins
// are reserved for the whole run, below the arena as in FreeList; alias
// groups are their bounding rectangle; each pool is planned alone (every
// buffer in its first allowed pool). Its names are "sweep-peak" and, with
// LongestLowest "sweep-peak-lifetime", with NoCentre (one forward sweep
// from the first start) "sweep-end".
type PeakSweep struct {
	// Candidates is the number of free blocks looked at per request, the
	// smallest first (0: 8). With 1, the smallest block that holds the
	// buffer (best fit), at its end nearer a neighbour's end.
	Candidates int
	// NoCentre sweeps forward from the first start, without the stack at
	// max-live.
	NoCentre bool
	// LongestLowest stacks the buffers live at t* longest-lived lowest
	// (ties: larger, then earlier start) instead of in stackOrder: on
	// 1 000 000 dense random buffers 1.84% above max-live against
	// stackOrder's 1.99%, on long random skip connections 9.6% against
	// 6.2%.
	LongestLowest bool
}

// defaultCandidates is PeakSweep's default Candidates: on the dense random
// trace of 100 000 buffers, 2, 4, 8, 16, 32 and 128 candidates gave 5.9%,
// 4.8%, 4.3%, 4.8%, 5.8% and 7.9% above max-live.
const defaultCandidates = 8

// Name implements Planner.
func (s *PeakSweep) Name() string {
	if s.NoCentre {
		return "sweep-end"
	}
	if s.LongestLowest {
		return "sweep-peak-lifetime"
	}
	return "sweep-peak"
}

// Plan implements Planner.
func (s *PeakSweep) Plan(ctx context.Context, p *model.Problem) (*model.Plan, error) {
	return perPool(ctx, p, s.plan)
}

// noEnd is the end of a segment that is never released (pins).
const noEnd = math.MaxInt64

// sweepArena is one direction's free list: the segments, the end of each
// held one (in the sweep's time) and the top.
type sweepArena struct {
	b    blocks
	end  []int64 // node → when its item ends, in the sweep's time
	top  int64
	cand int
}

// newSweepArena reserves the pinned spans (sorted, for the whole run);
// the arena's items go above the highest.
func newSweepArena(pinned []span, cand int) *sweepArena {
	a := &sweepArena{b: newBlocks(), cand: cand}
	for _, s := range pinned {
		a.b.pad(a.top, s.lo, true)
		if lo := max(a.top, s.lo); s.hi > lo {
			a.hold(a.b.push(lo, s.hi-lo, false), noEnd)
			a.top = s.hi
		}
	}
	return a
}

// empty makes the arena, whose sweep has released every item, what
// newSweepArena made: its free block at the top goes, and the top comes
// back to the pins' (the free blocks between pins are coalesced as
// they were made).
func (a *sweepArena) empty() {
	b := &a.b
	if t := b.tail; t != 0 && b.ns[t].free {
		b.remove(t)
		b.unlink(t)
	}
	a.top = 0
	if t := b.tail; t != 0 {
		a.top = b.hi(t)
	}
}

// hold records when held node n ends.
func (a *sweepArena) hold(n int32, end int64) {
	if int(n) >= len(a.end) {
		a.end = append(a.end, make([]int64, int(n)+1-len(a.end))...)
	}
	a.end[n] = end
}

// distance is how far held node n's end is from e; noEnd for a free or
// missing node.
func (a *sweepArena) distance(n int32, e int64) int64 {
	if n == 0 || a.b.ns[n].free || a.end[n] == noEnd {
		return noEnd
	}
	d := a.end[n] - e
	if d < 0 {
		return -d
	}
	return d
}

// alloc places it, which ends at e in the sweep's time, and returns its
// node.
func (a *sweepArena) alloc(it *item, e int64) int32 {
	b := &a.b
	var best int32
	var at int64
	score := int64(-1)
	seen := 0
	// the free blocks from the smallest that may hold it, in the size
	// index's order (one search, then a walk through its chunks)
	x := &b.idx
	bc, bj := 0, 0
	for c, j := x.find(it.size, -1); c < len(x.chunks) && seen < a.cand; {
		n := x.chunks[c][j].n
		pc, pj := c, j
		if j++; j == len(x.chunks[c]) {
			c, j = c+1, 0
		}
		lo, hi := b.ns[n].lo, b.hi(n)
		bottom := it.up(lo)
		if bottom+it.size > hi {
			continue
		}
		seen++
		if bottom == lo && hi-lo == it.size {
			best, at, bc, bj = n, lo, pc, pj
			break
		}
		top := it.down(hi - it.size)
		if d := a.distance(b.ns[n].prev, e); score < 0 || d < score {
			best, at, score, bc, bj = n, bottom, d, pc, pj
		}
		if d := a.distance(b.ns[n].next, e); d < score {
			best, at, score, bc, bj = n, top, d, pc, pj
		}
	}
	if best != 0 {
		x.hc, x.hj = bc, bj // where take's delete finds the block
		return a.held(b.take(best, at, it.size), e)
	}
	// the free block at the top of the arena, extended
	if t := b.tail; t != 0 && b.ns[t].free {
		c := it.up(b.ns[t].lo)
		a.top = c + it.size
		return a.held(b.extendTail(c, it.size), e)
	}
	o := it.up(a.top)
	b.pad(a.top, o, true)
	a.top = o + it.size
	return a.held(b.push(o, it.size, false), e)
}

func (a *sweepArena) held(n int32, e int64) int32 {
	a.hold(n, e)
	return n
}

// down returns the largest offset ≤ v that honours the item's alignment.
func (it *item) down(v int64) int64 {
	if it.align <= 1 {
		return v
	}
	r := (v - it.phase) % it.align
	if r < 0 {
		r += it.align
	}
	return v - r
}

// plan places the items of one pool.
func (s *PeakSweep) plan(ctx context.Context, its []item) ([]int64, error) {
	cand := s.Candidates
	if cand <= 0 {
		cand = defaultCandidates
	}
	off := make([]int64, len(its))
	var pinned []span
	var movable []int32
	for k := range its {
		it := &its[k]
		switch {
		case it.pin >= 0:
			off[k] = it.pin
			if it.size > 0 {
				pinned = append(pinned, span{it.pin, it.pin + it.size})
			}
		case it.size == 0:
			off[k] = it.up(0)
		default:
			movable = append(movable, int32(k))
		}
	}
	slices.SortFunc(pinned, func(a, b span) int { return cmp.Compare(a.lo, b.lo) })
	if len(movable) == 0 {
		return off, nil
	}
	// node[k] is item k's segment while a sweep holds it (one array for
	// every sweep: each touches its own items only)
	node := make([]int32, len(its))
	if s.NoCentre {
		a := newSweepArena(pinned, cand)
		return off, sweepHalf(ctx, a, its, movable, nil, nil, forwardTime(its), off, node)
	}
	// one arena per direction, emptied after each stretch (building one
	// per stretch cost O(pins) each: 40 000 buffers between 20 000 pins
	// took 37 s)
	arenas := [2]*sweepArena{newSweepArena(pinned, cand), newSweepArena(pinned, cand)}
	for _, part := range stretches(its, movable) {
		if err := s.centred(ctx, its, part, arenas, off, node); err != nil {
			return nil, err
		}
	}
	return off, nil
}

// forwardTime and backwardTime give an item's (start, end) in a forward
// sweep and in a backward one, where [start, end) becomes [1-end,
// 1-start), which meets the same items.
func forwardTime(its []item) func(int32) (int64, int64) {
	return func(k int32) (int64, int64) { return its[k].start, its[k].end }
}

func backwardTime(its []item) func(int32) (int64, int64) {
	return func(k int32) (int64, int64) { return 1 - its[k].end, 1 - its[k].start }
}

// stretches splits the items ks into the stretches of time that no item
// crosses (each planned alone: no item of one meets an item of another),
// in time order.
func stretches(its []item, ks []int32) [][]int32 {
	ks = slices.Clone(ks)
	slices.Sort(ks)
	sortByTime(ks, func(k int32) int64 { return its[k].start })
	var parts [][]int32
	from, reach := 0, int64(math.MinInt64)
	for i, k := range ks {
		if i > 0 && its[k].start >= reach {
			parts = append(parts, ks[from:i])
			from = i
		}
		reach = max(reach, its[k].end)
	}
	return append(parts, ks[from:])
}

// centred plans the items ks of one stretch: the stack at its max-live
// time, then the sweeps out from it.
func (s *PeakSweep) centred(ctx context.Context, its []item, ks []int32, arenas [2]*sweepArena, off []int64, node []int32) error {
	t := liveMaxTime(its, ks)
	var stack, fwd, bwd []int32
	for _, k := range ks {
		switch it := &its[k]; {
		case it.start <= t && t < it.end:
			stack = append(stack, k)
		case it.start > t:
			fwd = append(fwd, k)
		default:
			bwd = append(bwd, k)
		}
	}
	if s.LongestLowest {
		slices.SortFunc(stack, func(a, b int32) int { return longestFirst(its, a, b) })
	} else {
		stack = stackOrder(its, stack, t)
	}
	for h, half := range []struct {
		ks   []int32
		time func(int32) (int64, int64)
	}{{fwd, forwardTime(its)}, {bwd, backwardTime(its)}} {
		a := arenas[h]
		nodes := make([]int32, len(stack))
		// Both halves must stack every item at one offset: the choice
		// among free blocks (between pins, below alignment padding) must
		// not see the ends, which differ between the halves, until the
		// whole stack is placed.
		for i, k := range stack {
			nodes[i] = a.alloc(&its[k], 0)
			off[k] = a.b.ns[nodes[i]].lo
		}
		for i, k := range stack {
			_, e := half.time(k)
			a.hold(nodes[i], e)
		}
		if err := sweepHalf(ctx, a, its, half.ks, stack, nodes, half.time, off, node); err != nil {
			return err
		}
		a.empty()
	}
	return nil
}

// stackOrder orders the items live at t from the bottom of the stack up:
// first those that began longer before t than they last after it, the
// earliest end lowest, then the others, the latest start highest. Going
// forward from t the first part's items end from the bottom up, and going
// backward the second part's end (start) from the top down, so each
// sweep meets one hole growing from one end of the stack instead of holes
// scattered through it (the second part goes on long forward, the first
// long backward). On long random skip connections (1 000 000 buffers) the
// plan is 6.3% above max-live where the longest-lived-lowest order's is
// 9.6%, on 40 000 1.6% where it is 3.3% (docs/heuristics.md).
func stackOrder(its []item, stack []int32, t int64) []int32 {
	var before, after []int32
	for _, k := range stack {
		if it := &its[k]; t-it.start > it.end-t {
			before = append(before, k)
		} else {
			after = append(after, k)
		}
	}
	slices.SortFunc(before, func(a, b int32) int {
		if c := cmp.Compare(its[a].end, its[b].end); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	slices.SortFunc(after, func(a, b int32) int {
		if c := cmp.Compare(its[a].start, its[b].start); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	return append(before, after...)
}

// sortByTime sorts ks (given in increasing order) by (time, index) and
// returns their times in that order (byTime).
func sortByTime(ks []int32, at func(int32) int64) []int64 {
	ts := make([]int64, len(ks))
	for i, k := range ks {
		ts[i] = at(k)
	}
	ts, pos := byTime(ts)
	sorted := make([]int32, len(ks))
	for i, k := range ks {
		sorted[pos[i]] = k
	}
	copy(ks, sorted)
	return ts
}

// liveMaxTime returns the first time at which the bytes of the given items
// (rectangles) live together are the most.
func liveMaxTime(its []item, ks []int32) int64 {
	starts := slices.Clone(ks)
	ends := slices.Clone(ks)
	st := sortByTime(starts, func(k int32) int64 { return its[k].start })
	et := sortByTime(ends, func(k int32) int64 { return its[k].end })
	var load, best, at int64
	j := 0
	for i := 0; i < len(starts); {
		t := st[i]
		for ; j < len(ends) && et[j] <= t; j++ {
			load -= its[ends[j]].size
		}
		for ; i < len(starts) && st[i] == t; i++ {
			load += its[starts[i]].size
		}
		if load > best {
			best, at = load, t
		}
	}
	return at
}

// sweepHalf sweeps the items ks through arena a in the time given by time
// (start, end), releasing the items already held (held, at nodes) at their
// ends, and writes the offsets; node keeps each item's segment. At one
// time, ends come before starts and larger starts first.
func sweepHalf(ctx context.Context, a *sweepArena, its []item, ks, held, nodes []int32, time func(int32) (int64, int64), off []int64, node []int32) error {
	opens := slices.Clone(ks)
	slices.Sort(opens)
	openT := sortByTime(opens, func(k int32) int64 { s, _ := time(k); return s })
	for i := 0; i < len(opens); {
		j := i + 1
		for j < len(opens) && openT[j] == openT[i] {
			j++
		}
		if j-i > 1 {
			slices.SortStableFunc(opens[i:j], func(x, y int32) int { return cmp.Compare(its[y].size, its[x].size) })
		}
		i = j
	}
	// the ends: the held items' and the swept ones', each with its node
	closes := make([]int32, 0, len(held)+len(ks))
	closes = append(closes, held...)
	closes = append(closes, ks...)
	slices.Sort(closes)
	closeT := sortByTime(closes, func(k int32) int64 { _, e := time(k); return e })
	for i, k := range held {
		node[k] = nodes[i]
	}
	for i, j, x := 0, 0, 0; i < len(opens) || j < len(closes); x++ {
		if x&4095 == 4095 && ctx.Err() != nil {
			return ctx.Err()
		}
		if j < len(closes) && (i == len(opens) || closeT[j] <= openT[i]) {
			k := closes[j]
			a.b.release(node[k], true)
			j++
			continue
		}
		k := opens[i]
		i++
		_, e := time(k)
		n := a.alloc(&its[k], e)
		node[k] = n
		off[k] = a.b.ns[n].lo
	}
	return nil
}
