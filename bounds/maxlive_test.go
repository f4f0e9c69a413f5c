package bounds

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/internal/brute"
	"github.com/optalloc/optalloc/model"
)

// TestMaxLiveMatchesSweep: the start bound's max-live without the sweep
// equals the sweep's, with gaps, partial gaps and alias groups.
func TestMaxLiveMatchesSweep(t *testing.T) {
	for seed := uint64(1); seed <= 200; seed++ {
		rng := rand.New(rand.NewPCG(seed, 9))
		p := brute.Random(rng, 2+rng.IntN(30), brute.RandomOptions{MaxSize: 64, ZeroSize: 0.1})
		for i := range p.Buffers {
			b := &p.Buffers[i]
			switch r := rng.IntN(6); {
			case r == 0 && b.End-b.Start >= 3:
				b.Gaps = []model.Gap{{Start: b.Start + 1, End: b.Start + 2}}
			case r == 1 && b.End-b.Start >= 3 && b.Size >= 2:
				b.Gaps = []model.Gap{{Start: b.Start + 1, End: b.End - 1, Window: true, Lo: 0, Hi: b.Size / 2}}
			case r == 2 && i > 0:
				par := &p.Buffers[i-1]
				if par.Alias == nil && par.Pin == nil && b.Pin == nil && par.Size >= 2 && len(par.Gaps) == 0 && len(b.Gaps) == 0 {
					b.Alias = &model.Alias{Parent: par.ID, Delta: 1}
					b.Size = par.Size - 1
					b.Start, b.End = par.Start, par.End
					b.Align = 0
				}
			}
		}
		if p.Validate() != nil {
			continue // a combination the model refuses: not this test's concern
		}
		require.Equal(t, p.ComputeSweep().MaxLive, MaxLive(p), "seed %d", seed)
	}
}
