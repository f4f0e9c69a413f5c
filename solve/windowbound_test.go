package solve

import (
	"context"
	"fmt"
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
		p := randomTimed(rng, 2+rng.IntN(6))
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
	rng := rand.New(rand.NewPCG(12, 4))
	raised := 0
	for k := 0; k < 300; k++ {
		p := randomTimed(rng, 3+rng.IntN(5))
		opt, _ := brute.Optimum(p)
		if opt < 0 {
			continue
		}
		best := AlignBound(p).LowerBound
		n := windowBound(context.Background(), p, Options{}, func() int64 { return best }, func(lb int64, method, how string) {
			require.Equal(t, "window", method)
			require.LessOrEqual(t, lb, opt, "instance %d: %s; %+v", k, how, p.Buffers)
			if lb > best {
				best = lb
				raised++
			}
		})
		require.GreaterOrEqual(t, n, 0)
	}
	assert.Greater(t, raised, 0, "windows should raise some bounds")
	t.Logf("windows raised the bound on %d of 300 instances", raised)
}

// randomTimed returns n buffers over times 0..6 with sizes 1..8, a third
// aligned to 2 or 4 and a few pinned at aligned offsets.
func randomTimed(rng *rand.Rand, n int) *model.Problem {
	p := &model.Problem{Name: "timed"}
	for i := range n {
		s := rng.Int64N(6)
		b := model.Buffer{ID: fmt.Sprint(i), Start: s, End: s + 1 + rng.Int64N(6-s), Size: 1 + rng.Int64N(8)}
		if rng.IntN(3) == 0 {
			b.Align = 2 << rng.IntN(2)
		}
		if rng.IntN(8) == 0 {
			o := rng.Int64N(4) * 4
			b.Pin = &o
		}
		p.Buffers = append(p.Buffers, b)
	}
	return p
}
