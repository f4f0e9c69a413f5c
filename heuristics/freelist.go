package heuristics

import (
	"cmp"
	"context"
	"slices"

	"github.com/optalloc/optalloc/model"
)

func init() {
	Register(&FreeList{})
}

// FreeList is the free-list planner of seed patent 000. It walks time in
// order: at a buffer's start it allocates, at its end it releases (releases
// first when both happen at one time; among starts, larger first, or in
// input order with OpOrder). Free blocks are kept sorted by size (a
// chunked index) and in address order (a linked list of all segments, see
// blocks), so every step is O(log F) or better: the planner is O(n log n)
// and scales to millions of buffers. Allocation rules, each behind a knob:
//
//  1. a request of at most ReuseThreshold bytes goes straight to fresh
//     memory (no fragments from tiny tensors);
//  2. an equal free block is reused;
//  3. otherwise the smallest larger block is split (the largest with
//     SplitLargest), the remainder going back to the free list;
//  4. if only smaller blocks exist and the largest sits at the end of the
//     arena, it is taken and extended with fresh memory (10 requested,
//     blocks of 2 and 4 free with the 4 at the end: take 4, extend by 6);
//  5. else fresh memory at the top of the arena.
//
// Release coalesces the block with adjacent free blocks. With several pools
// (tiers), reuse is tried in each allowed pool in rank order, then fresh
// memory comes from the first pool that still has capacity, then the next
// (with FillFast each pool in rank order is tried whole — reuse, then
// fresh memory within its capacity — before the next);
// a buffer no pool can hold goes to fresh memory of its last allowed pool
// (over capacity: the plan is then rejected by verify as infeasible).
// Pinned buffers are reserved for the whole run (conservative), and the
// arena starts above them, their gaps being free blocks. Alias groups are
// one block; MiniMalloc gaps are ignored (whole lifetimes).
type FreeList struct {
	// ReuseThreshold: requests of at most this many bytes skip the free
	// list (rule 1). 0 disables the rule.
	ReuseThreshold int64
	NoExact        bool // disable rule 2: blocks of exactly the requested size are skipped
	NoSplit        bool // disable rule 3
	NoExtend       bool // disable rule 4
	NoCoalesce     bool // release without merging adjacent free blocks
	// SplitLargest splits the largest free block that holds a request
	// (rule 3, as seed 000 does) instead of the smallest.
	SplitLargest bool
	// OpOrder takes buffers starting at the same time in input (op)
	// order, as seed 000 does, instead of largest first.
	OpOrder bool
	// FillFast fills a faster pool — reuse, then fresh memory within its
	// capacity — before it tries a slower one; by default every allowed
	// pool's free blocks are tried before fresh memory in any pool.
	FillFast bool
}

// Name implements Planner.
func (f *FreeList) Name() string { return "freelist" }

// arena is the free-list state of one pool: its segments up to top.
type arena struct {
	cap int64 // 0 = unbounded
	top int64
	b   blocks
}

func (a *arena) fits(end int64) bool { return a.cap == 0 || end <= a.cap }

// fresh gives an item the bytes [o, o+size) at or above the top: the bytes
// from the top to o become a free block.
func (a *arena) fresh(o, size int64, coalesce bool) int32 {
	a.b.pad(a.top, o, coalesce)
	a.top = o + size
	return a.b.push(o, size, false)
}

