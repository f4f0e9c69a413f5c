package bnb

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/optalloc/optalloc/internal/brute"
	"github.com/optalloc/optalloc/verify"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRoundLimit(t *testing.T) {
	for _, tc := range []struct {
		base  int64
		round int
		want  int64
	}{
		{8192, 0, 8192},
		{8192, 1, 16384},
		{8192, 3, 65536},
		{8192, -1, 4096},
		{8192, -4, 512},
		{16, -4, 1},
		{16, -6, 1}, // never below one node
		{1, -70, 1},
		{1, 40, 1 << 40},
		{1, 90, 1 << 40}, // capped
	} {
		assert.Equal(t, tc.want, roundLimit(tc.base, tc.round), "base %d round %d", tc.base, tc.round)
	}
}

// TestProbesWithTinyLimits decides random tiny instances just below, at and
// above their brute-force optimum with node limits so small that Decide's
// warm-up probes (NodeLimit/2^probeWarmup nodes, then doubling, one round
// per step at the bound, the capacity and a rung) abort again and again
// before an answer: the answers must still be exact.
func TestProbesWithTinyLimits(t *testing.T) {
	rng := rand.New(rand.NewPCG(44, 2))
	ctx := context.Background()
	checked, probed := 0, 0
	for k := 0; k < 1500; k++ {
		p := brute.Random(rng, 3+rng.IntN(6), brute.RandomOptions{MaxSize: 1 + rng.Int64N(40)})
		want, _ := brute.Optimum(p)
		if want <= 1 {
			continue
		}
		opt := Options{Threads: 1 + k%2, NodeLimit: 1 + rng.Int64N(32)}
		_, status, _, err := Decide(ctx, p, want-1, opt)
		require.NoError(t, err)
		require.Equal(t, Infeasible, status, "instance %d: %+v", k, p.Buffers)
		for _, c := range []int64{want, want + 1 + rng.Int64N(want)} {
			pl, status, _, err := Decide(ctx, p, c, opt)
			require.NoError(t, err)
			require.Equal(t, Feasible, status, "instance %d at %d: %+v", k, c, p.Buffers)
			require.Empty(t, verify.Check(p, pl))
			require.LessOrEqual(t, pl.Peak(p), c)
			if p.ComputeSweep().MaxLive < c {
				probed++ // the bound lies below the capacity: the probes ran
			}
		}
		checked++
	}
	require.Greater(t, checked, 1000)
	require.Greater(t, probed, 1000)
}
