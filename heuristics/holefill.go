package heuristics

import (
	"cmp"
	"context"
	"slices"
)

// holeFill places items into the free space a fixed plan leaves below its
// top. It sweeps time in the order of the items' ENDS: an item [s, e) is
// placed at e, when the fixed plan up to e is known, into bytes that have
// been free since s or earlier. Every free byte below the top belongs to
// one piece; a piece knows since when all its bytes have been free (its
// "since": the end of the fixed buffer or placed item that last held them,
// or the beginning of time). An item [s, e) may take bytes from a piece
// whose since is ≤ s: nothing held them during [s, e) — the fixed buffers
// that start before e have claimed their bytes (removing the pieces there)
// and those that ended after s left pieces with a later since; the items
// placed before it end no later, and their bytes become pieces free since
// their ends. So no index looks into the future, and every placement is
// valid by construction.
//
// Pieces are kept in address order (a linked list, a fixed buffer's claim
// walks it from the piece that holds its first byte, found in an index by
// offset) and in buckets by since (ranks of the ends); a segment tree over
// the ranks holds the largest piece of each bucket, so that the piece
// with the latest since ≤ s that is large enough is found in O(log R).
// Two neighbouring pieces whose sinces are both at or before the earliest
// start of the items still to place are merged (no such item can tell them
// apart).
type holeFill struct {
	ns    []fillNode
	spare int32
	at    sizeIndex // the free pieces by (lo, 0): the piece holding a byte
	// buckets by since rank: head of each, segment tree of the largest
	// piece in each (leaves from leaves)
	head   []int32
	tree   []int64
	leaves int
	rankM  int32 // pieces at or before this rank merge
	merged int32 // the ranks up to this one have had their merge pass
	ks     []int32
}

// fillNode is a piece (free, since ≥ 0) or a fixed buffer's bytes (held,
// since = heldPiece).
type fillNode struct {
	lo, hi       int64
	prev, next   int32 // address order
	bprev, bnext int32 // the piece's bucket
	since        int32
}

const (
	heldPiece = -1
	deadPiece = -2
)

func newHoleFill(ranks int, top int64) *holeFill {
	p := 1
	for p < ranks {
		p <<= 1
	}
	h := &holeFill{ns: make([]fillNode, 1, 1024), head: make([]int32, ranks), tree: make([]int64, 2*p), leaves: p}
	h.free(h.node(0, top, 0, 0), 0)
	return h
}

// node returns a new node [lo, hi) linked after prev in address order (0:
// first).
func (h *holeFill) node(lo, hi int64, prev, next int32) int32 {
	n := h.spare
	if n != 0 {
		h.spare = h.ns[n].next
	} else {
		n = int32(len(h.ns))
		h.ns = append(h.ns, fillNode{})
	}
	h.ns[n] = fillNode{lo: lo, hi: hi, prev: prev, next: next, since: heldPiece}
	if prev != 0 {
		h.ns[prev].next = n
	}
	if next != 0 {
		h.ns[next].prev = n
	}
	return n
}

// drop unlinks node n (not in a bucket) and recycles it.
func (h *holeFill) drop(n int32) {
	x := &h.ns[n]
	if x.prev != 0 {
		h.ns[x.prev].next = x.next
	}
	if x.next != 0 {
		h.ns[x.next].prev = x.prev
	}
	x.since = deadPiece
	x.next = h.spare
	h.spare = n
}

// free makes node n a piece free since rank r.
func (h *holeFill) free(n int32, r int32) {
	h.at.add(fkey{size: h.ns[n].lo, n: n})
	h.bucket(n, r)
}

// bucket puts piece n, free since rank r, in that rank's bucket.
func (h *holeFill) bucket(n int32, r int32) {
	x := &h.ns[n]
	x.since = r
	x.bprev, x.bnext = 0, h.head[r]
	if x.bnext != 0 {
		h.ns[x.bnext].bprev = n
	}
	h.head[r] = n
	h.raise(r, x.hi-x.lo)
}

// unfree takes piece n out of its bucket and of the offset index (it
// stays linked in address order).
func (h *holeFill) unfree(n int32) {
	h.at.del(h.ns[n].lo, 0)
	h.unbucket(n)
}

// unbucket takes piece n out of its bucket.
func (h *holeFill) unbucket(n int32) {
	x := h.ns[n]
	if x.bprev != 0 {
		h.ns[x.bprev].bnext = x.bnext
	} else {
		h.head[x.since] = x.bnext
	}
	if x.bnext != 0 {
		h.ns[x.bnext].bprev = x.bprev
	}
	if x.hi-x.lo == h.tree[h.leaves+int(x.since)] {
		h.recount(x.since)
	}
	h.ns[n].since = heldPiece
}

