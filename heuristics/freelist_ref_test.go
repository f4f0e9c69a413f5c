package heuristics

// The free-list planner before its blocks moved into one address-ordered
// array (see blocks.go): kept as the reference that TestFreeListMatchesReference
// compares the planner with, placement for placement.

import (
	"cmp"
	"context"
	"slices"

	"github.com/optalloc/optalloc/model"
)

// refArena is the free-list state of one pool.
type refArena struct {
	cap     int64 // 0 = unbounded
	top     int64
	bySize  refTreap
	byStart map[int64]int64 // start → end of free blocks
	byEnd   map[int64]int64 // end → start
}

func (a *refArena) add(lo, hi int64, coalesce bool) {
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

func (a *refArena) del(lo, hi int64) {
	delete(a.byStart, lo)
	delete(a.byEnd, hi)
	a.bySize.remove(hi-lo, lo)
}

func (a *refArena) fits(end int64) bool { return a.cap == 0 || end <= a.cap }

// refPlan is the free-list planner as it was before the address-ordered
// blocks (maps by address, pointer refTreap): the reference the new one must
// match offset for offset.
func (f *FreeList) refPlan(ctx context.Context, p *model.Problem) (*model.Plan, error) {
	in, err := newInstance(ctx, p)
	if err != nil {
		return nil, err
	}
	pools := p.PoolList()
	ar := make([]*refArena, len(pools))
	for q := range ar {
		ar[q] = &refArena{cap: pools[q].Capacity, byStart: map[int64]int64{}, byEnd: map[int64]int64{}}
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
	refByTime(closes, func(k int32) int64 { return its[k].end })
	refByTime(opens, func(k int32) int64 { return its[k].start })
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
		q, o, err := f.refAllocate(in, k, allowed[k], ar)
		if err != nil {
			return nil, err
		}
		off[k], poolOf[k] = o, q
	}
	return in.plan(off, poolOf), nil
}

// allocate finds a block for item k: reuse in each allowed pool, then fresh
// memory in the first pool with capacity, else over capacity in the last.
func (f *FreeList) refAllocate(in *instance, k int, allowed []int, ar []*refArena) (int, int64, error) {
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
				if o, ok := f.refReuse(it, ar[q]); ok {
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
		if o, ok := f.refReuse(it, ar[q]); ok {
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

// reuse applies rules 2–4 in one refArena.
func (f *FreeList) refReuse(it *item, a *refArena) (int64, bool) {
	if f.SplitLargest {
		if o, ok := f.refReuseLargest(it, a); ok {
			return o, true
		}
	} else if o, ok := f.refReuseSmallest(it, a); ok {
		return o, true
	}
	// rule 4: the largest block sits at the end of the refArena
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
func (a *refArena) take(lo, hi, c, size int64) {
	a.del(lo, hi)
	a.add(lo, c, false)
	a.add(c+size, hi, false)
}

// reuseSmallest applies rules 2 and 3: the smallest block ≥ size that holds
// the aligned item.
func (f *FreeList) refReuseSmallest(it *item, a *refArena) (int64, bool) {
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
func (f *FreeList) refReuseLargest(it *item, a *refArena) (int64, bool) {
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
func (t *refTreap) below(s, o int64) *refNode {
	var best *refNode
	for n := t.root; n != nil; {
		if refKeyLess(n.size, n.off, s, o) {
			best, n = n, n.r
		} else {
			n = n.l
		}
	}
	return best
}

// byTime sorts item indices by (time, index): as packed words when the
// times span less than 2³², else with a comparison.
func refByTime(ks []int32, at func(k int32) int64) {
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

type refTreap struct {
	root *refNode
	free *refNode // removed nodes, chained by r, reused by insert
}

type refNode struct {
	size, off int64
	pri       uint64
	l, r      *refNode
}

func refKeyLess(as, ao, bs, bo int64) bool { return as < bs || (as == bs && ao < bo) }

func refMix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// split cuts t into keys < (s, o) and keys ≥ (s, o).
func refSplit(t *refNode, s, o int64) (l, r *refNode) {
	if t == nil {
		return nil, nil
	}
	if refKeyLess(t.size, t.off, s, o) {
		t.r, r = refSplit(t.r, s, o)
		return t, r
	}
	l, t.l = refSplit(t.l, s, o)
	return l, t
}

func refMerge(l, r *refNode) *refNode {
	switch {
	case l == nil:
		return r
	case r == nil:
		return l
	case l.pri > r.pri:
		l.r = refMerge(l.r, r)
		return l
	default:
		r.l = refMerge(l, r.l)
		return r
	}
}

// insert adds (size, off), which must not be in t. It walks down to the
// first node of lower priority and splits only that subtree: the same
// refTreap as split-and-merge, with fewer writes, and no allocation while
// removed nodes are left to recycle.
func (t *refTreap) insert(size, off int64) {
	n := t.free
	if n != nil {
		t.free = n.r
	} else {
		n = &refNode{}
	}
	*n = refNode{size: size, off: off, pri: refMix(uint64(size)*31 + uint64(off))}
	link := &t.root
	for *link != nil && (*link).pri > n.pri {
		if refKeyLess((*link).size, (*link).off, size, off) {
			link = &(*link).r
		} else {
			link = &(*link).l
		}
	}
	n.l, n.r = refSplit(*link, size, off)
	*link = n
}

// remove deletes (size, off) if present: its two subtrees are merged in
// its place.
func (t *refTreap) remove(size, off int64) {
	link := &t.root
	for n := *link; n != nil; n = *link {
		switch {
		case n.size == size && n.off == off:
			*link = refMerge(n.l, n.r)
			n.l, n.r = nil, t.free
			t.free = n
			return
		case refKeyLess(n.size, n.off, size, off):
			link = &n.r
		default:
			link = &n.l
		}
	}
}

// ceil returns the smallest key ≥ (s, o), or nil.
func (t *refTreap) ceil(s, o int64) *refNode {
	var best *refNode
	for n := t.root; n != nil; {
		if refKeyLess(n.size, n.off, s, o) {
			n = n.r
		} else {
			best, n = n, n.l
		}
	}
	return best
}

// max returns the largest key, or nil.
func (t *refTreap) max() *refNode {
	n := t.root
	for n != nil && n.r != nil {
		n = n.r
	}
	return n
}
