package bnb

import (
	"cmp"
	"math/bits"
	"slices"
)

// sectionBounds checks every section with unplaced items: they stack
// disjointly, each at or above its lowest possible offset e (its pin, its
// minimum offset, or, when canonical order forbids that, the last
// placement's offset plus the smallest size of an unplaced item, or of an
// item it conflicts with: a later placement that conflicts with it must
// raise it). With e_k the k-th lowest e in a section and S_k the sizes of
// the k−1 items below it, e_k + total − S_k must fit under the capacity
// for the paintLevels lowest; so must every item's e + size. The items are
// ordered by e (buckets, O(n + capacity), when the capacity is at most 16n
// units; a sort, O(n log n), above), then, lowest first, each paints the
// sections of its span that fewer than paintLevels items have painted (a
// union-find skips the finished ones). Above 16n units this replaced an
// O(total span) pass that took 93% of the time on bert_base (sizes with
// GCD 1).
//
// With buckets, candidates files the items as it walks them but those
// in s.deferred, whose e needs gmin, the smallest unplaced size.
// The buckets are read in place, lowest first, as the items paint (issue
// 44): on MiniMalloc's I seven calls in ten fail, after painting about a
// tenth of the unplaced items, so gathering them all in order first was
// wasted. A bucket's head is valid only while its bit in bmask is set, so
// nothing but the bits needs clearing, from the last placement's offset
// (every e is at or above it) to the capacity. The answer does
// not depend on the order of items with equal e (the first of them painted
// gives the strongest check of a section; the others' are weaker).
func (s *searcher) sectionBounds(gmin int64, buckets, over bool) bool {
	c := s.c
	if over || s.hotSec >= 0 && s.hotFails(gmin) {
		s.unfile(buckets)
		return false
	}
	if !buckets {
		return s.sortedBounds(gmin)
	}
	for _, i := range s.deferred {
		e := alignUp(s.lastOff+max(gmin, c.minConf[i]), c.align[i])
		if e+c.size[i] > s.capacity {
			s.unfile(buckets)
			return false
		}
		w, bit := e>>6, uint64(1)<<(e&63)
		head := int32(-1)
		if s.bmask[w]&bit != 0 {
			head = s.bucket[e]
		}
		s.chain[i] = head
		s.bucket[e] = i
		s.bmask[w] |= bit
	}
	s.clearPaint()
	// Only the non-empty buckets, found by their bits, each cleared as it
	// is read.
	lw, hw := s.bucketWords()
	bmask, bucket, chain := s.bmask, s.bucket, s.chain
	if s.stacks {
		for w := lw; w <= hw; w++ {
			m := bmask[w]
			bmask[w] = 0
			for ; m != 0; m &= m - 1 {
				e := w<<6 + int64(bits.TrailingZeros64(m))
				for j := bucket[e]; j >= 0; j = chain[j] {
					if !s.paint(j, e) {
						clear(bmask[w+1 : hw+1])
						return false
					}
				}
			}
		}
		return true
	}
	// paint, inlined (the calls were 3% of I's instructions).
	unpl, secSize, painted, skip, capacity := s.unpl, s.secSize, s.painted, s.skip, s.capacity
	secLo, secHi, size := c.secLo, c.secHi, c.size
	for w := lw; w <= hw; w++ {
		m := bmask[w]
		bmask[w] = 0
		for ; m != 0; m &= m - 1 {
			e := w<<6 + int64(bits.TrailingZeros64(m))
			for j := bucket[e]; j >= 0; j = chain[j] {
				sz, hi := size[j], secHi[j]
				for sec := find(skip, secLo[j]); sec < hi; sec = find(skip, sec+1) {
					if e+unpl[sec]-secSize[sec] > capacity {
						if painted[sec] == 0 && s.secStart != nil {
							s.hotSec = sec
						}
						clear(bmask[w+1 : hw+1])
						return false
					}
					secSize[sec] += sz
					if painted[sec]++; painted[sec] == paintLevels {
						skip[sec] = sec + 1
					}
				}
			}
		}
	}
	return true
}

// hotFails reports whether the section where the section bounds last
// failed on their first level fails again: the lowest e of its active
// unplaced items plus their total above the capacity. That is the check
// the first item to paint the section makes, so a true answer is
// sectionBounds' own (false). On MiniMalloc's A–K nearly every failure is
// at that first level, and on I 82% are at the same section as the last
// one (issue 44): this skips the clearing and the painting there.
func (s *searcher) hotFails(gmin int64) bool {
	c := s.c
	sec := s.hotSec
	// It fails when every active item's e is above room (one at or below
	// answers at once).
	room := s.capacity - s.unpl[sec]
	any := false
	is, rank := s.is, s.rank
	lastOff, lastRank := s.lastOff, s.lastRank
	for _, i := range s.secList[s.secStart[sec]:s.secStart[sec+1]] {
		it := &is[i]
		if it.placed || it.hidden {
			continue
		}
		e := it.pin
		if e < 0 {
			e = it.minOff
			if e < lastOff || (e == lastOff && rank[i] < lastRank) {
				e = alignUp(lastOff+max(gmin, c.minConf[i]), c.align[i])
			}
		}
		if e <= room {
			return false
		}
		any = true
	}
	return any
}

