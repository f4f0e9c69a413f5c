package bnb

// checkEvery is how often (in nodes) a search looks at its limits, on
// components below largeComp items; on larger ones it looks at every node
// (a variable: tests look at every node so that tiny limits bite).
var checkEvery int64 = 1 << 8

const largeComp = 1024

// tick counts a node and checks the limits; it reports whether to stop.
func (s *searcher) tick() bool {
	s.st.Nodes++
	s.nodes++
	s.own++
	if s.nodes&s.checkMask == 0 {
		if s.stop.Load() || s.ctx.Err() != nil || s.outOfNodes() {
			s.aborted = true
		}
	}
	return s.aborted
}

// outOfNodes reports whether the search has reached its node limit and must
// stop; a search that can pause (s.pause) waits there for a higher limit
// instead, and stops only when it gets none.
func (s *searcher) outOfNodes() bool {
	if s.limit <= 0 || s.nodes < s.limit {
		return false
	}
	return s.pause == nil || !s.pause()
}

// stopping reports whether the search must return without trying more:
// aborted, or unwinding to a failed split.
func (s *searcher) stopping() bool { return s.aborted || s.unwind >= 0 }

// solve searches below the current state; it returns true when every item
// is placed (offsets in s.off) and false on failure, abort (s.aborted) or
// unwind (s.unwind ≥ 0).
func (s *searcher) solve(depth int) bool {
	if s.tick() {
		return false
	}
	nForced, ok := s.forceFree()
	s.st.Forced += int64(nForced)
	if !ok {
		s.st.prunes[pruneCapacity]++
	}
	if len(s.stack) > s.maxPlaced {
		s.maxPlaced = len(s.stack)
	}
	if ok && s.node(depth) {
		return true
	}
	for ; nForced > 0; nForced-- {
		s.unplaceLast()
	}
	return false
}

// forceFree makes the forced placements: an unplaced item that conflicts
// with nothing unplaced goes to its minimum offset without branching, and
// without moving the canonical position (it interacts with nothing left).
// It returns how many it placed (unplaceLast undoes them) and false when
// one of them does not fit.
func (s *searcher) forceFree() (int, bool) {
	if !s.fl.shortcut || s.free == 0 {
		return 0, true
	}
	c := s.c
	n := int32(c.n)
	nForced := 0
	ok := true
	for r := s.next[n]; r != n && ok; r = s.next[r] {
		i := s.byRank[r]
		if s.is[i].deg != 0 || s.is[i].hidden {
			continue
		}
		o := s.is[i].minOff
		if p := c.pin[i]; p >= 0 {
			o = p
		}
		ok = s.place(i, o)
		nForced++
	}
	return nForced, ok
}

// node handles a state after the forced placements: completion (or the
// next pending group), the memo, splits, then branching.
func (s *searcher) node(depth int) bool {
	if s.active == 0 {
		if len(s.pending) == 0 {
			return true
		}
		return s.nextGroup(depth)
	}
	var key uint64
	if s.memo != nil {
		key = s.hash ^ zobrist(-1-s.blockedRank(), s.lastOff)
		if s.memo.failed(key, s.capacity) {
			s.st.prunes[pruneMemo]++
			return false
		}
	}
	var found bool
	if s.fl.split && s.active > 1 && s.split(depth, &found) {
		if !found && !s.aborted && s.memo != nil {
			s.memo.store(key, s.capacity)
		}
		return found
	}
	found = s.branch(depth)
	if !found && !s.stopping() && s.memo != nil {
		s.memo.store(key, s.capacity)
	}
	return found
}

// nextGroup continues with the next pending group once the current one is
// placed. When it fails, the split it came from fails: s.unwind makes every
// search in between return at once.
func (s *searcher) nextGroup(depth int) bool {
	g := s.pending[len(s.pending)-1]
	s.pending = s.pending[:len(s.pending)-1]
	s.hide(s.groups[g.lo:g.hi], false)
	saveOff, saveRank := s.lastOff, s.lastRank
	s.lastOff, s.lastRank = g.lastOff, g.lastRank
	found := s.solve(depth)
	if s.aborted {
		// Stopped: reset rebuilds the whole state before the searcher is
		// used again, so the restoring (O(group × sections) per level)
		// is skipped. It had kept a search of 10 000 buffers running
		// 0.3–0.5 s past its time limit.
		return false
	}
	s.lastOff, s.lastRank = saveOff, saveRank
	s.hide(s.groups[g.lo:g.hi], true)
	s.pending = append(s.pending, g)
	if !found && !s.aborted && s.unwind < 0 {
		s.unwind = g.split
		s.st.prunes[pruneSplit]++
	}
	return found
}

