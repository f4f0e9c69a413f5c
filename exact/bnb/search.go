package bnb

import (
	"context"
	"slices"
	"sync/atomic"
)

// flags are the pruning switches of one search, taken from Options.
type flags struct {
	sections, dominance, shortcut, memo, split, byOffset, symmetry, alignStacks, canonical, windows bool
	// memoMax, when > 0, caps the entries of the table of failed states.
	memoMax int
}

// searcher runs the canonical depth-first search on one component with one
// static order. Its state is changed in place and undone in O(1) per
// change; the hot loop does not allocate.
type searcher struct {
	c    *comp
	fl   flags
	rank []int32 // static rank of each item (canonical tie-break)
	// twin[i] is the identical item of the next lower rank, or -1: i may
	// only be placed after it (identical items are interchangeable, so
	// placing them in rank order loses no packing).
	twin []int32

	capacity int64
	// is holds each item's search state with its size and pin, side by
	// side: the hot loops read them together (issue 44).
	is       []itemState
	off      []int64  // offsets of placed items
	free     int      // unplaced items with deg 0 (hidden or not): forceFree has work
	floor    []int64  // per section: top of the placed items
	unpl     []int64  // per section: total size of the unplaced items
	unplR    []int64  // per section: total rounded size of the unplaced aligned items (comp.rsize)
	stacks   bool     // aligned stacks are on and the component has aligned items
	secSizeR []int64  // scratch: per section, rounded size of the aligned items painted so far
	secSize  []int64  // scratch: per section, size of the items painted so far
	painted  []uint8  // scratch: how many items have painted a section (0..paintLevels)
	skip     []int32  // scratch: next section painted fewer than paintLevels times (union-find)
	bucket   []int32  // scratch: first item of each offset (counting sort)
	bmask    []uint64 // scratch: bit e set when bucket[e] is not empty
	chain    []int32  // scratch: next item in the same bucket
	effOf    []int64  // scratch: lowest possible offset of each item
	byE      []int32  // scratch: unplaced items by lowest possible offset
	deferred []int32  // scratch: unplaced items canonical order keeps off their minimum offset
	// The items of each section (sectionItems; nil when too many) and the
	// section where the section bounds last failed at their first level
	// (-1: none yet), checked first (hotFails).
	secStart, secList []int32
	hotSec            int32
	// cross[k]: active unplaced items across the boundary between
	// sections k−1 and k (secLo < k < secHi); split's quick test (cut).
	cross []int32

	// Unplaced items in rank order, as a doubly linked list over ranks
	// (index n is the sentinel): removal and restore are O(1).
	next, prev []int32
	byRank     []int32

	trail []undo
	hash  uint64 // Zobrist hash of (unplaced item, min offset) pairs

	lastOff  int64 // canonical order: the last branching placement
	lastRank int32

	cands [][]cand // per depth, preallocated
	stack []int32  // placement order (forced and branching)
	marks []int    // trail length before each placement

	memo *memo

	// Independent sub-problems: when the active unplaced items split into
	// time-disjoint groups, all groups but one are hidden and solved later,
	// each on its own; a later group's failure unwinds to the split.
	active  int     // unplaced items not hidden
	byStart []int32 // items by start rank
	// Unplaced items in start order, as a doubly linked list over their
	// positions in byStart (index n is the sentinel): split walks the
	// unplaced items only.
	snext, sprev []int32
	startPos     []int32 // position of each item in byStart
	pending      []group // groups waiting for the current one to be placed
	groups       []int32 // storage of the pending groups' items
	unwind       int     // ≥ 0: a split that failed; unwind to it without searching
	splits       int     // split counter (ids)

	nodes, limit  int64
	checkMask     int64 // the limits are checked when nodes&checkMask == 0
	own           int64 // nodes of this search alone, for its whole life (nodes also counts window searches and restarts each round)
	windowWork    int64 // nodes of this search's window searches, for its whole life (st's counters are emptied after each decision)
	maxPlaced     int   // deepest state reached (placed items), for diagnostics
	windowRefutes int64 // states this search's window checks refuted, for its whole life
	aborted       bool
	pause         func() bool // at the node limit: true once the limit was raised (go on), false to stop (resume.go)
	stop          *atomic.Bool
	ctx           context.Context
	st            *counters
}

// itemState is an item's part of the search state, with copies of its
// size and pin (comp's).
type itemState struct {
	minOff    int64 // lowest offset the item can take while unplaced (aligned)
	size, pin int64
	deg       int32 // number of unplaced conflicting items
	placed    bool
	hidden    bool // in a group waiting for the current one (split)
}

