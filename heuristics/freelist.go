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
// input order with OpOrder). Free
// blocks are kept sorted by size (a treap) and by address (maps), so every
// step is O(log F): the planner is O(n log n) and scales to millions of
// buffers. Allocation rules, each behind a knob:
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

// arena is the free-list state of one pool.
type arena struct {
	cap     int64 // 0 = unbounded
	top     int64
	bySize  treap
	byStart map[int64]int64 // start → end of free blocks
	byEnd   map[int64]int64 // end → start
}

func (a *arena) add(lo, hi int64, coalesce bool) {
	if hi <= lo {
		return
	}
	if coalesce {
		if s, ok := a.byEnd[lo]; ok {
			a.del(s, lo)
			lo = s
		}
		if e, ok := a.byStart[hi]; ok {
			a.del(hi, e)
			hi = e
		}
	}
	a.byStart[lo], a.byEnd[hi] = hi, lo
	a.bySize.insert(hi-lo, lo)
}

func (a *arena) del(lo, hi int64) {
	delete(a.byStart, lo)
	delete(a.byEnd, hi)
	a.bySize.remove(hi-lo, lo)
}

func (a *arena) fits(end int64) bool { return a.cap == 0 || end <= a.cap }

// Plan implements Planner. Settings.FreeList in ctx replaces f's knobs.
func (f *FreeList) Plan(ctx context.Context, p *model.Problem) (*model.Plan, error) {
	if st := settingsOf(ctx); st != nil && st.FreeList != nil {
		f = st.FreeList
	}
	in, err := newInstance(ctx, p)
	if err != nil {
		return nil, err
	}
	pools := p.PoolList()
	ar := make([]*arena, len(pools))
	for q := range ar {
		ar[q] = &arena{cap: pools[q].Capacity, byStart: map[int64]int64{}, byEnd: map[int64]int64{}}
	}
	n := len(in.its)
	off := make([]int64, n)
	poolOf := make([]int, n)
	allowed := make([][]int, n)
	var single []int
	if len(pools) == 1 {
		single = []int{0}
	}
	// pins: reserved for the whole run
	pinned := make([][]span, len(pools))
	for k := range in.its {
		it := &in.its[k]
		poolOf[k] = it.pool
		if single != nil {
			allowed[k] = single
		} else {
			allowed[k] = in.allowed(k)
		}
		if it.pin >= 0 {
			off[k] = it.pin
			if it.size > 0 {
				pinned[it.pool] = append(pinned[it.pool], span{it.pin, it.pin + it.size})
			}
		}
	}
	for q, sp := range pinned {
		slices.SortFunc(sp, func(a, b span) int { return cmp.Compare(a.lo, b.lo) })
		var top int64
		for _, s := range sp {
			ar[q].add(top, s.lo, true)
			top = max(top, s.hi)
		}
		ar[q].top = top
	}
	// events: ends before starts at equal times; larger starts first
	type event struct {
		t    int64
		k    int32
		open bool
	}
	var opens, closes []int32
	for k := range in.its {
		it := &in.its[k]
		if it.pin >= 0 {
			continue
		}
		if it.size == 0 {
			off[k] = it.up(0)
			continue
		}
		opens, closes = append(opens, int32(k)), append(closes, int32(k))
	}
	its := in.its
	byTime(closes, func(k int32) int64 { return its[k].end })
	byTime(opens, func(k int32) int64 { return its[k].start })
	if !f.OpOrder { // larger first among starts at one time
		for i := 0; i < len(opens); {
			j := i + 1
			for j < len(opens) && its[opens[j]].start == its[opens[i]].start {
				j++
			}
			if j-i > 1 {
				slices.SortFunc(opens[i:j], func(a, b int32) int {
					if c := cmp.Compare(its[b].size, its[a].size); c != 0 {
						return c
					}
					return cmp.Compare(a, b)
				})
			}
			i = j
		}
	}
	evs := make([]event, 0, 2*len(opens))
	for i, j := 0, 0; i < len(opens) || j < len(closes); {
		if j < len(closes) && (i == len(opens) || its[closes[j]].end <= its[opens[i]].start) {
			evs = append(evs, event{its[closes[j]].end, closes[j], false})
			j++
		} else {
			evs = append(evs, event{its[opens[i]].start, opens[i], true})
			i++
		}
	}
	for x, ev := range evs {
		if x&4095 == 4095 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		k := int(ev.k)
		if !ev.open {
			o := off[k]
			ar[poolOf[k]].add(o, o+its[k].size, !f.NoCoalesce)
			continue
		}
		q, o, err := f.allocate(in, k, allowed[k], ar)
		if err != nil {
			return nil, err
		}
		off[k], poolOf[k] = o, q
	}
	return in.plan(off, poolOf), nil
}

