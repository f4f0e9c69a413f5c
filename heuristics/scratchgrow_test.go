package heuristics_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/optalloc/optalloc/formats/graph"
	"github.com/optalloc/optalloc/heuristics"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/verify"
	"github.com/stretchr/testify/require"
)

// TestScratchGrowthTable measures seed 004's use: the tensors of each
// example graph are planned without their scratch buffers (greedy-size),
// then FillScratch fits the scratch in, growing the arena at the top only
// or at either end, with scratch at the bottom or top of its gap. Every
// plan is verified; the peaks are printed (go test ./heuristics -run
// TestScratchGrowthTable -v) and docs/heuristics.md quotes them.
func TestScratchGrowthTable(t *testing.T) {
	files, _ := filepath.Glob("../examples/*.graph.json")
	require.NotEmpty(t, files)
	greedy, _ := heuristics.ByName("greedy-size")
	opts := []heuristics.ScratchOptions{{}, {GrowBottom: true}, {Top: true}, {Top: true, GrowBottom: true}}
	t.Logf("%-36s %12s %12s %12s %12s %12s", "graph (scratch bytes)", "tensors", "top", "either", "top/place-top", "either/place-top")
	for _, f := range files {
		r, err := os.Open(f)
		require.NoError(t, err)
		p, _, err := graph.Read(r, f)
		r.Close()
		require.NoError(t, err)
		// the tensors alone
		var rest model.Problem
		rest.Pools = p.Pools
		var scratch int64
		for _, b := range p.Buffers {
			if b.Kind == model.Scratch {
				scratch += b.Size
				continue
			}
			rest.Buffers = append(rest.Buffers, b)
		}
		tp, err := greedy.Plan(context.Background(), &rest)
		require.NoError(t, err)
		full := &model.Plan{}
		k := 0
		for _, b := range p.Buffers {
			if b.Kind == model.Scratch {
				full.Placements = append(full.Placements, model.Placement{Size: b.Size})
				continue
			}
			full.Placements = append(full.Placements, tp.Placements[k])
			k++
		}
		row := fmt.Sprintf("%-36s %12d", fmt.Sprintf("%s (%d)", filepath.Base(f), scratch), tp.Peak(&rest))
		for _, o := range opts {
			got, err := heuristics.FillScratch(p, full, o)
			require.NoError(t, err)
			require.Empty(t, verify.Check(p, got), "%s %+v", f, o)
			row += fmt.Sprintf(" %12d", got.Peak(p))
		}
		t.Log(row)
	}
	// random layer chains: each op's output lives 1-4 ops, one scratch
	// buffer per op of up to 3x the largest tensor size
	rng := rand.New(rand.NewPCG(4, 27))
	const runs = 200
	var lower, higher int
	var ratio float64
	for run := 0; run < runs; run++ {
		p := &model.Problem{}
		ops := 10 + rng.IntN(30)
		for i := 0; i < ops; i++ {
			p.Buffers = append(p.Buffers, model.Buffer{ID: fmt.Sprint("t", i), Start: int64(i), End: int64(i + 1 + rng.IntN(4)), Size: int64(1 + rng.IntN(100))})
			p.Buffers = append(p.Buffers, model.Buffer{ID: fmt.Sprint("s", i), Start: int64(i), End: int64(i + 1), Size: int64(1 + rng.IntN(300)), Kind: model.Scratch})
		}
		var rest model.Problem
		for _, b := range p.Buffers {
			if b.Kind != model.Scratch {
				rest.Buffers = append(rest.Buffers, b)
			}
		}
		tp, err := greedy.Plan(context.Background(), &rest)
		require.NoError(t, err)
		full := &model.Plan{}
		for k, b := range p.Buffers {
			pl := model.Placement{Size: b.Size}
			if b.Kind != model.Scratch {
				pl = tp.Placements[k/2]
			}
			full.Placements = append(full.Placements, pl)
		}
		top, err := heuristics.FillScratch(p, full, heuristics.ScratchOptions{})
		require.NoError(t, err)
		either, err := heuristics.FillScratch(p, full, heuristics.ScratchOptions{GrowBottom: true})
		require.NoError(t, err)
		require.Empty(t, verify.Check(p, either))
		a, b := top.Peak(p), either.Peak(p)
		switch {
		case b < a:
			lower++
		case b > a:
			higher++
		}
		ratio += float64(b) / float64(a)
	}
	t.Logf("random chains: growing at either end gives a lower peak on %d of %d, higher on %d; mean peak either/top %.4f", lower, runs, higher, ratio/runs)
}
