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

// TestMaxLiveOf: the report's max-live from the alias parents is model's
// ComputeSweep().MaxLive, on the problems of the golden graphs (aliases,
// gaps of concurrent models) and on random problems with long timelines
// and gaps.
func TestMaxLiveOf(t *testing.T) {
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
		assert.Equal(t, p.ComputeSweep().MaxLive, maxLiveOf(p, p.AliasParents()), "problem %d", i)
	}
}

// TestReportMaxLive: the max-live figures of the report, computed from
// the parents emit records, are ComputeSweep's, for the whole problem and
// for every model alone.
func TestReportMaxLive(t *testing.T) {
	for _, g := range goldenGraphs(t) {
		p, rep, err := Read(strings.NewReader(g.src), g.name)
		if err != nil {
			continue
		}
		assert.Equal(t, p.ComputeSweep().MaxLive, rep.MaxLive, g.name)
		for k, sep := range rep.Separate {
			assert.Equal(t, sep.ComputeSweep().MaxLive, rep.Models[k].MaxLive, "%s: model %d", g.name, k)
		}
	}
	var data strings.Builder
	data.WriteString(`{"tensors": [{"name": "x0", "bytes": 64, "kind": "input"}`)
	for i := 1; i <= 3000; i++ {
		fmt.Fprintf(&data, `, {"name": "x%d", "bytes": 64}`, i)
	}
	data.WriteString(`], "ops": [`)
	for i := 1; i <= 3000; i++ {
		if i > 1 {
			data.WriteString(", ")
		}
		fmt.Fprintf(&data, `{"name": "r%d", "type": "Reshape", "inputs": ["x%d"], "outputs": ["x%d"]}`, i, i-1, i)
	}
	data.WriteString(`]}`)
	p, rep, err := Read(strings.NewReader(data.String()), "chain")
	require.NoError(t, err)
	assert.Equal(t, p.ComputeSweep().MaxLive, rep.MaxLive, "one alias chain 3000 deep")
}
