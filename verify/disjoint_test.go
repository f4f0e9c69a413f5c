package verify

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// meets is the brute-force definition disjoint must agree with: some pair
// of rectangles shares an instant and a byte of one pool.
func meets(rects []occ) bool {
	for a := range rects {
		for b := a + 1; b < len(rects); b++ {
			x, y := &rects[a], &rects[b]
			if x.pool == y.pool && x.t0 < y.t1 && y.t0 < x.t1 && x.lo < y.hi && y.lo < x.hi {
				return true
			}
		}
	}
	return false
}

// TestDisjointMatchesBruteForce is the differential test of Check's fast
// path: on random rectangle sets (small coordinates, so ties and touching
// edges are common; several pools; sets built disjoint and then perhaps
// spoiled; times spread out a third of the time, for each way of sorting
// them) disjoint says yes exactly when no pair meets.
func TestDisjointMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	seen := map[bool]int{}
	for trial := 0; trial < 3000; trial++ {
		n := 1 + rng.IntN(40)
		pools := 1 + rng.IntN(3)
		var rects []occ
		for len(rects) < n {
			t0, lo := int64(rng.IntN(20))-5, int64(rng.IntN(30))
			r := occ{t0: t0, t1: t0 + 1 + int64(rng.IntN(6)), lo: lo, hi: lo + 1 + int64(rng.IntN(8)), pool: rng.IntN(pools), buf: len(rects)}
			if trial%2 == 0 && meets(append(rects, r)) {
				continue // build disjoint sets half the time
			}
			rects = append(rects, r)
			if trial%2 == 0 && rng.IntN(3) == 0 && len(rects) >= 20 {
				break
			}
		}
		if trial%4 == 0 && len(rects) > 1 {
			i, j := rng.IntN(len(rects)), rng.IntN(len(rects))
			rects[i].lo, rects[i].hi, rects[i].pool = rects[j].lo, rects[j].hi, rects[j].pool
		}
		// times spread wide take the packed sort (×4096) and the
		// comparison sort (×2³⁴) instead of the counting sort
		if scale := []int64{1, 4096, 1 << 34}[trial%3]; scale > 1 {
			for i := range rects {
				rects[i].t0 *= scale
				rects[i].t1 *= scale
			}
		}
		want := !meets(rects)
		seen[want]++
		require.Equal(t, want, disjoint(rects), "trial %d: %+v", trial, rects)
	}
	assert.Greater(t, seen[true], 500)
	assert.Greater(t, seen[false], 500)
}

// TestDisjointWideCoordinates: times and offsets across the whole int64
// range take the slow sorting paths.
func TestDisjointWideCoordinates(t *testing.T) {
	const big = int64(1) << 62
	rects := []occ{
		{t0: -big, t1: big, lo: 0, hi: 10},
		{t0: -big, t1: big, lo: 10, hi: big},
		{t0: big, t1: big + 1, lo: 5, hi: 6, pool: 1},
	}
	assert.True(t, disjoint(rects))
	rects[1].lo = 9
	assert.False(t, disjoint(rects))
}

// TestBitTreeMatchesSet drives the bit tree and a plain set with the same
// operations and compares every predecessor and successor.
func TestBitTreeMatchesSet(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{1, 63, 64, 65, 4096, 4097, 300_000} {
		bt, in := newBitTree(n), make([]bool, n)
		for op := 0; op < 4000; op++ {
			x := rng.IntN(n)
			if rng.IntN(2) == 0 {
				bt.insert(x)
				in[x] = true
			} else if in[x] {
				bt.remove(x)
				in[x] = false
			}
			y := rng.IntN(n)
			wantP, wantS := -1, -1
			for k := y - 1; k >= 0; k-- {
				if in[k] {
					wantP = k
					break
				}
			}
			for k := y + 1; k < n; k++ {
				if in[k] {
					wantS = k
					break
				}
			}
			require.Equal(t, wantP, bt.pred(y), "n=%d pred(%d)", n, y)
			require.Equal(t, wantS, bt.succ(y), "n=%d succ(%d)", n, y)
		}
	}
}