// raise records a piece of size v in bucket r.
func (h *holeFill) raise(r int32, v int64) {
	x := h.leaves + int(r)
	if h.tree[x] >= v {
		return
	}
	h.tree[x] = v
	h.up(x)
}

// recount recomputes bucket r's largest piece.
func (h *holeFill) recount(r int32) {
	var v int64
	for n := h.head[r]; n != 0; n = h.ns[n].bnext {
		v = max(v, h.ns[n].hi-h.ns[n].lo)
	}
	x := h.leaves + int(r)
	if h.tree[x] == v {
		return
	}
	h.tree[x] = v
	h.up(x)
}

// up updates the tree above leaf x until a node is unchanged.
func (h *holeFill) up(x int) {
	for x > 1 {
		x >>= 1
		v := max(h.tree[2*x], h.tree[2*x+1])
		if h.tree[x] == v {
			return
		}
		h.tree[x] = v
	}
}

// latest returns the highest rank ≤ r whose bucket holds a piece of at
// least need bytes, or -1.
func (h *holeFill) latest(r int32, need int64) int32 {
	x := h.leaves + int(r)
	for {
		if h.tree[x] >= need {
			for x < h.leaves {
				if h.tree[2*x+1] >= need {
					x = 2*x + 1
				} else {
					x = 2 * x
				}
			}
			return int32(x - h.leaves)
		}
		for x&1 == 0 {
			x >>= 1
		}
		if x == 1 {
			return -1
		}
		x--
	}
}

// bucketScan bounds the pieces of one bucket looked at for the best fit.
const bucketScan = 256

// find returns a free piece, since at rank ≤ r, that holds need bytes:
// the smallest such piece of the latest bucket that has one (among the
// first bucketScan pieces of the bucket, or on to the first that holds
// it), or 0.
func (h *holeFill) find(r int32, need int64) int32 {
	b := h.latest(r, need)
	if b < 0 {
		return 0
	}
	var best int32
	seen := 0
	for n := h.head[b]; n != 0 && (seen < bucketScan || best == 0); n = h.ns[n].bnext {
		seen++
		if sz := h.ns[n].hi - h.ns[n].lo; sz >= need {
			if best == 0 || sz < h.ns[best].hi-h.ns[best].lo {
				best = n
			}
			if sz == need {
				break
			}
		}
	}
	return best
}

// take places [o, o+size) inside free piece n, the bytes free from rank r
// on (r > the piece's: an item ending then); the rest of the piece stays
// free since its rank.
func (h *holeFill) take(n int32, o, size int64, r int32) {
	x := h.ns[n]
	h.unbucket(n)
	hi := o + size
	if hi < x.hi { // the part above stays a piece
		h.free(h.node(hi, x.hi, n, x.next), x.since)
	}
	if o > x.lo { // n stays the part below; the item's bytes a new piece
		h.ns[n].hi = o
		h.bucket(n, x.since)
		h.free(h.node(o, hi, n, h.ns[n].next), r)
		return
	}
	h.ns[n].hi = hi
	h.bucket(n, r)
}

// claim takes [lo, hi), free in pieces, for a fixed buffer and returns
// its held node.
func (h *holeFill) claim(lo, hi int64) int32 {
	n := h.at.below(lo+1, 0)
	prev := h.ns[n].prev
	if x := h.ns[n]; x.lo < lo { // n keeps its part below lo
		h.unbucket(n)
		h.ns[n].hi = lo
		h.bucket(n, x.since)
		if x.hi > hi { // the claim lies inside n
			held := h.node(lo, hi, n, x.next)
			h.free(h.node(hi, x.hi, held, x.next), x.since)
			return held
		}
		prev, n = n, x.next
	}
	var rest fillNode // the last piece's part above hi
	for n != 0 && h.ns[n].lo < hi {
		x := h.ns[n]
		rest = x
		h.unfree(n)
		h.drop(n)
		n = x.next
	}
	held := h.node(lo, hi, prev, n)
	if rest.hi > hi {
		h.free(h.node(hi, rest.hi, held, n), rest.since)
	}
	return held
}

// release frees held node n from rank r on, merged with its free
// neighbours where both are at or before rankM.
func (h *holeFill) release(n int32, r int32) {
	h.free(n, r)
	h.merge(n)
}

