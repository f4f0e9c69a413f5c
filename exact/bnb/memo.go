package bnb

// memo remembers failed search states. A state is the set of unplaced items
// with their minimum offsets plus the canonical position; what can still be
// placed below it depends on nothing else, so a state that failed at
// capacity C fails again at every capacity ≤ C. States are identified by a
// 64-bit Zobrist hash: two different states would have to collide on all 64
// bits for a wrong prune (Options.NoMemo turns the table off for hash-free
// proofs).
//
// The table is direct-mapped: a state's slot is its key's low bits, so a
// slot need only hold the key's high bits. While every capacity stored is
// below the table's size (MiniMalloc's A–K: 1024 units, 256k slots), a slot
// is one word, the key's high bits and the capacity (packed): half the
// memory of a key and a capacity side by side, one cache line per look-up
// instead of two, and half the page faults of a fresh table (eight orders
// of 16 MB each cost I 0.1 s of system time). The first larger capacity
// widens the table to two words per slot, keeping every entry. Both forms
// answer exactly alike.
//
// The table starts at no more than memoStart slots and doubles, up to its
// full size, whenever a quarter of its slots are in use: on I (issue 44)
// eight tables of 1 M slots (8 MB each) cost 0.08 s of page faults and
// cache misses for at most 30k states per order; at 256k slots the
// decisions on A–K take the same nodes but A (+25 of 54 908, a state lost to
// a collision), 11 % less CPU on I and half the memory.
type memo struct {
	packed  []uint64 // key&^mask | capacity, while every capacity stored is ≤ mask
	keys    []uint64 // the wide form: keys and capacities
	caps    []int64
	mask    uint64
	bits    uint // log2 of the size
	used    int  // slots in use
	maxSize int  // the size the table may grow to
}

// memoStart is the most slots a table starts with.
const memoStart = 1 << 18

// newMemo sizes the table for n items: 64n² entries, at most 1 M and at
// most limit when limit > 0 (a search bounded by MaxNodes stores at most one
// state per node; a refinement window of 110 buffers cleared 16 MB per
// order for a few thousand nodes).
func newMemo(n, limit int) *memo {
	full := 1 << 8
	for full < 64*n*n && full < 1<<20 && (limit <= 0 || full < limit) {
		full <<= 1
	}
	size, bits := 1<<8, uint(8)
	for size < min(full, memoStart) {
		size <<= 1
		bits++
	}
	return &memo{packed: make([]uint64, size), mask: uint64(size - 1), bits: bits, maxSize: full}
}

func (m *memo) failed(key uint64, capacity int64) bool {
	h := key & m.mask
	if m.packed != nil {
		e := m.packed[h]
		return e>>m.bits == key>>m.bits && int64(e&m.mask) >= capacity
	}
	return m.keys[h] == key && m.caps[h] >= capacity
}

func (m *memo) store(key uint64, capacity int64) {
	if m.packed != nil && (capacity < 0 || uint64(capacity) > m.mask) {
		m.widen()
	}
	h := key & m.mask
	if m.packed != nil {
		e := m.packed[h]
		if e>>m.bits == key>>m.bits && int64(e&m.mask) >= capacity {
			return
		}
		if e == 0 {
			m.used++
		}
		m.packed[h] = key&^m.mask | uint64(capacity)
	} else {
		if m.keys[h] == key && m.caps[h] >= capacity {
			return
		}
		if m.keys[h] == 0 && m.caps[h] == 0 {
			m.used++
		}
		m.keys[h], m.caps[h] = key, capacity
	}
	if size := int(m.mask) + 1; 4*m.used >= size && size < m.maxSize {
		m.double()
	}
}

// double doubles the table, entry for entry: entries in different slots
// differ in their low bits, so none collide in the larger table.
func (m *memo) double() {
	oldMask := m.mask
	m.mask = 2*m.mask + 1
	m.bits++
	if m.packed != nil {
		old := m.packed
		m.packed = make([]uint64, 2*len(old))
		for h, e := range old {
			if e != 0 {
				key := e&^oldMask | uint64(h)
				m.packed[key&m.mask] = key&^m.mask | e&oldMask
			}
		}
		return
	}
	keys, caps := m.keys, m.caps
	m.keys, m.caps = make([]uint64, 2*len(keys)), make([]int64, 2*len(keys))
	for h, key := range keys {
		if key != 0 || caps[h] != 0 {
			m.keys[key&m.mask], m.caps[key&m.mask] = key, caps[h]
		}
	}
}

// widen turns the packed table into the wide form, entry for entry.
func (m *memo) widen() {
	m.keys = make([]uint64, len(m.packed))
	m.caps = make([]int64, len(m.packed))
	for h, e := range m.packed {
		if e != 0 {
			m.keys[h] = e&^m.mask | uint64(h)
			m.caps[h] = int64(e & m.mask)
		}
	}
	m.packed = nil
}
