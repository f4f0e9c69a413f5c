package sat

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/internal/brute"
	"github.com/optalloc/optalloc/model"
)

// TestProveLowerBoundEqualsBrute: on tiny instances the windows grow to the
// whole problem, so the proven bound must reach the brute-force optimum and
// never exceed it (every refutation is cross-checked by brute force).
func TestProveLowerBoundEqualsBrute(t *testing.T) {
	for _, shape := range randomShapes {
		t.Run(shape.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(11, uint64(len(shape.name))))
			above := 0
			for k := 0; k < 30; k++ {
				p := brute.Random(rng, 3+rng.IntN(brute.MaxBuffers-2), shape.opt)
				opt, _ := brute.Optimum(p)
				if opt < 0 {
					continue
				}
				lb, how, st, err := ProveLowerBound(context.Background(), p, Options{})
				require.NoError(t, err)
				require.Equal(t, opt, lb, "instance %d: %s (%+v) %+v", k, how, st, p.Buffers)
				if lb > p.ComputeSweep().MaxLive {
					above++
					assert.NotEqual(t, "max-live", how)
				}
			}
			t.Logf("%s: %d instances with a bound above max-live", shape.name, above)
		})
	}
}

// TestProveLowerBoundAboveMaxLive: on aligned instances whose optimum
// exceeds max-live (found by brute force; random unaligned tiny instances
// practically never have OPT > LOAD), the window refutations prove the
// optimum, and say so.
func TestProveLowerBoundAboveMaxLive(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 4))
	found := 0
	for k := 0; k < 400 && found < 6; k++ {
		p := brute.Random(rng, 7, brute.RandomOptions{Align: 0.5, MaxSize: 9})
		opt, _ := brute.Optimum(p)
		if opt <= p.ComputeSweep().MaxLive {
			continue
		}
		found++
		lb, how, st, err := ProveLowerBound(context.Background(), p, Options{})
		require.NoError(t, err)
		assert.Equal(t, opt, lb, "instance %d", k)
		assert.Contains(t, how, "window")
		assert.Positive(t, st.Calls)
	}
	require.Equal(t, 6, found, "the generator should give instances with OPT > LOAD")
}

// TestProveLowerBoundRounded: rounding sizes down is a relaxation; with a
// unit that divides nothing it must still never claim more than the optimum.
func TestProveLowerBoundRounded(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	for k := 0; k < 20; k++ {
		p := brute.Random(rng, 3+rng.IntN(brute.MaxBuffers-2), brute.RandomOptions{MaxSize: 16})
		opt, _ := brute.Optimum(p)
		lb, how, _, err := ProveLowerBound(context.Background(), p, Options{RoundUnits: []int64{2, 4}, WindowBuffers: 1})
		require.NoError(t, err)
		require.LessOrEqual(t, lb, opt, "instance %d: %s", k, how)
		require.GreaterOrEqual(t, lb, p.ComputeSweep().MaxLive)
	}
}

// TestProveLowerBoundGaps: gaps are encoded exactly, so the bound is that
// of the problem (max-live here, the optimum); with sizes rounded up the
// model is not exact and only max-live is claimed, saying why.
func TestProveLowerBoundGaps(t *testing.T) {
	p := &model.Problem{Buffers: []model.Buffer{
		{ID: "a", Start: 0, End: 10, Size: 4, Gaps: []model.Gap{{Start: 2, End: 8}}},
		{ID: "b", Start: 3, End: 7, Size: 4},
		{ID: "c", Start: 0, End: 10, Size: 4},
	}}
	lb, how, _, err := ProveLowerBound(context.Background(), p, Options{})
	require.NoError(t, err)
	assert.Equal(t, int64(8), lb)
	assert.Equal(t, "max-live", how)
	lb, how, _, err = ProveLowerBound(context.Background(), p, Options{RoundUp: 4})
	require.NoError(t, err)
	assert.Equal(t, int64(8), lb)
	assert.Contains(t, how, "exact item model")
}