type undo struct {
	idx int32 // ≥ 0: minOff of item idx; < 0: floor of section -idx-1
	old int64
}

type group struct {
	lo, hi   int // items in groups[lo:hi]
	lastOff  int64
	lastRank int32
	split    int // id of the split that made it
}

type cand struct {
	off  int64
	rank int32
	it   int32
}

func newSearcher(c *comp, order []int32, fl flags, st *counters) *searcher {
	n := c.n
	s := &searcher{c: c, fl: fl, rank: make([]int32, n), byRank: order,
		is: make([]itemState, n), off: make([]int64, n),
		floor: make([]int64, c.nsec), unpl: make([]int64, c.nsec), unplR: make([]int64, c.nsec), secSizeR: make([]int64, c.nsec),
		secSize: make([]int64, c.nsec),
		painted: make([]uint8, c.nsec), cross: make([]int32, c.nsec+1), skip: make([]int32, c.nsec+1), chain: make([]int32, n), effOf: make([]int64, n), byE: make([]int32, 0, n), deferred: make([]int32, 0, n),
		next: make([]int32, n+1), prev: make([]int32, n+1), cands: make([][]cand, n+1),
		byStart: make([]int32, n), snext: make([]int32, n+1), sprev: make([]int32, n+1), startPos: make([]int32, n),
		trail: make([]undo, 0, 4*n), stack: make([]int32, 0, n), marks: make([]int, 0, n), st: st}
	for r, it := range order {
		s.rank[it] = int32(r)
	}
	for i := range s.is {
		s.is[i].size, s.is[i].pin = c.size[i], c.pin[i]
	}
	s.checkMask = checkEvery - 1
	if n >= largeComp {
		// A node costs O(n) here (4 608 nodes took 2.3 s on 10 000
		// buffers): every 256 nodes the time limit overshot by 0.3 s.
		s.checkMask = 0
	}
	s.twin = twins(c, order, fl.symmetry)
	s.hotSec = -1
	if fl.sections {
		s.sectionItems()
	}
	s.stacks = fl.alignStacks && c.unit > 0
	for i := range s.byStart {
		s.byStart[i] = int32(i)
	}
	slices.SortStableFunc(s.byStart, func(a, b int32) int { return int(c.start[a]) - int(c.start[b]) })
	for p, i := range s.byStart {
		s.startPos[i] = int32(p)
	}
	for d := range s.cands {
		s.cands[d] = make([]cand, 0, 8)
	}
	if fl.memo {
		s.memo = newMemo(n, fl.memoMax)
	}
	return s
}

// reset prepares a fresh search at the given capacity (scaled units).
func (s *searcher) reset(capacity int64) {
	c := s.c
	n := c.n
	s.capacity = capacity
	s.free = 0
	for i := 0; i < n; i++ {
		s.is[i].minOff = 0
		s.is[i].placed = false
		s.is[i].deg = int32(len(c.conf[i]))
		if s.is[i].deg == 0 {
			s.free++
		}
		s.is[i].hidden = false
	}
	s.active = n
	s.pending = s.pending[:0]
	s.groups = s.groups[:0]
	s.unwind = -1
	s.splits = 0
	copy(s.unpl, c.secLoad)
	if s.stacks {
		copy(s.unplR, c.secLoadR)
	}
	clear(s.floor)
	// Items across each section boundary, by differences.
	clear(s.cross)
	for i := range n {
		if c.secHi[i]-c.secLo[i] >= 2 {
			s.cross[c.secLo[i]+1]++
			s.cross[c.secHi[i]]--
		}
	}
	for k := 1; k < len(s.cross); k++ {
		s.cross[k] += s.cross[k-1]
	}
	// Lists over ranks and over start positions: r links to r+1; sentinel n.
	for r := 0; r <= n; r++ {
		s.next[r] = int32((r + 1) % (n + 1))
		s.prev[r] = int32((r + n) % (n + 1))
		s.snext[r], s.sprev[r] = s.next[r], s.prev[r]
	}
	s.trail = s.trail[:0]
	s.stack = s.stack[:0]
	s.marks = s.marks[:0]
	s.hash = 0
	for i := 0; i < n; i++ {
		s.hash ^= zobrist(int32(i), 0)
	}
	s.lastOff, s.lastRank = 0, -1
	s.aborted = false
}