// Plan implements Planner. Settings.FreeList in ctx replaces f's knobs.
func (f *FreeList) Plan(ctx context.Context, p *model.Problem) (*model.Plan, error) {
	if st := settingsOf(ctx); st != nil && st.FreeList != nil {
		f = st.FreeList
	}
	pools := p.PoolList()
	ar := make([]*arena, len(pools))
	for q := range ar {
		ar[q] = &arena{cap: pools[q].Capacity, b: newBlocks()}
	}
	var in *instance   // nil: one pool and no aliases, the items read from the buffers
	var pl *model.Plan // with in nil: the plan, sizes set
	var off []int64
	var ev events
	pinned := make([][]span, len(pools))
	if len(pools) == 1 {
		// Each item is a buffer until the scan meets an alias: no items
		// are built (on a million buffers they were 96 MB of fresh
		// memory, whose page faults cost more than the work).
		var err error
		if ctx, err = validate(ctx, p); err != nil { // once: newInstance below may need it
			return nil, err
		}
		pa := pools[0].Alignment()
		// the plan's sizes come with the same pass (model.NewPlan's would
		// be another)
		pl = &model.Plan{Placements: make([]model.Placement, len(p.Buffers))}
		at := func(k int) (flItem, bool) {
			b := &p.Buffers[k]
			pl.Placements[k].Size = b.Size
			it := flItem{start: b.Start, end: b.End, size: b.Size, align: b.Alignment(), pin: -1}
			if pa > 1 {
				it.align = model.LCM(it.align, pa)
			}
			if b.Pin != nil {
				it.pin = *b.Pin
			}
			return it, b.Alias == nil
		}
		off = make([]int64, len(p.Buffers))
		var ok bool
		if ev, ok = f.events(ctx, len(p.Buffers), at, off, pinned); !ok {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			clear(pinned) // an alias: the items are the alias groups
			if in, err = newInstance(ctx, p); err != nil {
				return nil, err
			}
		}
	} else {
		var err error
		if in, err = newInstance(ctx, p); err != nil {
			return nil, err
		}
	}
	var poolOf []int    // nil with one pool: the items' own
	var allowed [][]int // nil with one pool
	if in != nil {
		n := len(in.its)
		off = make([]int64, n)
		if len(pools) > 1 {
			poolOf, allowed = make([]int, n), make([][]int, n)
			for k := range in.its {
				poolOf[k], allowed[k] = in.its[k].pool, in.allowed(k)
			}
		}
		at := func(k int) (flItem, bool) {
			it := &in.its[k]
			return flItem{start: it.start, end: it.end, size: it.size, align: it.align, phase: it.phase, pin: it.pin, pool: it.pool}, true
		}
		var ok bool
		if ev, ok = f.events(ctx, n, at, off, pinned); !ok {
			return nil, ctx.Err()
		}
	}
	// pins: reserved for the whole run
	single := []int{0}
	var err error
	for q, sp := range pinned {
		slices.SortFunc(sp, func(a, b span) int { return cmp.Compare(a.lo, b.lo) })
		a := ar[q]
		for _, s := range sp {
			a.b.pad(a.top, s.lo, true)
			if lo := max(a.top, s.lo); s.hi > lo {
				a.b.push(lo, s.hi-lo, false)
				a.top = s.hi
			}
		}
	}
	// The loop reads the events in order; what it needs of an item comes
	// with its start event, and its segment goes to its end event's slot:
	// random reads of a million items had cost more than the blocks.
	closeSeg := make([]int32, len(ev.closeT))
	var closePool []int32
	if allowed != nil {
		closePool = make([]int32, len(ev.closeT))
	}
	coalesce := !f.NoCoalesce
	for i, j, x := 0, 0, 0; i < len(ev.opens) || j < len(ev.closeT); x++ {
		if x&4095 == 4095 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if j < len(ev.closeT) && (i == len(ev.opens) || ev.closeT[j] <= ev.openT[i]) {
			q := 0
			if closePool != nil {
				q = int(closePool[j])
			}
			ar[q].b.release(closeSeg[j], coalesce)
			j++
			continue
		}
		r := &ev.opens[i]
		i++
		k := int(r.k)
		var q int
		var s int32
		if allowed == nil {
			// one pool: the item is never retargeted, a copy will do
			it := item{size: r.size, align: r.align, phase: r.phase}
			q, s, err = f.allocate(in, k, &it, single, ar)
		} else {
			q, s, err = f.allocate(in, k, &in.its[k], allowed[k], ar)
			poolOf[k], closePool[r.slot] = q, int32(q)
		}
		if err != nil {
			return nil, err
		}
		off[k], closeSeg[r.slot] = ar[q].b.ns[s].lo, s
	}
	if in == nil { // item k is buffer k, in the one pool
		for i := range pl.Placements {
			pl.Placements[i].Offset = off[i]
		}
		return pl, nil
	}
	return in.plan(off, poolOf), nil
}

// flItem is what the free-list planner reads of an item.
type flItem struct {
	start, end, size int64
	align, phase     int64 // the offset must be ≡ phase (mod align)
	pin              int64 // -1 when free
	pool             int
}

// up returns the smallest offset ≥ v that honours the item's alignment.
func (it *flItem) up(v int64) int64 {
	x := item{align: it.align, phase: it.phase}
	return x.up(v)
}

// openEvent is the start of an item, with what the free-list loop needs
// of it.
type openEvent struct {
	size, align, phase int64
	k, slot            int32 // the item, the position of its end event
}

