package model

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPeakLoadIsMaxLive: both ways of summing (an array over time, sorted
// events) give the sweep's max-live and the first slot that reaches it, on
// random problems with aliases, gaps, long and negative timelines; PiecesOf
// with the parents found by id is Pieces.
func TestPeakLoadIsMaxLive(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 1))
	for trial := range 400 {
		p := randProblem(rng, 1+rng.IntN(40), genOptions{zeros: true, aliases: true, gaps: true, horizon: int64(2 + rng.IntN(40))})
		if trial%3 == 1 {
			for i := range p.Buffers {
				b := &p.Buffers[i]
				b.Start, b.End = b.Start*(1<<30)-(1<<40), b.End*(1<<30)-(1<<40)
				for g := range b.Gaps {
					b.Gaps[g].Start, b.Gaps[g].End = b.Gaps[g].Start*(1<<30)-(1<<40), b.Gaps[g].End*(1<<30)-(1<<40)
				}
			}
		}
		if p.Validate() != nil {
			continue
		}
		sw := p.ComputeSweep()
		var wantAt int64
		for _, sl := range sw.Slots {
			if sl.Load == sw.MaxLive {
				wantAt = sl.Start
				break
			}
		}
		pieces := p.Pieces()
		require.Equal(t, pieces, p.PiecesOf(p.AliasParents()), "trial %d", trial)
		for _, dense := range []int64{1 << 24, -1} {
			live, at := peakLoad(pieces, dense)
			require.Equal(t, sw.MaxLive, live, "trial %d, dense %d", trial, dense)
			if live > 0 {
				require.Equal(t, wantAt, at, "trial %d, dense %d", trial, dense)
			}
		}
	}
	live, at := PeakLoad(nil)
	require.Zero(t, live)
	require.Zero(t, at)
}