// allocate finds a block for item k: reuse in each allowed pool, then fresh
// memory in the first pool with capacity, else over capacity in the last.
func (f *FreeList) allocate(in *instance, k int, allowed []int, ar []*arena) (int, int64, error) {
	it := &in.its[k]
	target := func(q int) error { // the item's alignment in pool q
		if q != it.pool {
			it.pool = q
			return in.retarget(k, q)
		}
		return nil
	}
	// fresh takes fresh memory at the top of pool q when it fits, or
	// anyway in the last pool
	fresh := func(i, q int) (int64, bool) {
		a := ar[q]
		o := it.up(a.top)
		if !a.fits(o+it.size) && i < len(allowed)-1 {
			return 0, false
		}
		a.add(a.top, o, !f.NoCoalesce)
		a.top = o + it.size
		return o, true
	}
	reuse := it.size > f.ReuseThreshold
	if f.FillFast {
		for i, q := range allowed {
			if err := target(q); err != nil {
				return 0, 0, err
			}
			if reuse {
				if o, ok := f.reuse(it, ar[q]); ok {
					return q, o, nil
				}
			}
			if o, ok := fresh(i, q); ok {
				return q, o, nil
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
		if o, ok := f.reuse(it, ar[q]); ok {
			return q, o, nil
		}
	}
	for i, q := range allowed {
		if err := target(q); err != nil {
			return 0, 0, err
		}
		if o, ok := fresh(i, q); ok {
			return q, o, nil
		}
	}
	return 0, 0, nil // unreachable: allowed is never empty for a valid problem
}

// reuse applies rules 2–4 in one arena.
func (f *FreeList) reuse(it *item, a *arena) (int64, bool) {
	if f.SplitLargest {
		if o, ok := f.reuseLargest(it, a); ok {
			return o, true
		}
	} else if o, ok := f.reuseSmallest(it, a); ok {
		return o, true
	}
	// rule 4: the largest block sits at the end of the arena
	if f.NoExtend {
		return 0, false
	}
	if m := a.bySize.max(); m != nil && m.off+m.size == a.top {
		c := it.up(m.off)
		if c+it.size > a.top && a.fits(c+it.size) {
			lo, hi := m.off, a.top
			a.del(lo, hi)
			a.add(lo, c, false)
			a.top = c + it.size
			return c, true
		}
	}
	return 0, false
}

// take gives the item bytes [c, c+size) of the free block [lo, hi).
func (a *arena) take(lo, hi, c, size int64) {
	a.del(lo, hi)
	a.add(lo, c, false)
	a.add(c+size, hi, false)
}

// reuseSmallest applies rules 2 and 3: the smallest block ≥ size that holds
// the aligned item.
func (f *FreeList) reuseSmallest(it *item, a *arena) (int64, bool) {
	for n := a.bySize.ceil(it.size, -1); n != nil; n = a.bySize.ceil(n.size, n.off+1) {
		lo, hi := n.off, n.off+n.size
		c := it.up(lo)
		if c+it.size > hi {
			continue
		}
		exact := c == lo && n.size == it.size
		if exact && f.NoExact {
			continue
		}
		if !exact && f.NoSplit {
			break
		}
		a.take(lo, hi, c, it.size)
		return c, true
	}
	return 0, false
}

// reuseLargest applies rules 2 and 3 the source's way: a block of exactly
// the size if there is one (rule 2), else the largest block, split.
func (f *FreeList) reuseLargest(it *item, a *arena) (int64, bool) {
	if !f.NoExact {
		if n := a.bySize.ceil(it.size, -1); n != nil && n.size == it.size && it.up(n.off) == n.off {
			a.take(n.off, n.off+n.size, n.off, it.size)
			return n.off, true
		}
	}
	if f.NoSplit {
		return 0, false
	}
	// the largest block that holds the aligned item (alignment may leave
	// the largest short: then the next largest)
	for n := a.bySize.max(); n != nil && n.size >= it.size; n = a.bySize.below(n.size, n.off) {
		lo, hi := n.off, n.off+n.size
		c := it.up(lo)
		if c+it.size > hi || (f.NoExact && c == lo && n.size == it.size) {
			continue
		}
		a.take(lo, hi, c, it.size)
		return c, true
	}
	return 0, false
}

// below returns the largest key < (s, o), or nil.
func (t *treap) below(s, o int64) *tnode {
	var best *tnode
	for n := t.root; n != nil; {
		if keyLess(n.size, n.off, s, o) {
			best, n = n, n.r
		} else {
			n = n.l
		}
	}
	return best
}

// byTime sorts item indices by (time, index): as packed words when the
// times span less than 2³², else with a comparison.
func byTime(ks []int32, at func(k int32) int64) {
	if len(ks) == 0 {
		return
	}
	lo, hi := at(ks[0]), at(ks[0])
	for _, k := range ks {
		lo, hi = min(lo, at(k)), max(hi, at(k))
	}
	if uint64(hi)-uint64(lo) >= 1<<32 {
		slices.SortFunc(ks, func(a, b int32) int {
			if c := cmp.Compare(at(a), at(b)); c != 0 {
				return c
			}
			return cmp.Compare(a, b)
		})
		return
	}
	keys := make([]uint64, len(ks))
	for i, k := range ks {
		keys[i] = (uint64(at(k))-uint64(lo))<<32 | uint64(uint32(k))
	}
	slices.Sort(keys)
	for i, v := range keys {
		ks[i] = int32(uint32(v))
	}
}