// events are the free-list planner's events in time order: at equal times
// ends before starts, and starts larger first (or by index with OpOrder),
// ends by index.
type events struct {
	opens  []openEvent
	openT  []int64
	closeT []int64 // the time of each end event; slot numbers them
}

// events reads the n items through at in one pass, in index order: a
// pinned item gets its pin in off and its bytes in pinned, an empty one its
// lowest offset in off, and the others' start events are gathered in index
// order, then each stored at its place in time order (byTime): reading the
// items in time order instead had waited for memory on every item of a
// million, and a second pass over a million buffers had cost 50 ms. It
// returns false when at does (and reads no further) or ctx ends.
func (f *FreeList) events(ctx context.Context, n int, at func(k int) (flItem, bool), off []int64, pinned [][]span) (events, bool) {
	var ev events
	recs := make([]openEvent, 0, n)
	startT, endT := make([]int64, 0, n), make([]int64, 0, n)
	for k := range n {
		if k%4096 == 0 && ctx.Err() != nil {
			return ev, false
		}
		it, ok := at(k)
		if !ok {
			return ev, false
		}
		switch {
		case it.pin >= 0:
			off[k] = it.pin
			if it.size > 0 {
				pinned[it.pool] = append(pinned[it.pool], span{it.pin, it.pin + it.size})
			}
		case it.size == 0:
			off[k] = it.up(0)
		default:
			recs = append(recs, openEvent{size: it.size, align: it.align, phase: it.phase, k: int32(k)})
			startT, endT = append(startT, it.start), append(endT, it.end)
		}
	}
	var closeAt, openAt []int32
	ev.closeT, closeAt = byTime(endT)
	ev.openT, openAt = byTime(startT)
	ev.opens = make([]openEvent, len(recs))
	for i := range recs {
		r := &recs[i]
		r.slot = closeAt[i]
		ev.opens[openAt[i]] = *r
	}
	if !f.OpOrder { // larger first among starts at one time
		opens := ev.opens
		for i := 0; i < len(opens); {
			j := i + 1
			for j < len(opens) && ev.openT[j] == ev.openT[i] {
				j++
			}
			if j-i > 1 {
				slices.SortFunc(opens[i:j], func(a, b openEvent) int {
					if c := cmp.Compare(b.size, a.size); c != 0 {
						return c
					}
					return cmp.Compare(a.k, b.k)
				})
			}
			i = j
		}
	}
	return ev, true
}

// allocate finds a block for item k (it, which is in.its[k] when it may
// be retargeted to another pool): reuse in each allowed pool, then fresh
// memory in the first pool with capacity, else over capacity in the last.
// It returns the pool and the item's segment in that pool's arena.
func (f *FreeList) allocate(in *instance, k int, it *item, allowed []int, ar []*arena) (int, int32, error) {
	target := func(q int) error { // the item's alignment in pool q
		if q != it.pool {
			it.pool = q
			return in.retarget(k, q)
		}
		return nil
	}
	// fresh takes fresh memory at the top of pool q when it fits, or
	// anyway in the last pool
	fresh := func(i, q int) (int32, bool) {
		a := ar[q]
		o := it.up(a.top)
		if !a.fits(o+it.size) && i < len(allowed)-1 {
			return 0, false
		}
		return a.fresh(o, it.size, !f.NoCoalesce), true
	}
	reuse := it.size > f.ReuseThreshold
	if f.FillFast {
		for i, q := range allowed {
			if err := target(q); err != nil {
				return 0, 0, err
			}
			if reuse {
				if s := f.reuse(it, ar[q]); s != 0 {
					return q, s, nil
				}
			}
			if s, ok := fresh(i, q); ok {
				return q, s, nil
			}
		}
	}
	for _, q := range allowed {
		if !reuse {
			break
		}
		if err := target(q); err != nil {
			return 0, 0, err
		}
		if s := f.reuse(it, ar[q]); s != 0 {
			return q, s, nil
		}
	}
	for i, q := range allowed {
		if err := target(q); err != nil {
			return 0, 0, err
		}
		if s, ok := fresh(i, q); ok {
			return q, s, nil
		}
	}
	return 0, 0, nil // unreachable: allowed is never empty for a valid problem
}