// sectionItems lists the items of each section (CSR: section k's are
// secList[secStart[k]:secStart[k+1]]) for hotFails, when they number at
// most 64 per item (else it leaves secStart nil and hotFails unused).
func (s *searcher) sectionItems() {
	c := s.c
	total := 0
	for i := range c.n {
		total += int(c.secHi[i] - c.secLo[i])
	}
	if total > 64*c.n {
		return
	}
	s.secStart = make([]int32, c.nsec+1)
	for i := range c.n {
		for sec := c.secLo[i]; sec < c.secHi[i]; sec++ {
			s.secStart[sec+1]++
		}
	}
	for k := range c.nsec {
		s.secStart[k+1] += s.secStart[k]
	}
	s.secList = make([]int32, total)
	fill := slices.Clone(s.secStart[:c.nsec])
	for i := range int32(c.n) {
		for sec := c.secLo[i]; sec < c.secHi[i]; sec++ {
			s.secList[fill[sec]] = i
			fill[sec]++
		}
	}
}

// useBuckets reports whether sectionBounds orders the items by buckets
// (the capacity is at most 16n + 1024 units), making them for a larger
// capacity than before.
func (s *searcher) useBuckets() bool {
	if s.capacity > 16*int64(s.c.n)+1024 {
		return false
	}
	if int64(len(s.bucket)) < s.capacity+1 {
		s.bucket = make([]int32, s.capacity+1)
		s.bmask = make([]uint64, (s.capacity+64)/64)
	}
	return true
}

// bucketWords is the range of the words of bmask that can be in use: every
// item filed lies at or above the last placement's offset (canonical
// order) and below the capacity.
func (s *searcher) bucketWords() (lo, hi int64) {
	return s.lastOff >> 6, (s.capacity - 1) >> 6
}

// unfile empties the buckets of a node pruned before its items painted.
func (s *searcher) unfile(buckets bool) {
	if lo, hi := s.bucketWords(); buckets && lo <= hi {
		clear(s.bmask[lo : hi+1])
	}
}

// sortedBounds is sectionBounds without buckets: every item's e, then a
// sort.
func (s *searcher) sortedBounds(gmin int64) bool {
	c := s.c
	n := int32(c.n)
	s.byE = s.byE[:0]
	for r := s.next[n]; r != n; r = s.next[r] {
		i := s.byRank[r]
		if s.is[i].hidden {
			continue
		}
		e := c.pin[i]
		if e < 0 {
			e = s.is[i].minOff
			if e < s.lastOff || (e == s.lastOff && r < s.lastRank) {
				e = alignUp(s.lastOff+max(gmin, c.minConf[i]), c.align[i])
			}
		}
		if e+c.size[i] > s.capacity {
			return false
		}
		s.effOf[i] = e
		s.byE = append(s.byE, i)
	}
	s.clearPaint()
	slices.SortFunc(s.byE, func(a, b int32) int { return cmp.Compare(s.effOf[a], s.effOf[b]) })
	for _, j := range s.byE {
		if !s.paint(j, s.effOf[j]) {
			return false
		}
	}
	return true
}

// clearPaint prepares the painting: no section painted, none skipped.
func (s *searcher) clearPaint() {
	nsec := int32(s.c.nsec)
	for sec := int32(0); sec <= nsec; sec++ {
		s.skip[sec] = sec
	}
	clear(s.painted)
	clear(s.secSize)
	if s.stacks {
		clear(s.secSizeR)
	}
}

// paint lets item j, at lowest possible offset e, paint the sections of its
// span that fewer than paintLevels items have painted, checking each; it
// reports false when a section cannot hold its unplaced items.
func (s *searcher) paint(j int32, e int64) bool {
	c := s.c
	sz, hi := c.size[j], c.secHi[j]
	unpl, secSize, painted, skip := s.unpl, s.secSize, s.painted, s.skip
	capacity := s.capacity
	for sec := find(skip, c.secLo[j]); sec < hi; sec = find(skip, sec+1) {
		// Every unplaced item of the section not painted yet lies at or
		// above e.
		if e+unpl[sec]-secSize[sec] > capacity {
			if painted[sec] == 0 && s.secStart != nil {
				s.hotSec = sec
			}
			return false
		}
		if s.stacks {
			// So do its aligned items, stacked with their waste.
			if c.stackTop(e, s.unplR[sec]-s.secSizeR[sec]) > capacity {
				return false
			}
			s.secSizeR[sec] += c.rsize[j]
		}
		secSize[sec] += sz
		if painted[sec]++; painted[sec] == paintLevels {
			skip[sec] = sec + 1
		}
	}
	return true
}

// find is the first section at or after x painted fewer than paintLevels
// times (nsec when none), with path compression.
func find(skip []int32, x int32) int32 {
	r := x
	for skip[r] != r {
		r = skip[r]
	}
	for skip[x] != r {
		skip[x], x = r, skip[x]
	}
	return r
}

// paintLevels is how many of the lowest items of a section sectionBounds
// uses: with e_k the k-th lowest possible offset and S_k the sizes of the
// k−1 items below, e_k + total − S_k must fit under the capacity.
const paintLevels = 6
