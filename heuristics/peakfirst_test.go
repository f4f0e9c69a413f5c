package heuristics_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/benchmarks"
	"github.com/optalloc/optalloc/heuristics"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/verify"
)

// TestPeakFirstHandCase: the buffers live at the peak time (3) come first,
// the longest-lived lowest; the others follow by size, lowest fit. The
// size order would put "wide" (the largest) at 0 and leave "long" on top
// of it for the whole trace.
func TestPeakFirstHandCase(t *testing.T) {
	p := &model.Problem{Buffers: []model.Buffer{
		{ID: "wide", Start: 0, End: 2, Size: 10},
		{ID: "long", Start: 0, End: 6, Size: 4},
		{ID: "mid", Start: 2, End: 5, Size: 6},
		{ID: "late", Start: 4, End: 6, Size: 5},
		{ID: "zero", Start: 3, End: 4, Size: 0},
	}}
	plan, err := (heuristics.PeakFirst{}).Plan(context.Background(), p)
	require.NoError(t, err)
	require.Empty(t, verify.Check(p, plan))
	off := map[string]int64{}
	for i, b := range p.Buffers {
		off[b.ID] = plan.Placements[i].Offset
	}
	// peak at 4: long + mid + late = 15 (at 0..2: 14)
	assert.Equal(t, map[string]int64{"long": 0, "mid": 4, "late": 10, "wide": 4, "zero": 0}, off)
	assert.Equal(t, int64(15), plan.Peak(p))
}

// TestPeakFirstTraining: on generated training traces the peak order ends
// within 0.1% of max-live and below the textbook greedy.
func TestPeakFirstTraining(t *testing.T) {
	for _, seed := range []uint64{1, 2, 4} {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			p := benchmarks.Training(benchmarks.TrainingOptions{Buffers: 8000, Seed: seed})
			lb := p.ComputeSweep().MaxLive
			tb, err := (heuristics.Textbook{}).Plan(context.Background(), p)
			require.NoError(t, err)
			pf, err := (heuristics.PeakFirst{}).Plan(context.Background(), p)
			require.NoError(t, err)
			require.Empty(t, verify.Check(p, pf))
			gap := func(peak int64) float64 { return float64(peak-lb) / float64(lb) * 100 }
			t.Logf("max-live %d, textbook %.3f%%, firstfit-peak %.3f%%", lb, gap(tb.Peak(p)), gap(pf.Peak(p)))
			assert.LessOrEqual(t, gap(pf.Peak(p)), 0.1)
			assert.Less(t, pf.Peak(p), tb.Peak(p))
		})
	}
}

func ExamplePeakFirst() {
	// The peak (15 bytes) is at time 4, where long, mid and late are
	// live: they go first, longest-lived lowest, then wide by size.
	p := &model.Problem{Buffers: []model.Buffer{
		{ID: "wide", Start: 0, End: 2, Size: 10},
		{ID: "long", Start: 0, End: 6, Size: 4},
		{ID: "mid", Start: 2, End: 5, Size: 6},
		{ID: "late", Start: 4, End: 6, Size: 5},
	}}
	plan, _ := (heuristics.PeakFirst{}).Plan(context.Background(), p)
	for i, q := range plan.Placements {
		fmt.Println(p.Buffers[i].ID, q.Offset)
	}
	fmt.Println("peak", plan.Peak(p))
	// Output:
	// wide 4
	// long 0
	// mid 4
	// late 10
	// peak 15
}