// zobrist mixes an (item, offset) pair into 64 bits (splitmix64).
func zobrist(i int32, off int64) uint64 {
	x := uint64(i)*0x9e3779b97f4a7c15 ^ uint64(off)*0xbf58476d1ce4e5b9
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// place puts item i at offset o and propagates: section floors and unplaced
// totals, minimum offsets and degrees of conflicting items. It returns
// false when the new state is certainly infeasible (the state is changed
// anyway; unplaceLast undoes it).
func (s *searcher) place(i int32, o int64) bool {
	c := s.c
	ok := true
	s.is[i].placed = true
	s.active--
	if s.is[i].deg == 0 {
		s.free--
	}
	s.off[i] = o
	s.hash ^= zobrist(i, s.is[i].minOff)
	r := s.rank[i]
	s.next[s.prev[r]] = s.next[r]
	s.prev[s.next[r]] = s.prev[r]
	sp := s.startPos[i]
	s.snext[s.sprev[sp]] = s.snext[sp]
	s.sprev[s.snext[sp]] = s.sprev[sp]
	s.stack = append(s.stack, i)
	s.marks = append(s.marks, len(s.trail))
	sz, capacity := c.size[i], s.capacity
	top := o + sz
	if top > capacity {
		ok = false
	}
	// The slices in locals: the stores would make the compiler reload
	// every field of s at each step.
	floor, unpl, trail := s.floor, s.unpl, s.trail
	check := s.fl.sections
	for sec := c.secLo[i]; sec < c.secHi[i]; sec++ {
		if floor[sec] < top {
			trail = append(trail, undo{-sec - 1, floor[sec]})
			floor[sec] = top
		}
		unpl[sec] -= sz
		if s.stacks {
			s.unplR[sec] -= c.rsize[i]
		}
		if check && ok && (floor[sec]+unpl[sec] > capacity || s.stacks && c.stackTop(floor[sec], s.unplR[sec]) > capacity) {
			ok = false
			s.st.prunes[pruneSection]++
		}
	}
	s.trail = trail
	s.crossing(i, false)
	is := s.is
	for _, u := range c.conf[i] {
		it := &is[u]
		if it.placed {
			continue
		}
		if it.deg--; it.deg == 0 {
			s.free++
		}
		m := alignUp(top, c.align[u])
		if old := it.minOff; m > old {
			s.trail = append(s.trail, undo{u, old})
			s.hash ^= zobrist(u, old) ^ zobrist(u, m)
			it.minOff = m
			if p := it.pin; p >= 0 {
				if m > p {
					ok = false
				}
			} else if m+it.size > capacity {
				ok = false
			}
		}
	}
	return ok
}

// unplaceLast undoes the last placement.
func (s *searcher) unplaceLast() {
	c := s.c
	i := s.stack[len(s.stack)-1]
	mark := s.marks[len(s.marks)-1]
	s.stack = s.stack[:len(s.stack)-1]
	s.marks = s.marks[:len(s.marks)-1]
	is, floor, hash := s.is, s.floor, s.hash
	for k := len(s.trail) - 1; k >= mark; k-- {
		e := s.trail[k]
		if e.idx >= 0 {
			hash ^= zobrist(e.idx, is[e.idx].minOff) ^ zobrist(e.idx, e.old)
			is[e.idx].minOff = e.old
		} else {
			floor[-e.idx-1] = e.old
		}
	}
	s.hash = hash
	s.trail = s.trail[:mark]
	unpl, sz := s.unpl, c.size[i]
	for sec := c.secLo[i]; sec < c.secHi[i]; sec++ {
		unpl[sec] += sz
		if s.stacks {
			s.unplR[sec] += c.rsize[i]
		}
	}
	s.crossing(i, true)
	free := s.free
	for _, u := range c.conf[i] {
		if it := &is[u]; !it.placed {
			if it.deg == 0 {
				free--
			}
			it.deg++
		}
	}
	s.free = free
	r := s.rank[i]
	s.next[s.prev[r]] = r
	s.prev[s.next[r]] = r
	sp := s.startPos[i]
	s.snext[s.sprev[sp]] = sp
	s.sprev[s.snext[sp]] = sp
	s.is[i].placed = false
	s.active++
	if s.is[i].deg == 0 {
		s.free++
	}
	s.hash ^= zobrist(i, s.is[i].minOff)
}

// twins links every unpinned item to the identical item (same lifetime,
// size and alignment) that precedes it in the static order, or to -1.
func twins(c *comp, order []int32, on bool) []int32 {
	tw := make([]int32, c.n)
	for i := range tw {
		tw[i] = -1
	}
	if !on {
		return tw
	}
	type key struct {
		start, end  int32
		size, align int64
	}
	last := map[key]int32{}
	for _, i := range order {
		if c.pin[i] >= 0 {
			continue
		}
		k := key{c.start[i], c.end[i], c.size[i], c.align[i]}
		if j, ok := last[k]; ok {
			tw[i] = j
		}
		last[k] = i
	}
	return tw
}
