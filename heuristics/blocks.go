package heuristics

// treap is an ordered set of free blocks keyed by (size, offset): the
// free-list planner's "free blocks sorted by size" in O(log F) per
// operation. Priorities come from a hash of the key, so the shape (and
// everything else) is deterministic.
type treap struct {
	root *tnode
	free *tnode // removed nodes, chained by r, reused by insert
}

type tnode struct {
	size, off int64
	pri       uint64
	l, r      *tnode
}

func keyLess(as, ao, bs, bo int64) bool { return as < bs || (as == bs && ao < bo) }

func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// split cuts t into keys < (s, o) and keys ≥ (s, o).
func split(t *tnode, s, o int64) (l, r *tnode) {
	if t == nil {
		return nil, nil
	}
	if keyLess(t.size, t.off, s, o) {
		t.r, r = split(t.r, s, o)
		return t, r
	}
	l, t.l = split(t.l, s, o)
	return l, t
}

func merge(l, r *tnode) *tnode {
	switch {
	case l == nil:
		return r
	case r == nil:
		return l
	case l.pri > r.pri:
		l.r = merge(l.r, r)
		return l
	default:
		r.l = merge(l, r.l)
		return r
	}
}

// insert adds (size, off), which must not be in t. It walks down to the
// first node of lower priority and splits only that subtree: the same
// treap as split-and-merge, with fewer writes, and no allocation while
// removed nodes are left to recycle.
func (t *treap) insert(size, off int64) {
	n := t.free
	if n != nil {
		t.free = n.r
	} else {
		n = &tnode{}
	}
	*n = tnode{size: size, off: off, pri: mix(uint64(size)*31 + uint64(off))}
	link := &t.root
	for *link != nil && (*link).pri > n.pri {
		if keyLess((*link).size, (*link).off, size, off) {
			link = &(*link).r
		} else {
			link = &(*link).l
		}
	}
	n.l, n.r = split(*link, size, off)
	*link = n
}

// remove deletes (size, off) if present: its two subtrees are merged in
// its place.
func (t *treap) remove(size, off int64) {
	link := &t.root
	for n := *link; n != nil; n = *link {
		switch {
		case n.size == size && n.off == off:
			*link = merge(n.l, n.r)
			n.l, n.r = nil, t.free
			t.free = n
			return
		case keyLess(n.size, n.off, size, off):
			link = &n.r
		default:
			link = &n.l
		}
	}
}

// ceil returns the smallest key ≥ (s, o), or nil.
func (t *treap) ceil(s, o int64) *tnode {
	var best *tnode
	for n := t.root; n != nil; {
		if keyLess(n.size, n.off, s, o) {
			n = n.r
		} else {
			best, n = n, n.l
		}
	}
	return best
}

// max returns the largest key, or nil.
func (t *treap) max() *tnode {
	n := t.root
	for n != nil && n.r != nil {
		n = n.r
	}
	return n
}
