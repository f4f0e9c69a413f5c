package heuristics

// sizeIndex is the free-list arena's set of free blocks ordered by (size,
// lo): the smallest block ≥ a request in O(log F). It is a list of sorted
// chunks of at most chunkMax keys, with the last key of each chunk in one
// array: a lookup is a binary search over that array and one over a chunk,
// both in contiguous memory, and an insert or a delete moves part of one
// chunk. (A treap of nodes spent its time waiting for memory on a dense
// million-buffer trace, with about 16 000 free blocks; docs/heuristics.md.)
type sizeIndex struct {
	chunks [][]fkey
	last   []fkey   // last key of each chunk
	spare  [][]fkey // emptied chunks, for reuse
	// hc, hj are the position ceil last returned, a guess for del (the
	// free-list planner takes the block it has just found): del uses it
	// when the key there is the one to delete (keys are unique: no two
	// free blocks share lo), else searches.
	hc, hj int
}

// fkey is a free block's key and its node in the arena's blocks.
type fkey struct {
	size, lo int64
	n        int32
}

// chunkMax is the length at which a chunk splits in two.
const chunkMax = 64

func (k *fkey) below(size, lo int64) bool { return k.size < size || (k.size == size && k.lo < lo) }

// find returns the position of the first key ≥ (size, lo): chunk c, index
// j; c == len(chunks) when there is none.
func (x *sizeIndex) find(size, lo int64) (c, j int) {
	a, b := 0, len(x.last)
	for a < b {
		m := int(uint(a+b) >> 1)
		if x.last[m].below(size, lo) {
			a = m + 1
		} else {
			b = m
		}
	}
	if a == len(x.last) {
		return a, 0
	}
	ch := x.chunks[a]
	i, k := 0, len(ch)
	for i < k {
		m := int(uint(i+k) >> 1)
		if ch[m].below(size, lo) {
			i = m + 1
		} else {
			k = m
		}
	}
	return a, i
}

// add inserts a key that is not in the set.
func (x *sizeIndex) add(k fkey) {
	if len(x.chunks) == 0 {
		ch := append(x.chunk(), k)
		x.chunks, x.last = append(x.chunks, ch), append(x.last, k)
		return
	}
	c, j := x.find(k.size, k.lo)
	if c == len(x.chunks) { // above every key: at the end of the last chunk
		c--
		j = len(x.chunks[c])
	}
	ch := append(x.chunks[c], fkey{})
	copy(ch[j+1:], ch[j:])
	ch[j] = k
	if len(ch) <= chunkMax {
		x.chunks[c], x.last[c] = ch, ch[len(ch)-1]
		return
	}
	// split in two halves
	h := len(ch) / 2
	hi := append(x.chunk(), ch[h:]...)
	lo := ch[:h]
	x.chunks[c], x.last[c] = lo, lo[h-1]
	x.chunks = append(x.chunks, nil)
	copy(x.chunks[c+2:], x.chunks[c+1:])
	x.chunks[c+1] = hi
	x.last = append(x.last, fkey{})
	copy(x.last[c+2:], x.last[c+1:])
	x.last[c+1] = hi[len(hi)-1]
}

// chunk returns an empty chunk.
func (x *sizeIndex) chunk() []fkey {
	if n := len(x.spare); n > 0 {
		ch := x.spare[n-1]
		x.spare = x.spare[:n-1]
		return ch
	}
	return make([]fkey, 0, chunkMax+1)
}

// del removes (size, lo) if present.
func (x *sizeIndex) del(size, lo int64) {
	c, j := x.hc, x.hj
	if c >= len(x.chunks) || j >= len(x.chunks[c]) || x.chunks[c][j].size != size || x.chunks[c][j].lo != lo {
		if c, j = x.find(size, lo); c == len(x.chunks) {
			return
		}
		if x.chunks[c][j].size != size || x.chunks[c][j].lo != lo {
			return
		}
	}
	ch := x.chunks[c]
	if len(ch) == 1 {
		x.spare = append(x.spare, ch[:0])
		x.chunks = append(x.chunks[:c], x.chunks[c+1:]...)
		x.last = append(x.last[:c], x.last[c+1:]...)
		return
	}
	copy(ch[j:], ch[j+1:])
	ch = ch[:len(ch)-1]
	x.chunks[c], x.last[c] = ch, ch[len(ch)-1]
}

// ceil returns the node of the smallest key ≥ (size, lo), or 0.
func (x *sizeIndex) ceil(size, lo int64) int32 {
	c, j := x.find(size, lo)
	if c == len(x.chunks) {
		return 0
	}
	x.hc, x.hj = c, j
	return x.chunks[c][j].n
}

// below returns the node of the largest key < (size, lo), or 0.
func (x *sizeIndex) below(size, lo int64) int32 {
	c, j := x.find(size, lo)
	switch {
	case j > 0:
		return x.chunks[c][j-1].n
	case c > 0:
		return x.last[c-1].n
	}
	return 0
}

// max returns the node of the largest key, or 0.
func (x *sizeIndex) max() int32 {
	if len(x.last) == 0 {
		return 0
	}
	return x.last[len(x.last)-1].n
}
