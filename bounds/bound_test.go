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

// liveAt is the number of bytes live at time t (the sweep's slot there).
func liveAt(p *model.Problem, t int64) int64 {
	for _, sl := range p.ComputeSweep().Slots {
		if sl.Start <= t && t < sl.End {
			return sl.Load
		}
	}
	return 0
}

// TestProversNeverAboveBruteForce: on 300 random tiny problems (some
// aligned, some pinned, some with a pool alignment), every prover's bound
// is at most the brute-force optimum, and its proof holds: max-live's time
// has that many bytes live, the alignment bound is at least max-live and
// its time(s) lie in the schedule, the pins' top is the named pinned
// buffer's top, a window's [from, to) clipped from the problem needs at
// least the bound; Best is the highest of them.
func TestProversNeverAboveBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 1))
	ctx := context.Background()
	checked := 0
	for k := 0; k < 300; k++ {
		p := brute.Random(rng, 2+rng.IntN(6), brute.RandomOptions{MaxSize: 9, Align: 0.4, Pin: 0.15, PoolAlign: 0.2})
		opt, _ := brute.Optimum(p)
		if opt < 0 || p.Validate() != nil {
			continue
		}
		checked++
		ml, err := MaxLiveProver{}.Bound(ctx, p)
		require.NoError(t, err)
		require.Equal(t, p.ComputeSweep().MaxLive, ml.Value, "draw %d", k)
		require.Len(t, ml.Proof.Times, 1)
		require.Equal(t, ml.Value, liveAt(p, ml.Proof.Times[0]), "draw %d: max-live's time", k)

		al, err := AlignProver{}.Bound(ctx, p)
		require.NoError(t, err)
		require.GreaterOrEqual(t, al.Value, ml.Value, "draw %d", k)
		require.LessOrEqual(t, al.Value, opt, "draw %d: %+v", k, p.Buffers)
		require.NotEmpty(t, al.Proof.Times, "draw %d", k)
		require.NotEmpty(t, al.Proof.Detail)
		if al.Value == ml.Value {
			assert.Equal(t, "max-live", al.By)
		}

		pn, err := PinsProver{}.Bound(ctx, p)
		require.NoError(t, err)
		require.LessOrEqual(t, pn.Value, opt, "draw %d", k)
		if len(pn.Proof.Buffers) == 1 {
			b := p.Buffers[pn.Proof.Buffers[0]]
			require.NotNil(t, b.Pin)
			assert.Equal(t, pn.Value, *b.Pin+b.Size, "draw %d", k)
		} else {
			assert.Zero(t, pn.Value)
		}

		w, err := WindowProver{From: ml.Value}.Bound(ctx, p)
		require.NoError(t, err)
		require.GreaterOrEqual(t, w.Value, ml.Value)
		require.LessOrEqual(t, w.Value, opt, "draw %d", k)
		if len(w.Proof.Times) == 2 {
			clipped, _ := brute.Optimum(clip(p, w.Proof.Times[0], w.Proof.Times[1]))
			assert.GreaterOrEqual(t, clipped, w.Value, "draw %d: the window's own optimum", k)
		}

		best, err := Best(ctx, p, Start...)
		require.NoError(t, err)
		assert.Equal(t, max(al.Value, pn.Value), best.Value, "draw %d", k)
	}
	require.Greater(t, checked, 200)
}
