package heuristics

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// seg is a segment of the reference arena in TestBlocks.
type seg struct {
	lo, size int64
	free     bool
}

// TestBlocks drives the free-list arena's blocks with random pushes, pads,
// takes and releases (with and without coalescing), keeping a plain slice
// of segments as the reference: after every step the address order must be
// the slice, and the treap's ceil, below and max must be those of the
// sorted free blocks.
func TestBlocks(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for trial := range 40 {
		b := newBlocks()
		var ref []seg
		var idx []int32 // ref position → node
		var top int64
		for step := range 400 {
			free := []int{}
			held := []int{}
			for i, s := range ref {
				if s.free {
					free = append(free, i)
				} else {
					held = append(held, i)
				}
			}
			switch op := r.IntN(4); {
			case op == 0 || len(ref) == 0:
				// pad to a new top (coalescing or not), then push a held segment
				to := top + int64(r.IntN(3))
				co := r.IntN(2) == 0
				b.pad(top, to, co)
				if to > top {
					if co && len(ref) > 0 && ref[len(ref)-1].free {
						ref[len(ref)-1].size += to - top
					} else {
						ref = append(ref, seg{top, to - top, true})
						idx = append(idx, b.tail)
					}
				}
				size := int64(1 + r.IntN(8))
				i := b.push(to, size, false)
				ref, idx = append(ref, seg{to, size, false}), append(idx, i)
				top = to + size
			case op == 1 && len(free) > 0:
				x := free[r.IntN(len(free))]
				s := ref[x]
				size := 1 + r.Int64N(s.size)
				c := s.lo + r.Int64N(s.size-size+1)
				u := b.take(idx[x], c, size)
				var parts []seg
				if c > s.lo {
					parts = append(parts, seg{s.lo, c - s.lo, true})
				}
				parts = append(parts, seg{c, size, false})
				if c+size < s.lo+s.size {
					parts = append(parts, seg{c + size, s.lo + s.size - c - size, true})
				}
				ref = slices.Replace(ref, x, x+1, parts...)
				idx = slices.Replace(idx, x, x+1, make([]int32, len(parts))...)
				// the parts' nodes are new: renumber from the address order
				n := b.head
				for i := range idx {
					idx[i] = n
					n = b.ns[n].next
				}
				require.Equal(t, idx[x+btoi(c > s.lo)], u, "trial %d step %d", trial, step)
			case len(held) > 0:
				x := held[r.IntN(len(held))]
				co := r.IntN(3) > 0
				b.release(idx[x], co)
				ref[x].free = true
				if co && x+1 < len(ref) && ref[x+1].free {
					ref[x].size += ref[x+1].size
					ref, idx = slices.Delete(ref, x+1, x+2), slices.Delete(idx, x+1, x+2)
				}
				if co && x > 0 && ref[x-1].free {
					ref[x-1].size += ref[x].size
					ref, idx = slices.Delete(ref, x, x+1), slices.Delete(idx, x-1, x)
				}
			}
			checkBlocks(t, &b, ref, idx, r)
		}
	}
}

func btoi(v bool) int {
	if v {
		return 1
	}
	return 0
}

// checkBlocks compares b with the reference segments and their nodes.
func checkBlocks(t *testing.T, b *blocks, ref []seg, idx []int32, r *rand.Rand) {
	t.Helper()
	var got []seg
	var prev int32
	for n := b.head; n != 0; n = b.ns[n].next {
		require.Equal(t, prev, b.ns[n].prev)
		got = append(got, seg{b.ns[n].lo, b.ns[n].size, b.ns[n].free})
		prev = n
	}
	require.Equal(t, prev, b.tail)
	require.Equal(t, ref, got)
	for i, n := range idx {
		require.Equal(t, ref[i].lo, b.ns[n].lo)
	}
	var keys [][2]int64
	for _, s := range ref {
		if s.free {
			keys = append(keys, [2]int64{s.size, s.lo})
		}
	}
	slices.SortFunc(keys, func(x, y [2]int64) int {
		if c := cmp.Compare(x[0], y[0]); c != 0 {
			return c
		}
		return cmp.Compare(x[1], y[1])
	})
	key := func(n int32) [2]int64 { return [2]int64{b.ns[n].size, b.ns[n].lo} }
	// the treap in order is the sorted free blocks
	var walk [][2]int64
	for n := b.ceil(0, -1); n != 0; n = b.ceil(b.ns[n].size, b.ns[n].lo+1) {
		walk = append(walk, key(n))
	}
	require.Equal(t, len(keys), len(walk))
	if len(keys) > 0 {
		require.Equal(t, keys, walk)
		require.Equal(t, keys[len(keys)-1], key(b.max()))
	} else {
		require.Zero(t, b.max())
	}
	for range 5 {
		q := [2]int64{int64(r.IntN(12)), int64(r.IntN(40)) - 1}
		less := func(x [2]int64) bool { return x[0] < q[0] || (x[0] == q[0] && x[1] < q[1]) }
		j := 0
		for j < len(keys) && less(keys[j]) {
			j++
		}
		if c := b.ceil(q[0], q[1]); j == len(keys) {
			require.Zero(t, c)
		} else {
			require.Equal(t, keys[j], key(c))
		}
		if c := b.below(q[0], q[1]); j == 0 {
			require.Zero(t, c)
		} else {
			require.Equal(t, keys[j-1], key(c))
		}
	}
}