// hide hides (or shows again) the items of a group: they leave the active
// set, the state hash and the sections' unplaced totals, so the search
// state is exactly that of the active group alone.
func (s *searcher) hide(items []int32, h bool) {
	c := s.c
	for _, i := range items {
		s.is[i].hidden = h
		sz, rs := c.size[i], c.rsize[i]
		if h {
			s.active--
			sz, rs = -sz, -rs
		} else {
			s.active++
		}
		s.hash ^= zobrist(i, s.is[i].minOff)
		for sec := c.secLo[i]; sec < c.secHi[i]; sec++ {
			s.unpl[sec] += sz
			if s.stacks {
				s.unplR[sec] += rs
			}
		}
		s.crossing(i, !h)
	}
}

// split looks for time-disjoint groups among the active unplaced items. When
// there are several, it solves them one after the other (the first here,
// the others through nextGroup) and reports true with the outcome in found.
func (s *searcher) split(depth int, found *bool) bool {
	c := s.c
	if !s.cut() {
		return false
	}
	// Count the groups: in start order, a group ends where no earlier item
	// reaches the next start.
	var end int32 = -1
	groups := 0
	n := int32(c.n)
	snext, byStart, is, start, stop := s.snext[:n+1], s.byStart[:n], s.is[:n], c.start[:n], c.end[:n]
	for p := snext[n]; p != n && groups < 2; p = snext[p] {
		i := byStart[p]
		if is[i].hidden {
			continue
		}
		if start[i] >= end {
			groups++
		}
		end = max(end, stop[i])
	}
	if groups < 2 {
		return false
	}
	s.st.Splits++
	s.splits++
	id := s.splits
	base := len(s.groups)
	pend := len(s.pending)
	// Hide every group but the first; push them so that the second is
	// solved next.
	end = -1
	g := 0
	var bounds [2]int
	lo := base
	for p := s.snext[n]; p != n; p = s.snext[p] {
		i := s.byStart[p]
		if s.is[i].hidden {
			continue
		}
		if c.start[i] >= end {
			g++
			if g > 2 {
				bounds = [2]int{lo, len(s.groups)}
				s.pending = append(s.pending, group{lo: bounds[0], hi: bounds[1], lastOff: s.lastOff, lastRank: s.lastRank, split: id})
			}
			lo = len(s.groups)
		}
		end = max(end, c.end[i])
		if g >= 2 {
			s.groups = append(s.groups, i)
		}
	}
	s.pending = append(s.pending, group{lo: lo, hi: len(s.groups), lastOff: s.lastOff, lastRank: s.lastRank, split: id})
	// pending[pend:] holds groups 2..k in time order; reverse so that the
	// top of the stack is group 2.
	for a, b := pend, len(s.pending)-1; a < b; a, b = a+1, b-1 {
		s.pending[a], s.pending[b] = s.pending[b], s.pending[a]
	}
	s.hide(s.groups[base:], true)
	*found = s.branch(depth)
	if *found || s.aborted { // aborted: no restoring (see nextGroup)
		return true
	}
	s.hide(s.groups[base:], false)
	s.pending = s.pending[:pend]
	s.groups = s.groups[:base]
	if s.unwind == id {
		s.unwind = -1
	}
	return true
}

// branch tries every canonical, undominated candidate for the next
// placement.
func (s *searcher) branch(depth int) bool {
	cs, ok := s.candidates(depth)
	if !ok {
		return false
	}
	saveOff, saveRank := s.lastOff, s.lastRank
	start, nextCheck := s.own, windowAfter
	for k := range cs {
		cd := cs[k]
		if s.place(cd.it, cd.off) {
			if s.fl.canonical {
				s.lastOff, s.lastRank = cd.off, cd.rank
			}
			if s.solve(depth + 1) {
				return true
			}
			s.lastOff, s.lastRank = saveOff, saveRank
		} else {
			s.st.prunes[pruneCapacity]++
		}
		s.unplaceLast()
		s.st.Backtracks++
		if s.stopping() {
			return false
		}
		if s.fl.windows && k+1 < len(cs) && s.windowCheck(start, &nextCheck) {
			return false
		}
	}
	return false
}

