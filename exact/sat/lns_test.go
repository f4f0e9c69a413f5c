package sat

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/internal/brute"
	"github.com/optalloc/optalloc/model"
)

// TestImproveValidAndMonotone: on random instances (including pins and
// alignment) every plan Improve offers verifies and has a strictly lower
// peak than the previous one, and it never goes below the brute optimum.
func TestImproveValidAndMonotone(t *testing.T) {
	for _, shape := range randomShapes {
		t.Run(shape.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(31, uint64(len(shape.name))))
			for k := 0; k < 15; k++ {
				p := brute.Random(rng, 3+rng.IntN(brute.MaxBuffers-2), shape.opt)
				opt, _ := brute.Optimum(p)
				if opt < 0 {
					continue
				}
				last := int64(1 << 62)
				pl, _, err := Improve(context.Background(), p, nil, Options{LNSBuffers: 3}, func(q *model.Plan) {
					requireValid(t, p, q)
					require.Less(t, q.Peak(p), last)
					last = q.Peak(p)
				})
				require.NoError(t, err)
				requireValid(t, p, pl)
				require.GreaterOrEqual(t, pl.Peak(p), opt)
			}
		})
	}
}

// TestImprovePerfectPacking: from a poor stacked incumbent, small
// neighbourhoods bring a 60-buffer perfect packing close to (usually at)
// its optimum.
func TestImprovePerfectPacking(t *testing.T) {
	p, _ := brute.PerfectPacking(rand.New(rand.NewPCG(1, 99)), 40, 256, 60)
	stack := model.NewPlan(p)
	var top int64
	for i := range stack.Placements {
		stack.Placements[i].Offset = top
		top += p.Buffers[i].Size
	}
	requireValid(t, p, stack)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	pl, st, err := Improve(ctx, p, stack, Options{LNSBuffers: 12}, nil)
	require.NoError(t, err)
	requireValid(t, p, pl)
	t.Logf("stacked %d → %d (optimum 256): %+v", top, pl.Peak(p), st)
	assert.Less(t, pl.Peak(p), top/2, "stats %+v", st)
	assert.GreaterOrEqual(t, pl.Peak(p), int64(256))
}
