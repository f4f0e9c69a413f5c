package benchmarks

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/model"
)

// TestTrainingShape: valid, deterministic, exactly the buffers asked for,
// with weights live throughout, about half tiny buffers and sizes
// spanning bytes to at least megabytes.
func TestTrainingShape(t *testing.T) {
	for _, n := range []int{10000, 40000} {
		for seed := uint64(1); seed <= 3; seed++ {
			p := Training(TrainingOptions{Buffers: n, Seed: seed})
			require.NoError(t, p.Validate())
			require.Len(t, p.Buffers, n)
			require.Equal(t, p.Buffers, Training(TrainingOptions{Buffers: n, Seed: seed}).Buffers)
			var lo, hi int64 = 1 << 62, 0
			var end, minSize, maxSize int64 = 0, 1 << 62, 0
			tiny, weights := 0, 0
			for _, b := range p.Buffers {
				lo, hi = min(lo, b.Start), max(hi, b.End)
				end = max(end, b.End)
				minSize, maxSize = min(minSize, b.Size), max(maxSize, b.Size)
				if b.Size <= 64 {
					tiny++
				}
				if b.Kind == model.Weight {
					weights++
				}
			}
			for _, b := range p.Buffers {
				if b.Kind == model.Weight {
					assert.Equal(t, end, b.End, b.ID)
				}
			}
			assert.Positive(t, weights)
			assert.InDelta(t, 0.5, float64(tiny)/float64(n), 0.15, "seed %d: tiny share", seed)
			assert.LessOrEqual(t, minSize, int64(4))
			assert.GreaterOrEqual(t, maxSize, int64(1<<20))
		}
	}
}

// TestSkipsShape: two models of ops ops each, valid and deterministic,
// with some lifetimes far longer than an op.
func TestSkipsShape(t *testing.T) {
	p := Skips(1, 2, 3000)
	require.NoError(t, p.Validate())
	require.Equal(t, p.Buffers, Skips(1, 2, 3000).Buffers)
	long := 0
	for _, b := range p.Buffers {
		if b.End-b.Start > 100 {
			long++
		}
	}
	assert.Greater(t, len(p.Buffers), 6000)
	assert.Greater(t, long, 500)
}