// reuse applies rules 2–4 in one arena: the item's segment, or 0.
func (f *FreeList) reuse(it *item, a *arena) int32 {
	if f.SplitLargest {
		if s := f.reuseLargest(it, a); s != 0 {
			return s
		}
	} else if s := f.reuseSmallest(it, a); s != 0 {
		return s
	}
	// rule 4: the largest block sits at the end of the arena
	if f.NoExtend {
		return 0
	}
	b := &a.b
	if m := b.max(); m != 0 && m == b.tail {
		lo := b.ns[m].lo
		c := it.up(lo)
		if c+it.size > a.top && a.fits(c+it.size) {
			a.top = c + it.size
			return b.extendTail(c, it.size)
		}
	}
	return 0
}

// reuseSmallest applies rules 2 and 3: the smallest block ≥ size that holds
// the aligned item.
func (f *FreeList) reuseSmallest(it *item, a *arena) int32 {
	b := &a.b
	for n := b.ceil(it.size, -1); n != 0; n = b.ceil(b.ns[n].size, b.ns[n].lo+1) {
		lo, hi := b.ns[n].lo, b.hi(n)
		c := it.up(lo)
		if c+it.size > hi {
			continue
		}
		exact := c == lo && hi-lo == it.size
		if exact && f.NoExact {
			continue
		}
		if !exact && f.NoSplit {
			break
		}
		return b.take(n, c, it.size)
	}
	return 0
}

// reuseLargest applies rules 2 and 3 the source's way: a block of exactly
// the size if there is one (rule 2), else the largest block, split.
func (f *FreeList) reuseLargest(it *item, a *arena) int32 {
	b := &a.b
	if !f.NoExact {
		if n := b.ceil(it.size, -1); n != 0 && b.ns[n].size == it.size && it.up(b.ns[n].lo) == b.ns[n].lo {
			return b.take(n, b.ns[n].lo, it.size)
		}
	}
	if f.NoSplit {
		return 0
	}
	// the largest block that holds the aligned item (alignment may leave
	// the largest short: then the next largest)
	for n := b.max(); n != 0 && b.ns[n].size >= it.size; n = b.below(b.ns[n].size, b.ns[n].lo) {
		lo, hi := b.ns[n].lo, b.hi(n)
		c := it.up(lo)
		if c+it.size > hi || (f.NoExact && c == lo && hi-lo == it.size) {
			continue
		}
		return b.take(n, c, it.size)
	}
	return 0
}

// byTime orders events given by their times ts (in increasing order of
// their items) by (time, item): it returns the times in that order (in ts's
// array) and, for each event, its position in it. A counting sort when the
// times span at most a few times as many steps as there are events, else
// a sort of packed (time, position) words when they span less than 2³²,
// else a comparison sort.
func byTime(ts []int64) ([]int64, []int32) {
	pos := make([]int32, len(ts))
	if len(ts) == 0 {
		return ts, pos
	}
	lo, hi := ts[0], ts[0]
	for _, t := range ts {
		lo, hi = min(lo, t), max(hi, t)
	}
	span := uint64(hi) - uint64(lo)
	switch {
	case span < 4*uint64(len(ts))+1024:
		// stable: equal times keep the increasing order of the items
		count := make([]int32, span+2)
		for _, t := range ts {
			count[t-lo+1]++
		}
		for v := 1; v < len(count); v++ {
			count[v] += count[v-1]
		}
		for i, t := range ts {
			pos[i] = count[t-lo]
			count[t-lo]++
		}
		// count[v] is now the end of time lo+v's run
		w := 0
		for v, e := range count[:span+1] {
			for ; w < int(e); w++ {
				ts[w] = lo + int64(v)
			}
		}
	case span < 1<<32:
		keys := make([]uint64, len(ts))
		for i, t := range ts {
			keys[i] = (uint64(t)-uint64(lo))<<32 | uint64(i)
		}
		slices.Sort(keys)
		for i, v := range keys {
			pos[uint32(v)] = int32(i)
			ts[i] = lo + int64(v>>32)
		}
	default:
		order := make([]int32, len(ts))
		for i := range order {
			order[i] = int32(i)
		}
		slices.SortFunc(order, func(a, b int32) int {
			if c := cmp.Compare(ts[a], ts[b]); c != 0 {
				return c
			}
			return cmp.Compare(a, b)
		})
		sorted := make([]int64, len(ts))
		for i, x := range order {
			pos[x] = int32(i)
			sorted[i] = ts[x]
		}
		ts = sorted
	}
	return ts, pos
}
