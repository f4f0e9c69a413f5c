package graph

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/model"
)

// TestPeakLoadIsMaxLive: both ways of summing (an array over time, sorted
// events) give model's ComputeSweep().MaxLive, on the problems of the
// golden graphs (aliases, gaps of concurrent models) and on random
// problems with long timelines and gaps.
func TestPeakLoadIsMaxLive(t *testing.T) {
	var ps []*model.Problem
	for _, g := range goldenGraphs(t) {
		if p, rep, err := Read(strings.NewReader(g.src), g.name); err == nil {
			ps = append(ps, p)
			ps = append(ps, rep.Separate...)
			if rep.Reload != nil {
				ps = append(ps, rep.Reload)
			}
		}
	}
	for seed := range uint64(200) {
		rng := rand.New(rand.NewPCG(seed, 5))
		p := &model.Problem{}
		span := []int64{10, 1000, 1 << 40}[rng.IntN(3)]
		for i := range rng.IntN(60) {
			s := rng.Int64N(span)
			b := model.Buffer{ID: fmt.Sprint(i), Start: s, End: s + 1 + rng.Int64N(span-s), Size: rng.Int64N(100)}
			if b.End-b.Start > 2 && rng.IntN(3) == 0 {
				g := b.Start + 1 + rng.Int64N(b.End-b.Start-2)
				b.Gaps = []model.Gap{{Start: g, End: g + 1}}
			}
			p.Buffers = append(p.Buffers, b)
		}
		require.NoError(t, p.Validate())
		ps = append(ps, p)
	}
	for i, p := range ps {
		want := p.ComputeSweep().MaxLive
		pieces := p.Pieces()
		assert.Equal(t, want, peakLoad(pieces, 1<<24), "dense when the timeline is short, problem %d", i)
		assert.Equal(t, want, peakLoad(pieces, -1), "sorted, problem %d", i)
		assert.Equal(t, want, maxLiveOf(p), "problem %d", i)
	}
}
