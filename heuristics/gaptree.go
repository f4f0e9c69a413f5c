package heuristics

import "slices"

// gapTree answers the placer's first-fit query — the lowest offset where an
// item of a given size fits over the time ranks [s, e) between the placed
// entries — without scanning every placed entry: a segment tree over the
// time ranks whose nodes hold the byte ranges of the entries as sorted,
// coalesced interval sets. An entry [a, b) is stored (own) at the O(log R)
// nodes of the canonical cover of [a, b), and added (sub) to those nodes
// and to every node above leaves a and b−1 (up to the root). So
// sub[x] holds every entry stored at x or below it, and only entries that
// meet x's time range; own[x] only entries that cover x's range. The
// entries meeting [s, e) are then the union of sub[c] over the canonical
// cover c of [s, e) and of own[y] over the nodes y above leaves s and e−1
// (a node meeting [s, e) lies under a cover node or above one, and the
// nodes above a cover node are above leaf s or leaf e−1). Coalescing makes a stack of long-lived
// buffers one interval, where the scan of the offset-ordered list visits
// each of them for every item placed above them.
type gapTree struct {
	leaves int
	own    [][]span
	sub    [][]span
	q      []gapCursor
}

// gapCursor walks one interval set during a query.
type gapCursor struct {
	s []span
	i int
}

func newGapTree(ranks int) *gapTree {
	p := 1
	for p < ranks {
		p <<= 1
	}
	return &gapTree{leaves: p, own: make([][]span, 2*p), sub: make([][]span, 2*p)}
}

func (g *gapTree) reset() {
	for x := range g.own {
		g.own[x] = g.own[x][:0]
		g.sub[x] = g.sub[x][:0]
	}
}

// addSpan adds [lo, hi) (hi > lo) to the sorted, disjoint, non-touching
// interval set s, merging what it meets or touches.
func addSpan(s []span, lo, hi int64) []span {
	// the first interval that ends at or after lo
	i, _ := slices.BinarySearchFunc(s, lo, func(x span, t int64) int {
		if x.hi < t {
			return -1
		}
		return 1
	})
	if i < len(s) && s[i].lo <= lo && s[i].hi >= hi {
		return s // already covered
	}
	j := i
	for j < len(s) && s[j].lo <= hi {
		j++
	}
	if i == j {
		return slices.Insert(s, i, span{lo, hi})
	}
	s[i] = span{min(lo, s[i].lo), max(hi, s[j-1].hi)}
	return slices.Delete(s, i+1, j)
}

// add records bytes [lo, hi) live during the ranks [a, b) (a < b).
func (g *gapTree) add(a, b int32, lo, hi int64) {
	l, r := int(a)+g.leaves, int(b)+g.leaves
	for l < r {
		if l&1 == 1 {
			g.own[l] = addSpan(g.own[l], lo, hi)
			g.sub[l] = addSpan(g.sub[l], lo, hi)
			l++
		}
		if r&1 == 1 {
			r--
			g.own[r] = addSpan(g.own[r], lo, hi)
			g.sub[r] = addSpan(g.sub[r], lo, hi)
		}
		l >>= 1
		r >>= 1
	}
	for x := (int(a) + g.leaves) >> 1; x >= 1; x >>= 1 {
		g.sub[x] = addSpan(g.sub[x], lo, hi)
	}
	for x := (int(b) - 1 + g.leaves) >> 1; x >= 1; x >>= 1 {
		g.sub[x] = addSpan(g.sub[x], lo, hi)
	}
}

// first returns the lowest offset x ≥ 0 with x = up(x) such that [x,
// x+size) meets no entry live during the ranks [s, e) (s < e, size > 0).
func (g *gapTree) first(s, e int32, size int64, up func(int64) int64) int64 {
	g.q = g.q[:0]
	push := func(set []span) {
		if len(set) > 0 {
			g.q = append(g.q, gapCursor{s: set})
		}
	}
	l, r := int(s)+g.leaves, int(e)+g.leaves
	for l < r {
		if l&1 == 1 {
			push(g.sub[l])
			l++
		}
		if r&1 == 1 {
			r--
			push(g.sub[r])
		}
		l >>= 1
		r >>= 1
	}
	for x := (int(s) + g.leaves) >> 1; x >= 1; x >>= 1 {
		push(g.own[x])
	}
	if e-1 != s {
		for x := (int(e) - 1 + g.leaves) >> 1; x >= 1; x >>= 1 {
			push(g.own[x])
		}
	}
	x := up(0)
	for i := range g.q {
		c := &g.q[i]
		c.i, _ = slices.BinarySearchFunc(c.s, x, func(v span, t int64) int {
			if v.hi <= t {
				return -1
			}
			return 1
		})
	}
	// Every jump is safe: an interval that meets [x, x+size) blocks every
	// offset below its end. Chasing one set before the next keeps the
	// passes over all sets few.
	for {
		moved := false
		for i := range g.q {
			c := &g.q[i]
			for c.i < len(c.s) {
				v := c.s[c.i]
				if v.hi <= x {
					c.i++
					continue
				}
				if v.lo >= x+size {
					break
				}
				x, moved = up(v.hi), true
				c.i++
			}
		}
		if !moved {
			return x
		}
	}
}
