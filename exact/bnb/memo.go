package bnb

// memo remembers failed search states. A state is the set of unplaced items
// with their minimum offsets plus the canonical position; what can still be
// placed below it depends on nothing else, so a state that failed at
// capacity C fails again at every capacity ≤ C. States are identified by a
// 64-bit Zobrist hash: two different states would have to collide on all 64
// bits for a wrong prune (Options.NoMemo turns the table off for hash-free
// proofs).
type memo struct {
	keys []uint64
	caps []int64
	mask uint64
}

// newMemo sizes the table for n items: 64n² entries, at most 1 M and at
// most limit when limit > 0 (a search bounded by MaxNodes stores at most one
// state per node; a refinement window of 110 buffers cleared 16 MB per
// order for a few thousand nodes).
func newMemo(n, limit int) *memo {
	size := 1 << 8
	for size < 64*n*n && size < 1<<20 && (limit <= 0 || size < limit) {
		size <<= 1
	}
	return &memo{keys: make([]uint64, size), caps: make([]int64, size), mask: uint64(size - 1)}
}

func (m *memo) failed(key uint64, capacity int64) bool {
	h := key & m.mask
	return m.keys[h] == key && m.caps[h] >= capacity
}

func (m *memo) store(key uint64, capacity int64) {
	h := key & m.mask
	if m.keys[h] == key && m.caps[h] >= capacity {
		return
	}
	m.keys[h], m.caps[h] = key, capacity
}
