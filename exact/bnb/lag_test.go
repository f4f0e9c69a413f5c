package bnb

import (
	"context"
	"math/rand/v2"
	"sync/atomic"
	"testing"

	"github.com/optalloc/optalloc/internal/brute"
	"github.com/optalloc/optalloc/verify"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLag(t *testing.T) {
	for _, tc := range []struct {
		name    string
		depths  []int64
		stalled []bool
		k       int
		round   int
		random  bool // order k is "random"
		noLag   bool
		want    int
	}{
		{"round 0 never lags", []int64{10, 1}, []bool{false, true}, 1, 0, false, false, 0},
		{"warm-up rounds never lag", []int64{10, 1}, []bool{false, true}, 1, -3, false, false, 0},
		{"deepest growing", []int64{10, 6}, []bool{false, false}, 0, 1, false, false, 0},
		{"half the deepest is not shallow", []int64{10, 5}, []bool{false, false}, 1, 2, false, false, 0},
		{"under half the deepest", []int64{10, 4}, []bool{false, false}, 1, 2, false, false, lagRounds},
		{"fresh shuffle (no depth)", []int64{10, 0}, []bool{false, false}, 1, 1, false, false, lagRounds},
		{"deepest but stalled", []int64{10, 9}, []bool{true, false}, 0, 3, false, false, lagRounds},
		{"all at zero", []int64{0, 0}, []bool{false, false}, 0, 1, false, false, 0},
		{"random lags in round 0", []int64{10, 0}, []bool{false, false}, 1, 0, true, false, lagRounds},
		{"random lags in warm-up rounds", []int64{10, 0}, []bool{false, false}, 1, -4, true, false, lagRounds},
		{"random lags even when deep", []int64{5, 10}, []bool{false, false}, 1, 3, true, false, lagRounds},
		{"NoLag: shallow", []int64{10, 4}, []bool{false, false}, 1, 2, false, true, 0},
		{"NoLag: stalled", []int64{10, 9}, []bool{true, false}, 0, 3, false, true, 0},
		{"NoLag: random", []int64{10, 0}, []bool{false, false}, 1, 0, true, true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := &compSolver{stalled: tc.stalled, depth: make([]atomic.Int64, len(tc.depths)), opt: Options{NoLag: tc.noLag}}
			cs.names = make([]string, len(tc.depths))
			if tc.random {
				cs.names[tc.k] = "random"
			}
			for j, d := range tc.depths {
				cs.depth[j].Store(d)
			}
			assert.Equal(t, tc.want, cs.lag(tc.k, tc.round))
		})
	}
}

// TestLaggedRoundsExact decides random small instances at, below and above
// their brute-force optimum with node limits of 1–4, so that the portfolio
// runs many rounds with lagging orders (limits of round r−lagRounds, one
// node for a long time): the answers must still be exact, on one and two
// threads.
func TestLaggedRoundsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(44, 8))
	ctx := context.Background()
	checked := 0
	for k := 0; k < 400; k++ {
		p := brute.Random(rng, 5+rng.IntN(4), brute.RandomOptions{MaxSize: 1 + rng.Int64N(24)})
		want, _ := brute.Optimum(p)
		if want <= 1 {
			continue
		}
		opt := Options{Threads: 1 + k%2, NodeLimit: 1 + rng.Int64N(4)}
		_, status, _, err := Decide(ctx, p, want-1, opt)
		require.NoError(t, err)
		require.Equal(t, Infeasible, status, "instance %d: %+v", k, p.Buffers)
		for _, c := range []int64{want, want + rng.Int64N(want)} {
			pl, status, _, err := Decide(ctx, p, c, opt)
			require.NoError(t, err)
			require.Equal(t, Feasible, status, "instance %d at %d: %+v", k, c, p.Buffers)
			require.Empty(t, verify.Check(p, pl))
			require.LessOrEqual(t, pl.Peak(p), c)
		}
		checked++
	}
	require.Greater(t, checked, 300)
}