// candidates returns the canonical, undominated candidates for the next
// placement in the order branch tries them (in s.cands[depth]), or false
// when the node is pruned: a pinned item can no longer come in canonical
// order, dominance, or the section bounds. Pass 1 also files every item's
// lowest possible offset in sectionBounds' buckets (one walk over the
// unplaced items instead of two; issue 44): the items that canonical order
// keeps off their minimum offset wait in s.deferred, as theirs depends on
// the smallest unplaced size. Without buckets (large capacities)
// sectionBounds walks the items itself.
func (s *searcher) candidates(depth int) ([]cand, bool) {
	c := s.c
	n := int32(c.n)
	const inf = int64(1) << 62
	min1, min2 := inf, inf
	min1It := int32(-1)
	gmin := inf // smallest unplaced size
	secs := s.fl.sections
	buckets := secs && s.useBuckets()
	lastOff, lastRank, capacity := s.lastOff, s.lastRank, s.capacity
	over := false // some item cannot fit above its lowest possible offset
	// The slices in locals: the stores below would make the compiler
	// reload every field of s at each item.
	next, byRank, is := s.next[:n+1], s.byRank[:n], s.is[:n]
	bucket, bmask, chain := s.bucket, s.bmask, s.chain[:n]
	deferred := s.deferred[:0]
	// Pass 1: dominance bounds, dead states, and the items filed by their
	// lowest possible offset.
	for r := next[n]; r != n; r = next[r] {
		i := byRank[r]
		it := &is[i]
		if it.hidden {
			continue
		}
		sz := it.size
		gmin = min(gmin, sz)
		e := it.pin
		if e >= 0 {
			if e < lastOff || (e == lastOff && r < lastRank) {
				// A pinned item can no longer come in canonical order.
				s.st.prunes[pruneCanonical]++
				s.unfile(buckets)
				return nil, false
			}
		} else {
			e = it.minOff
			if t := e + sz; t < min2 {
				if t < min1 {
					min1, min2, min1It = t, min1, i
				} else {
					min2 = t
				}
			}
			if e < lastOff || (e == lastOff && r < lastRank) {
				if buckets {
					deferred = append(deferred, i)
				}
				continue
			}
		}
		if !buckets {
			continue
		}
		if e+sz > capacity {
			over = true
			continue
		}
		w, bit := e>>6, uint64(1)<<(e&63)
		head := int32(-1)
		if bmask[w]&bit != 0 {
			head = bucket[e]
		}
		chain[i] = head
		bucket[e] = i
		bmask[w] |= bit
	}
	s.deferred = deferred
	if s.fl.dominance && min1 <= lastOff {
		// Some free item fits entirely below the last placement: it
		// could be lowered there, so this is not a minimal packing.
		s.st.prunes[pruneDominance]++
		s.unfile(buckets)
		return nil, false
	}
	if secs && !s.sectionBounds(gmin, buckets, over) {
		s.st.prunes[pruneFloor]++
		return nil, false
	}
	// Pass 2: candidates in (offset, rank) order.
	cs := s.cands[depth][:0]
	twin := s.twin[:n]
	dominance, byOffset := s.fl.dominance, s.fl.byOffset
	for r := next[n]; r != n; r = next[r] {
		i := byRank[r]
		it := &is[i]
		if it.hidden {
			continue
		}
		o := it.minOff
		if p := it.pin; p >= 0 {
			o = p
		}
		if o < lastOff || (o == lastOff && r < lastRank) {
			continue
		}
		if tw := twin[i]; tw >= 0 && !is[tw].placed {
			continue
		}
		if dominance {
			bound := min1
			if i == min1It {
				bound = min2
			}
			if bound <= o {
				continue
			}
		}
		k := len(cs)
		cs = append(cs, cand{})
		for byOffset && k > 0 && cs[k-1].off > o {
			cs[k] = cs[k-1]
			k--
		}
		cs[k] = cand{off: o, rank: r, it: i}
	}
	s.cands[depth] = cs
	return cs, true
}

// blockedRank normalises the canonical position for the table of failed
// states: of lastRank only matters which unplaced items sit exactly at the
// last offset with a lower rank (they are blocked), so the highest such
// rank (or -1) identifies the same future.
func (s *searcher) blockedRank() int32 {
	n := int32(s.c.n)
	b := int32(-1)
	next, byRank, is := s.next[:n+1], s.byRank[:n], s.is[:n]
	lastRank, lastOff := s.lastRank, s.lastOff
	for r := next[n]; r != n && r < lastRank; r = next[r] {
		it := &is[byRank[r]]
		v := it.pin
		if v < 0 {
			v = it.minOff
		}
		if !it.hidden && v == lastOff {
			b = r
		}
	}
	return b
}

// value is the lowest offset item i can take now: its pin or its minimum
// offset.
func (s *searcher) value(i int32) int64 {
	if p := s.c.pin[i]; p >= 0 {
		return p
	}
	return s.is[i].minOff
}

// crossing counts item i in (in true) or out of the section boundaries it
// spans.
func (s *searcher) crossing(i int32, in bool) {
	d := int32(-1)
	if in {
		d = 1
	}
	cross := s.cross
	for k := s.c.secLo[i] + 1; k < s.c.secHi[i]; k++ {
		cross[k] += d
	}
}

// cut reports whether the active unplaced items fall into two time-disjoint
// groups or more, as split's count does, in O(sections) without walking
// the items (issue 44: split's walk was 9% of I's instructions): a
// boundary no active item crosses with active items on both sides. Every
// item covers a section (a maximal clique), and two items alive together
// share one, so no item lies on both sides of such a boundary.
func (s *searcher) cut() bool {
	unpl, cross := s.unpl, s.cross
	seen, gap := false, false
	for sec, u := range unpl {
		if seen && cross[sec] == 0 {
			gap = true
		}
		if u > 0 {
			if gap {
				return true
			}
			seen = true
		}
	}
	return false
}
