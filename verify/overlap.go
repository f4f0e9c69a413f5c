package verify

import (
	"fmt"
	"slices"
)

// occ is a rectangle a placed buffer occupies: time [t0, t1), absolute bytes
// [lo, hi) of one pool.
type occ struct {
	t0, t1 int64
	lo, hi int64
	pool   int
	buf    int
}

// occupancy expands buffer i, placed at its offset, into rectangles: the
// whole granted size outside gaps, nothing in an absent gap, the window
// inside a partial gap.
func (c *checker) occupancy(i int, dst []occ) []occ {
	b, q := &c.p.Buffers[i], c.pl.Placements[i]
	emit := func(t0, t1, lo, hi int64) {
		if t1 > t0 && hi > lo {
			dst = append(dst, occ{t0, t1, q.Offset + lo, q.Offset + hi, q.Pool, i})
		}
	}
	t := b.Start
	for _, g := range b.Gaps {
		emit(t, g.Start, 0, q.Size)
		if g.Window {
			emit(g.Start, g.End, g.Lo, g.Hi)
		}
		t = g.End
	}
	emit(t, b.End, 0, q.Size)
	return dst
}

// checkOverlaps sweeps time; at every instant the rectangles alive in a pool
// sit in an interval tree keyed by their low byte, so a new rectangle finds
// every rectangle it overlaps in O(log n + k).
func (c *checker) checkOverlaps(rects []occ) {
	if disjoint(rects) {
		return // nothing meets: the sweep below would report nothing
	}
	type event struct {
		t     int64
		start bool
		r     int
	}
	events := make([]event, 0, 2*len(rects))
	for k, r := range rects {
		events = append(events, event{r.t0, true, k}, event{r.t1, false, k})
	}
	// Ends before starts at the same time: lifetimes are half-open.
	slices.SortFunc(events, func(a, b event) int {
		switch {
		case a.t < b.t:
			return -1
		case a.t > b.t:
			return 1
		case a.start != b.start:
			if !a.start {
				return -1
			}
			return 1
		}
		return a.r - b.r
	})
	trees := map[int]*tree{}
	reported := map[[2]int]bool{}
	var hits []int
	for _, e := range events {
		if c.full {
			// The list is cut: stop, or a plan with n buffers stacked at
			// one offset costs n² pair reports.
			return
		}
		r := &rects[e.r]
		tr := trees[r.pool]
		if tr == nil {
			tr = newTree(uint64(len(rects)) + 1)
			trees[r.pool] = tr
		}
		if !e.start {
			tr.remove(r.lo, e.r)
			continue
		}
		hits = tr.overlapping(r.lo, r.hi, hits[:0])
		for _, k := range hits {
			a, b := r.buf, rects[k].buf
			if a == b || c.related(a, b) {
				continue
			}
			key := [2]int{min(a, b), max(a, b)}
			if reported[key] {
				continue
			}
			reported[key] = true
			o := &rects[k]
			c.add(Overlap, fmt.Sprintf("buffers %q [%d, %d) and %q [%d, %d) share bytes [%d, %d) at time %d",
				c.p.Buffers[key[0]].ID, c.lifeStart(key[0]), c.lifeEnd(key[0]),
				c.p.Buffers[key[1]].ID, c.lifeStart(key[1]), c.lifeEnd(key[1]),
				max(r.lo, o.lo), min(r.hi, o.hi), e.t),
				c.p.Buffers[key[0]].ID, c.p.Buffers[key[1]].ID)
		}
		tr.insert(r.lo, r.hi, e.r)
	}
}

func (c *checker) lifeStart(i int) int64 { return c.p.Buffers[i].Start }
func (c *checker) lifeEnd(i int) int64   { return c.p.Buffers[i].End }

// tree is a treap of intervals ordered by (lo, id), each node keeping the
// largest hi of its subtree: an interval tree.
type tree struct {
	root  *node
	state uint64
}

type node struct {
	lo, hi, maxHi int64
	id            int
	prio          uint64
	left, right   *node
}

func newTree(seed uint64) *tree { return &tree{state: seed*0x9E3779B97F4A7C15 | 1} }

func (t *tree) rand() uint64 {
	t.state ^= t.state << 13
	t.state ^= t.state >> 7
	t.state ^= t.state << 17
	return t.state
}

func less(lo1 int64, id1 int, lo2 int64, id2 int) bool {
	return lo1 < lo2 || (lo1 == lo2 && id1 < id2)
}

func (n *node) fix() {
	n.maxHi = n.hi
	if n.left != nil && n.left.maxHi > n.maxHi {
		n.maxHi = n.left.maxHi
	}
	if n.right != nil && n.right.maxHi > n.maxHi {
		n.maxHi = n.right.maxHi
	}
}

// split divides n into keys < (lo, id) and keys ≥ (lo, id).
func split(n *node, lo int64, id int) (*node, *node) {
	if n == nil {
		return nil, nil
	}
	if less(n.lo, n.id, lo, id) {
		l, r := split(n.right, lo, id)
		n.right = l
		n.fix()
		return n, r
	}
	l, r := split(n.left, lo, id)
	n.left = r
	n.fix()
	return l, n
}

func merge(a, b *node) *node {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	case a.prio > b.prio:
		a.right = merge(a.right, b)
		a.fix()
		return a
	default:
		b.left = merge(a, b.left)
		b.fix()
		return b
	}
}

func (t *tree) insert(lo, hi int64, id int) {
	n := &node{lo: lo, hi: hi, maxHi: hi, id: id, prio: t.rand()}
	l, r := split(t.root, lo, id)
	t.root = merge(merge(l, n), r)
}

func (t *tree) remove(lo int64, id int) {
	l, r := split(t.root, lo, id)
	_, r = split(r, lo, id+1)
	t.root = merge(l, r)
}

// overlapping appends the ids of intervals meeting [lo, hi).
func (t *tree) overlapping(lo, hi int64, dst []int) []int {
	var walk func(n *node)
	walk = func(n *node) {
		if n == nil || n.maxHi <= lo {
			return
		}
		walk(n.left)
		if n.lo >= hi {
			return
		}
		if n.hi > lo {
			dst = append(dst, n.id)
		}
		walk(n.right)
	}
	walk(t.root)
	return dst
}
