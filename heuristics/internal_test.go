package heuristics

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

func randomItems(r *rand.Rand, n int) []item {
	its := make([]item, n)
	for k := range its {
		s := int64(r.IntN(50))
		its[k] = item{start: s, end: s + 1 + int64(r.IntN(15)), size: int64(r.IntN(20)), align: int64(1 + r.IntN(2)*3), pin: -1}
	}
	return its
}

// TestLiveIntegrals compares the O(n log n) degree and overlap metrics
// with the pairwise definition.
func TestLiveIntegrals(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		its := randomItems(r, 1+r.IntN(40))
		deg, ov := liveIntegrals(its)
		for a := range its {
			var d, o float64
			for b := range its {
				if a != b && its[a].size > 0 && its[b].size > 0 && its[a].start < its[b].end && its[b].start < its[a].end {
					d++
					o += float64(min(its[a].end, its[b].end) - max(its[a].start, its[b].start))
				}
			}
			require.Equal(t, d, deg[a])
			require.Equal(t, o, ov[a])
		}
	}
}

// TestPlacerTreeEqualsScan checks that the interval-tree placer and the
// chunked linear scan make the same decisions, and that maxLive is below
// every peak.
func TestPlacerTreeEqualsScan(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 300 {
		its := randomItems(r, 1+r.IntN(600))
		order := make([]int32, len(its))
		for k := range order {
			order[k] = int32(k)
		}
		r.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for _, ff := range []bool{false, true} {
			a := newPlacer(its)
			a.tree = nil
			pa, err := a.run(context.Background(), order, ff)
			require.NoError(t, err)
			b := newPlacer(its)
			b.tree = newITree(b.rs, b.re)
			pb, err := b.run(context.Background(), order, ff)
			require.NoError(t, err)
			require.Equal(t, a.off, b.off)
			require.Equal(t, pa, pb)
			require.LessOrEqual(t, maxLive(its), pa)
		}
	}
}

// TestConflictPairs compares the O(n log n) pair count with the pairs.
func TestConflictPairs(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for range 300 {
		its := randomItems(r, 1+r.IntN(60))
		var want float64
		for a := range its {
			for b := a + 1; b < len(its); b++ {
				if its[a].size > 0 && its[b].size > 0 && its[a].start < its[b].end && its[b].start < its[a].end {
					want++
				}
			}
		}
		rs, re := timeRanks(its)
		require.Equal(t, want, conflictPairs(rs, re, func(k int) bool { return its[k].size > 0 }))
	}
}
