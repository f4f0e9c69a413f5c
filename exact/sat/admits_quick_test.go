package sat

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/model"
)

// TestQuickGuardUndercounts: whenever the O(n) guard refuses a problem, the
// full count (domainGuard on the built instance) refuses it too, on random
// problems with alignments, pins and a pool alignment.
func TestQuickGuardUndercounts(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 9))
	refused := 0
	for k := 0; k < 2000; k++ {
		p := &model.Problem{Pools: []model.Pool{{Name: "m", Align: []int64{0, 4, 16}[rng.IntN(3)]}}}
		n := 1 + rng.IntN(12)
		for i := 0; i < n; i++ {
			b := model.Buffer{ID: string(rune('a' + i)), Start: rng.Int64N(5), Size: 8 * (1 + rng.Int64N(6))}
			b.End = b.Start + 1 + rng.Int64N(4)
			if rng.IntN(3) == 0 {
				b.Align = []int64{8, 16, 32}[rng.IntN(3)]
			}
			p.Buffers = append(p.Buffers, b)
		}
		if p.Validate() != nil {
			continue
		}
		opt := Options{MaxVars: 1 + rng.Int64N(60)}
		height := p.ComputeSweep().MaxLive + rng.Int64N(64)
		if quickGuard(p, height, opt) == "" {
			continue
		}
		refused++
		in, err := newInstance(p, 0)
		require.NoError(t, err)
		require.NotEmpty(t, domainGuard(in.positive().items, height/in.g, opt), "instance %d: %+v at %d", k, p.Buffers, height)
	}
	require.Greater(t, refused, 100)
}
