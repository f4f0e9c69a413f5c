package heuristics

// blocks are the segments of one free-list arena — [0, top) cut into free
// blocks, held items and pinned bytes — in one array of nodes: a doubly
// linked list in address order, so that a released item finds its free
// neighbours in O(1) (no maps by address), and, for the free blocks, an
// index by (size, lo) (sizeIndex), so that the smallest block ≥ a request
// is found in O(log F). Nodes are int32 indices (node 0 is nil), removed
// nodes are recycled, and nothing in the array is a pointer for the
// garbage collector to scan.
type blocks struct {
	ns         []bnode
	idx        sizeIndex // the free blocks by (size, lo)
	head, tail int32     // address order
	spare      int32     // removed nodes, chained by next
}

type bnode struct {
	lo, size   int64
	prev, next int32 // address order
	free       bool
}

func newBlocks() blocks { return blocks{ns: make([]bnode, 1, 64)} }

// hi returns the end of node i's bytes.
func (b *blocks) hi(i int32) int64 { return b.ns[i].lo + b.ns[i].size }

// node returns a fresh node (recycled when one was removed); it may grow
// the array, so no *bnode may be held across it.
func (b *blocks) node(lo, size int64, free bool) int32 {
	i := b.spare
	if i != 0 {
		b.spare = b.ns[i].next
	} else {
		i = int32(len(b.ns))
		b.ns = append(b.ns, bnode{})
	}
	b.ns[i] = bnode{lo: lo, size: size, free: free}
	return i
}

// push appends a segment at the end of the address order; a free one
// enters the size index.
func (b *blocks) push(lo, size int64, free bool) int32 {
	i := b.node(lo, size, free)
	b.ns[i].prev = b.tail
	if b.tail != 0 {
		b.ns[b.tail].next = i
	} else {
		b.head = i
	}
	b.tail = i
	if free {
		b.insert(i)
	}
	return i
}

// after links a new segment right after node i in address order; a free
// one enters the size index.
func (b *blocks) after(i int32, lo, size int64, free bool) int32 {
	j := b.node(lo, size, free)
	nx := b.ns[i].next
	b.ns[j].prev, b.ns[j].next = i, nx
	b.ns[i].next = j
	if nx != 0 {
		b.ns[nx].prev = j
	} else {
		b.tail = j
	}
	if free {
		b.insert(j)
	}
	return j
}

// unlink takes node i (not in the size index) out of the address order and
// recycles it.
func (b *blocks) unlink(i int32) {
	n := &b.ns[i]
	if n.prev != 0 {
		b.ns[n.prev].next = n.next
	} else {
		b.head = n.next
	}
	if n.next != 0 {
		b.ns[n.next].prev = n.prev
	} else {
		b.tail = n.prev
	}
	n.next, b.spare = b.spare, i
}

// insert puts free node i into the size index.
func (b *blocks) insert(i int32) {
	b.idx.add(fkey{b.ns[i].size, b.ns[i].lo, i})
}

// remove takes free node i out of the size index.
func (b *blocks) remove(i int32) { b.idx.del(b.ns[i].size, b.ns[i].lo) }

// ceil returns the free block with the smallest key ≥ (size, lo), or 0.
func (b *blocks) ceil(size, lo int64) int32 { return b.idx.ceil(size, lo) }

// below returns the free block with the largest key < (size, lo), or 0.
func (b *blocks) below(size, lo int64) int32 { return b.idx.below(size, lo) }

// max returns the free block with the largest key, or 0.
func (b *blocks) max() int32 { return b.idx.max() }

// take gives an item the bytes [c, c+size) of free block i: the block
// leaves the size index, what is left below and above it comes back as free
// blocks (not merged with anything), and the item's segment is returned.
func (b *blocks) take(i int32, c, size int64) int32 {
	b.remove(i)
	lo, hi := b.ns[i].lo, b.hi(i)
	used := i
	if c > lo {
		b.ns[i].size = c - lo
		b.insert(i)
		used = b.after(i, c, size, false)
	} else {
		b.ns[i].size, b.ns[i].free = size, false
	}
	if c+size < hi {
		b.after(used, c+size, hi-c-size, true)
	}
	return used
}

// extendTail gives an item the bytes [c, c+size) from the free block at
// the end of the address order (its lo ≤ c), extended past its end: what
// lies below c stays free. It returns the item's segment.
func (b *blocks) extendTail(c, size int64) int32 {
	t := b.tail
	lo := b.ns[t].lo
	b.remove(t)
	if c > lo {
		b.ns[t].size = c - lo
		b.insert(t)
		return b.push(c, size, false)
	}
	b.ns[t].size, b.ns[t].free = size, false
	return t
}

// release frees held segment i; with coalesce it absorbs its free
// neighbours.
func (b *blocks) release(i int32, coalesce bool) {
	n := &b.ns[i]
	n.free = true
	if coalesce {
		if p := n.prev; p != 0 && b.ns[p].free {
			b.remove(p)
			n.lo, n.size = b.ns[p].lo, n.size+b.ns[p].size
			b.unlink(p)
		}
		if q := n.next; q != 0 && b.ns[q].free {
			b.remove(q)
			n.size += b.ns[q].size
			b.unlink(q)
		}
	}
	b.insert(i)
}

// pad makes [top, to) free at the end of the address order (with coalesce
// it joins a free block ending at top); nothing when to ≤ top.
func (b *blocks) pad(top, to int64, coalesce bool) {
	if to <= top {
		return
	}
	if t := b.tail; coalesce && t != 0 && b.ns[t].free {
		b.remove(t)
		b.ns[t].size += to - top
		b.insert(t)
		return
	}
	b.push(top, to-top, true)
}
