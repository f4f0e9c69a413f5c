package blockunion

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bruteUnion enumerates every placement of xs (one time) and ys (the
// other) at block offsets of the A-grid, items of one time disjoint, within
// as many blocks as all items take together (an optimal placement has no
// block empty at both times, so it fits), and returns the smallest
// Σ_blocks max(cX, cY).
func bruteUnion(xs, ys []int64, A int64) int64 {
	blocks := func(s int64) int { return int((s + A - 1) / A) }
	n := 0
	for _, s := range append(append([]int64(nil), xs...), ys...) {
		n += blocks(s)
	}
	cx, cy := make([]int64, n), make([]int64, n)
	best := int64(-1)
	var place func(items []int64, cov []int64, k int, then func())
	place = func(items []int64, cov []int64, k int, then func()) {
		if k == len(items) {
			then()
			return
		}
		c := blocks(items[k])
		for at := 0; at+c <= n; at++ {
			free := true
			for b := at; b < at+c; b++ {
				free = free && cov[b] == 0
			}
			if !free {
				continue
			}
			rest := items[k]
			for b := at; b < at+c; b++ {
				cov[b] = min(rest, A)
				rest -= cov[b]
			}
			place(items, cov, k+1, then)
			for b := at; b < at+c; b++ {
				cov[b] = 0
			}
		}
	}
	place(xs, cx, 0, func() {
		place(ys, cy, 0, func() {
			var u int64
			for b := range n {
				u += max(cx[b], cy[b])
			}
			if best < 0 || u < best {
				best = u
			}
		})
	})
	return best
}

// TestMinUnionEqualsBruteForce: on random small item sets the search
// equals enumeration, the block relaxation is never above it and the
// stacked placement never below it.
func TestMinUnionEqualsBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 11))
	for k := 0; k < 1500; k++ {
		A := int64(2 + rng.IntN(5))
		gen := func() []int64 {
			v := make([]int64, 1+rng.IntN(3))
			for i := range v {
				v[i] = 1 + rng.Int64N(2*A+1)
			}
			return v
		}
		xs, ys := gen(), gen()
		want := bruteUnion(xs, ys, A)
		got, _, ok := Min(xs, ys, A, 1<<20)
		require.True(t, ok)
		require.Equal(t, want, got, "A=%d xs=%v ys=%v", A, xs, ys)
		assert.LessOrEqual(t, Relaxed(xs, ys, A), got, "relaxation above the minimum: A=%d xs=%v ys=%v", A, xs, ys)
		assert.GreaterOrEqual(t, Stacked(append([]int64(nil), xs...), append([]int64(nil), ys...), A), got,
			"a placement below the minimum: A=%d xs=%v ys=%v", A, xs, ys)
	}
}

// TestMinUnionExample is the example of bounds/pair.go
// (MiniMalloc C with alignment 65536, in 1 KiB units:
// a 696-unit buffer at one time, 86, 144 and 466 at the next).
func TestMinUnionExample(t *testing.T) {
	got, _, ok := Min([]int64{696}, []int64{86, 144, 466}, 64, 1<<20)
	require.True(t, ok)
	assert.Equal(t, int64(782), got)
	assert.Equal(t, int64(730), Relaxed([]int64{696}, []int64{86, 144, 466}, 64))
}
