package bounds

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/internal/brute"
	"github.com/optalloc/optalloc/model"
)

// TestClipIsARelaxation: the brute-force optimum of a clipped window never
// exceeds the problem's.
func TestClipIsARelaxation(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	for k := 0; k < 500; k++ {
		p := brute.Timed(rng, 2+rng.IntN(6))
		opt, _ := brute.Optimum(p)
		if opt < 0 {
			continue // pins that collide: no plan
		}
		a := rng.Int64N(6)
		q := clip(p, a, a+1+rng.Int64N(6-a))
		if len(q.Buffers) == 0 {
			continue
		}
		w, _ := brute.Optimum(q)
		require.GreaterOrEqual(t, w, int64(0), "instance %d: the window of a feasible problem has a plan", k)
		require.LessOrEqual(t, w, opt, "instance %d", k)
	}
}

// TestWindowBoundNeverAboveBruteForce: on random small problems (aligned
// buffers, pins) every bound the window prover raises is at most the
// brute-force optimum, and on some it is above the alignment bound.
func TestWindowBoundNeverAboveBruteForce(t *testing.T) {
	raised := 0
	eachFeasibleTimed(12, 4, 300, func(k int, p *model.Problem, opt int64) {
		best := Align(p).LowerBound
		n := Windows(context.Background(), p, Options{}, func() int64 { return best }, func(lb int64, method, how string) {
			require.Equal(t, "window", method)
			require.LessOrEqual(t, lb, opt, "instance %d: %s; %+v", k, how, p.Buffers)
			if lb > best {
				best = lb
				raised++
			}
		})
		require.GreaterOrEqual(t, n, 0)
	})
	assert.Greater(t, raised, 0, "windows should raise some bounds")
	t.Logf("windows raised the bound on %d of 300 instances", raised)
}

// eachFeasibleTimed draws random problems of 3–7 buffers (brute.Timed)
// from the seeds and calls f with each that has a plan (draw k) and its
// brute-force optimum.
func eachFeasibleTimed(seed1, seed2 uint64, draws int, f func(k int, p *model.Problem, opt int64)) {
	rng := rand.New(rand.NewPCG(seed1, seed2))
	for k := 0; k < draws; k++ {
		p := brute.Timed(rng, 3+rng.IntN(5))
		if opt, _ := brute.Optimum(p); opt >= 0 {
			f(k, p, opt)
		}
	}
}

// TestSATWindowReachesBruteForce: satWindow on a whole random small problem
// (the widest window), from max-live and below a stacked plan's peak,
// climbs exactly to the brute-force optimum: every raise is at most the
// optimum, and the last refutation is one grid unit below it.
func TestSATWindowReachesBruteForce(t *testing.T) {
	climbed := 0
	eachFeasibleTimed(21, 9, 300, func(k int, p *model.Problem, opt int64) {
		var ub int64
		for i := range p.Buffers {
			ub += p.Buffers[i].Size + p.Buffers[i].Align + 1 // above any pushed-down plan's peak
		}
		ub = max(ub, opt+1)
		best := p.ComputeSweep().MaxLive
		start := best
		satWindow(context.Background(), p, Options{}, Grid(p), ub, func() int64 { return best }, func(lb int64, how string) {
			require.LessOrEqual(t, lb, opt, "instance %d: %s; %+v", k, how, p.Buffers)
			require.Greater(t, lb, best, "instance %d: a raise must raise", k)
			best = lb
		})
		require.Equal(t, opt, best, "instance %d: %+v", k, p.Buffers)
		if best > start {
			climbed++
		}
	})
	assert.Greater(t, climbed, 30, "SAT should refute max-live on many of them")
}
