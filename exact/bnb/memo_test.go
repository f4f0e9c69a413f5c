package bnb

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// wideMemo is the reference: keys and capacities side by side.
type wideMemo struct {
	keys []uint64
	caps []int64
	mask uint64
}

func (m *wideMemo) failed(key uint64, capacity int64) bool {
	h := key & m.mask
	return m.keys[h] == key && m.caps[h] >= capacity
}

func (m *wideMemo) store(key uint64, capacity int64) {
	h := key & m.mask
	if m.keys[h] == key && m.caps[h] >= capacity {
		return
	}
	m.keys[h], m.caps[h] = key, capacity
}

// TestMemoPackedMatchesWide: the packed table answers every look-up as the
// wide one does, before and after a capacity above its size widens it, on
// random keys that share slots (a few distinct high parts per slot).
func TestMemoPackedMatchesWide(t *testing.T) {
	for _, tc := range []struct {
		name    string
		n       int   // items (sets the size: 256 slots for n = 1, 1 M for n = 200)
		maxCap  int64 // capacities drawn in [1, maxCap]
		widenAt int   // from this operation on, capacities up to 1<<40 (-1: never)
	}{
		{"small table, small capacities", 1, 200, -1},
		{"small table widened", 1, 200, 3000},
		{"small table, capacities over its size from the start", 1, 100000, -1},
		{"large table, A–K's capacities", 200, 1024, -1},
		{"large table widened", 200, 1024, 5000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(tc.n), uint64(tc.maxCap)))
			m := newMemo(tc.n, 0)
			ref := &wideMemo{keys: make([]uint64, len(m.packed)), caps: make([]int64, len(m.packed)), mask: m.mask}
			// A pool of keys: few slots, several high parts each, so that
			// keys collide and replace each other.
			var pool []uint64
			for k := 0; k < 64; k++ {
				slot := rng.Uint64() & m.mask
				for j := 0; j < 4; j++ {
					pool = append(pool, rng.Uint64()&^m.mask|slot)
				}
			}
			pool = append(pool, 0, m.mask, 1) // keys whose high part is zero
			hits := 0
			for op := 0; op < 20000; op++ {
				key := pool[rng.IntN(len(pool))]
				c := 1 + rng.Int64N(tc.maxCap)
				if tc.widenAt >= 0 && op >= tc.widenAt && rng.IntN(8) == 0 {
					c = 1 + rng.Int64N(1<<40)
				}
				if rng.IntN(2) == 0 {
					m.store(key, c)
					ref.store(key, c)
				} else {
					got := m.failed(key, c)
					require.Equal(t, ref.failed(key, c), got, "op %d key %x capacity %d", op, key, c)
					if got {
						hits++
					}
				}
			}
			require.Greater(t, hits, 100)
			if tc.widenAt >= 0 || tc.maxCap > int64(m.mask) {
				require.Nil(t, m.packed, "the table must have widened")
			} else {
				require.NotNil(t, m.packed)
			}
		})
	}
}

// TestMemoGrows: a table that starts below its full size doubles as it
// fills, loses no entry when it does (keys in distinct slots), in the
// packed and in the wide form, and never reports a state failed at a
// capacity above the largest it was stored with.
func TestMemoGrows(t *testing.T) {
	for _, wide := range []bool{false, true} {
		rng := rand.New(rand.NewPCG(7, 8))
		m := newMemo(200, 0) // full size 1 M slots, starts at memoStart
		require.Equal(t, memoStart, len(m.packed))
		if wide {
			m.store(rng.Uint64()|1, 1<<40) // widens
			require.Nil(t, m.packed)
		}
		stored := map[uint64]int64{}
		slots := map[uint64]bool{}
		for len(stored) < 150000 { // enough to double twice (at 65 536 and 131 072)
			key := rng.Uint64()
			if slots[key&(memoStart-1)] {
				continue // one key per slot of the first size: no collisions at any size
			}
			slots[key&(memoStart-1)] = true
			c := 1 + rng.Int64N(1000)
			m.store(key, c)
			stored[key] = c
		}
		require.Equal(t, uint64(1<<20-1), m.mask, "the table must have grown to its full size")
		for key, c := range stored {
			require.True(t, m.failed(key, c), "wide=%v: entry lost", wide)
			require.False(t, m.failed(key, c+1), "wide=%v: failed above the stored capacity", wide)
		}
		for k := 0; k < 1000; k++ {
			key := rng.Uint64()
			if _, ok := stored[key]; !ok {
				require.False(t, m.failed(key, 1), "wide=%v: a state never stored", wide)
			}
		}
	}
}