// merge joins piece n with its free neighbours when it and they are at or
// before rankM.
func (h *holeFill) merge(n int32) {
	if h.ns[n].since > h.rankM {
		return
	}
	for _, side := range [2]bool{false, true} {
		x := h.ns[n]
		m := x.prev
		if side {
			m = x.next
		}
		if m == 0 || h.ns[m].since < 0 || h.ns[m].since > h.rankM {
			continue
		}
		y := h.ns[m]
		r := max(x.since, y.since)
		h.unfree(n)
		h.unfree(m)
		h.drop(m)
		h.ns[n].lo, h.ns[n].hi = min(x.lo, y.lo), max(x.hi, y.hi)
		h.free(n, r)
	}
}

// advance moves the merge rank to r and merges the pieces of the buckets
// passed with their neighbours.
func (h *holeFill) advance(r int32) {
	if r <= h.rankM {
		return
	}
	h.rankM = r
	ks := h.ks[:0]
	for b := h.merged + 1; b <= r; b++ {
		for n := h.head[b]; n != 0; n = h.ns[n].bnext {
			ks = append(ks, n)
		}
	}
	h.merged = r
	for _, n := range ks {
		if h.ns[n].since >= 0 {
			h.merge(n)
		}
	}
	h.ks = ks
}

// fillHoles places the items small among the items large, fixed at
// their offsets in off, below top; it writes the offsets of those it
// places and returns the others.
func fillHoles(ctx context.Context, its []item, large, small []int32, off []int64, top int64) ([]int32, error) {
	// the fixed items by start and by end, the items to place by end
	// (larger first at one end)
	var starts []int32
	for _, k := range large {
		if its[k].size > 0 {
			starts = append(starts, k)
		}
	}
	slices.Sort(starts)
	ends := slices.Clone(starts)
	startT := sortByTime(starts, func(k int32) int64 { return its[k].start })
	endT := sortByTime(ends, func(k int32) int64 { return its[k].end })
	order := slices.Clone(small)
	slices.Sort(order)
	orderT := sortByTime(order, func(k int32) int64 { return its[k].end })
	for i := 0; i < len(order); {
		j := i + 1
		for j < len(order) && orderT[j] == orderT[i] {
			j++
		}
		if j-i > 1 {
			slices.SortStableFunc(order[i:j], func(x, y int32) int { return cmp.Compare(its[y].size, its[x].size) })
		}
		i = j
	}
	// the ranks: every end (rank 0 is the beginning of time)
	times := make([]int64, 0, len(endT)+len(orderT))
	for a, b := 0, 0; a < len(endT) || b < len(orderT); {
		var t int64
		if b == len(orderT) || (a < len(endT) && endT[a] <= orderT[b]) {
			t, a = endT[a], a+1
		} else {
			t, b = orderT[b], b+1
		}
		if len(times) == 0 || times[len(times)-1] != t {
			times = append(times, t)
		}
	}
	rank := func(t int64) int32 { // the rank of the latest end ≤ t (0: none)
		i, _ := slices.BinarySearch(times, t+1)
		return int32(i)
	}
	// minStart[i]: the earliest start of order[i:]
	minStart := make([]int64, len(order)+1)
	minStart[len(order)] = 1<<63 - 1
	for i := len(order) - 1; i >= 0; i-- {
		minStart[i] = min(minStart[i+1], its[order[i]].start)
	}
	h := newHoleFill(len(times)+1, top)
	held := make([]int32, len(its)) // a fixed item's node while it is live
	var rest []int32
	i, j, q := 0, 0, 0 // next start, end, small item
	r := int32(0)      // the rank of t when t is an end
	for x := 0; i < len(starts) || j < len(ends) || q < len(order); x++ {
		if x&4095 == 4095 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		t := int64(1<<63 - 1)
		if i < len(starts) {
			t = startT[i]
		}
		if j < len(ends) {
			t = min(t, endT[j])
		}
		if q < len(order) {
			t = min(t, orderT[q])
		}
		for int(r) < len(times) && times[r] <= t {
			r++
		}
		for ; j < len(ends) && endT[j] == t; j++ {
			k := ends[j]
			h.release(held[k], r)
		}
		if q < len(order) && orderT[q] == t {
			h.advance(rank(minStart[q]))
		}
		for ; q < len(order) && orderT[q] == t; q++ {
			k := order[q]
			it := &its[k]
			need := it.size
			if it.align > 1 {
				need += it.align - 1
			}
			n := h.find(rank(it.start), need)
			if n == 0 {
				rest = append(rest, k)
				continue
			}
			o := it.up(h.ns[n].lo)
			off[k] = o
			h.take(n, o, it.size, r)
		}
		for ; i < len(starts) && startT[i] == t; i++ {
			k := starts[i]
			held[k] = h.claim(off[k], off[k]+its[k].size)
		}
	}
	return rest, nil
}
