package heuristics

import (
	"context"
	"fmt"
	"testing"

	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/verify"
	"github.com/stretchr/testify/require"
)

// scratchCase: three long-lived buffers at 0 (2 bytes), 5 (1) and 12 (4)
// leave, below the peak 16, the gaps [2,5) (3 bytes) and [6,12) (6 bytes);
// the scratch buffers live during op [3,4).
func scratchCase(scratch ...[2]int64) (*model.Problem, *model.Plan) {
	p := &model.Problem{}
	pl := &model.Plan{}
	for i, f := range [][2]int64{{0, 2}, {5, 1}, {12, 4}} {
		p.Buffers = append(p.Buffers, model.Buffer{ID: fmt.Sprint("a", i), Start: 0, End: 10, Size: f[1]})
		pl.Placements = append(pl.Placements, model.Placement{Offset: f[0], Size: f[1]})
	}
	for i, s := range scratch { // (min size, max size; 0 = fixed)
		p.Buffers = append(p.Buffers, model.Buffer{ID: fmt.Sprint("s", i+1), Start: 3, End: 4, Size: s[0], MaxSize: s[1], Kind: model.Scratch})
		pl.Placements = append(pl.Placements, model.Placement{Size: s[0]})
	}
	return p, pl
}

func TestFillScratch(t *testing.T) {
	type place struct{ off, size int64 }
	cases := []struct {
		name    string
		scratch [][2]int64
		opt     ScratchOptions
		want    []place // for the scratch buffers
		peak    int64
	}{
		{"fixed, largest first, smallest gap that fits, bottom; the last one grows the arena",
			[][2]int64{{3, 0}, {4, 0}, {2, 0}, {3, 0}}, ScratchOptions{},
			// s2 (4) → [6,12) @6; s1 (3) → [2,5) @2; s4 (3) fits nothing → @16; s3 (2) → [10,12) @10
			[]place{{2, 3}, {6, 4}, {10, 2}, {16, 3}}, 19},
		{"fixed at the top of the gap",
			[][2]int64{{3, 0}, {4, 0}, {2, 0}, {3, 0}}, ScratchOptions{Top: true},
			// s2 → top of [6,12) @8; s1 → [2,5) @2; s4 → grows @16; s3 → [6,8) @6
			[]place{{2, 3}, {8, 4}, {6, 2}, {16, 3}}, 19},
		{"elastic: one buffer per gap, largest minimum takes the largest gap",
			[][2]int64{{2, 100}, {1, 4}}, ScratchOptions{},
			// s1 → [6,12), granted 6; s2 → [2,5), granted 3 (≤ its max 4)
			[]place{{6, 6}, {2, 3}}, 16},
		{"elastic: more buffers than gaps, a gap split evenly",
			[][2]int64{{1, 100}, {1, 100}, {1, 100}}, ScratchOptions{},
			// dealt round-robin: [6,12) gets s1, s3 (3 bytes each); [2,5) gets s2
			[]place{{6, 3}, {2, 3}, {9, 3}}, 16},
		{"elastic capped by its max size",
			[][2]int64{{1, 2}}, ScratchOptions{},
			[]place{{6, 2}}, 16},
		{"elastic that fits no gap grows the arena at its minimum",
			[][2]int64{{10, 20}}, ScratchOptions{},
			[]place{{16, 10}}, 26},
		{"elastic off: minimum size, placed like fixed",
			[][2]int64{{2, 100}}, ScratchOptions{NoElastic: true},
			[]place{{2, 2}}, 16},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, pl := scratchCase(c.scratch...)
			got, err := FillScratch(p, pl, c.opt)
			require.NoError(t, err)
			require.Empty(t, verify.Check(p, got))
			var gp []place
			for _, q := range got.Placements[3:] {
				gp = append(gp, place{q.Offset, q.Size})
			}
			require.Equal(t, c.want, gp)
			require.Equal(t, c.peak, got.Peak(p))
			require.Equal(t, int64(0), pl.Placements[3].Offset, "the input plan is not modified")
		})
	}
}

// TestFillScratchAfterPlanners runs the pass after three planners on a
// generated transformer trace (a quarter of its buffers are scratch): the
// result is valid and, on this trace, the peak does not grow (the pass does
// not promise that in general: a buffer that fits no gap grows the arena).
func TestFillScratchAfterPlanners(t *testing.T) {
	p := transformerTrace(400, 3)
	for _, name := range []string{"greedy-size", "freelist", "strip-size"} {
		pl, _ := ByName(name)
		plan, err := pl.Plan(context.Background(), p)
		require.NoError(t, err)
		got, err := FillScratch(p, plan, ScratchOptions{})
		require.NoError(t, err)
		require.Empty(t, verify.Check(p, got), name)
		require.LessOrEqual(t, got.Peak(p), plan.Peak(p), name)
	}
}

// TestFillScratchUsesAbsentWindows: an elastic scratch buffer grows into
// the bytes another buffer leaves free during its absent window, without
// raising the peak; a scratch buffer with gaps of its own stays where the
// planner put it.
func TestFillScratchUsesAbsentWindows(t *testing.T) {
	p := &model.Problem{Buffers: []model.Buffer{
		{ID: "g", Start: 0, End: 10, Size: 8, Gaps: []model.Gap{{Start: 3, End: 6}}},
		{ID: "s", Start: 4, End: 5, Size: 2, MaxSize: 8, Kind: model.Scratch},
		{ID: "t", Start: 0, End: 10, Size: 2, Kind: model.Scratch, Gaps: []model.Gap{{Start: 2, End: 8}}},
	}}
	require.NoError(t, p.Validate())
	plan, err := (&BestFit{Order: "size"}).Plan(context.Background(), p)
	require.NoError(t, err)
	require.Equal(t, int64(10), plan.Peak(p)) // g at 0, s at 0 (in g's window), t on top of g
	got, err := FillScratch(p, plan, ScratchOptions{})
	require.NoError(t, err)
	require.Empty(t, verify.Check(p, got))
	require.Equal(t, model.Placement{Offset: 0, Size: 8}, got.Placements[1], "s fills g's absent window")
	require.Equal(t, plan.Placements[2], got.Placements[2], "t (gapped scratch) stays")
	require.Equal(t, int64(10), got.Peak(p))
}

// TestFillScratchContextGivesUp: with its context ended the pass returns the
// context's error and no plan (a half-done pass could leave a lifted buffer
// where a moved one sits), for fixed and for elastic scratch; with time it
// fills as FillScratch does.
func TestFillScratchContextGivesUp(t *testing.T) {
	p := transformerTrace(400, 3)
	elastic := transformerTrace(400, 3)
	for i := range elastic.Buffers {
		if b := &elastic.Buffers[i]; b.Kind == model.Scratch {
			b.MaxSize = 4 * b.Size
		}
	}
	for name, q := range map[string]*model.Problem{"fixed": p, "elastic": elastic} {
		g, _ := ByName("greedy-size")
		plan, err := g.Plan(context.Background(), q)
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		got, err := FillScratchContext(ctx, q, plan, ScratchOptions{})
		require.ErrorIs(t, err, context.Canceled, name)
		require.Nil(t, got, name)
		want, err := FillScratch(q, plan, ScratchOptions{})
		require.NoError(t, err)
		got, err = FillScratchContext(context.Background(), q, plan, ScratchOptions{})
		require.NoError(t, err)
		require.Equal(t, want, got, name)
	}
}

// TestFillScratchGrowBottom: B [0,1) (2 bytes) @0 and A [0,3) (8) @2, peak
// 10; scratch S (4) during [1,2) fits no gap (only [0,2) is free then).
// On top it ends at 14; at the bottom the arena grows by 2 (A and B move
// up by 2, S at 0) and ends at 12. With a gap of 1 at the bottom and 3 at
// the top (A @1, peak 12 through C), the top grows less and is kept.
func TestFillScratchGrowBottom(t *testing.T) {
	type buf struct {
		id              string
		start, end, off int64
		size            int64
		scratch         bool
	}
	build := func(bs []buf, align int64) (*model.Problem, *model.Plan) {
		p, pl := &model.Problem{}, &model.Plan{}
		for _, b := range bs {
			mb := model.Buffer{ID: b.id, Start: b.start, End: b.end, Size: b.size}
			if b.scratch {
				mb.Kind = model.Scratch
			} else if b.id == "B" {
				mb.Align = align
			}
			p.Buffers = append(p.Buffers, mb)
			pl.Placements = append(pl.Placements, model.Placement{Offset: b.off, Size: b.size})
		}
		return p, pl
	}
	bottomWins := []buf{{"B", 0, 1, 0, 2, false}, {"A", 0, 3, 2, 8, false}, {"S", 1, 2, 0, 4, true}}
	// B [0,1) (4, aligned) @0, A [0,3) (8) @4, peak 12; S (6) during [1,2).
	alignCase := []buf{{"B", 0, 1, 0, 4, false}, {"A", 0, 3, 4, 8, false}, {"S", 1, 2, 0, 6, true}}
	topWins := []buf{{"B", 0, 1, 0, 1, false}, {"A", 0, 3, 1, 8, false}, {"C", 2, 3, 9, 3, false}, {"S", 1, 2, 0, 4, true}}
	cases := []struct {
		name  string
		bufs  []buf
		align int64
		opt   ScratchOptions
		want  []int64
		peak  int64
	}{
		{"top only", bottomWins, 1, ScratchOptions{}, []int64{0, 2, 10}, 14},
		{"bottom grows 2, top 4", bottomWins, 1, ScratchOptions{GrowBottom: true}, []int64{2, 4, 0}, 12},
		{"B aligned to 8: bottom would grow 8, top grows 6", alignCase, 8, ScratchOptions{GrowBottom: true}, []int64{0, 4, 12}, 18},
		{"B aligned to 2: bottom grows 2", alignCase, 2, ScratchOptions{GrowBottom: true}, []int64{2, 6, 0}, 14},
		{"top grows 1, bottom 3", topWins, 1, ScratchOptions{GrowBottom: true}, []int64{0, 1, 9, 9}, 13},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, pl := build(c.bufs, c.align)
			got, err := FillScratch(p, pl, c.opt)
			require.NoError(t, err)
			require.Empty(t, verify.Check(p, got))
			require.Equal(t, c.want, offsets(got))
			require.Equal(t, c.peak, got.Peak(p))
		})
	}
	// a pinned buffer in the pool: no bottom growth
	p, pl := build(bottomWins, 1)
	pin := int64(2)
	p.Buffers[1].Pin = &pin
	got, err := FillScratch(p, pl, ScratchOptions{GrowBottom: true})
	require.NoError(t, err)
	require.Equal(t, []int64{0, 2, 10}, offsets(got))
}

func TestSlowScratch(t *testing.T) {
	p := &model.Problem{Pools: []model.Pool{{Name: "dram", Rank: 1}, {Name: "sram", Capacity: 100, Rank: 0}, {Name: "flash", Rank: 2}},
		Buffers: []model.Buffer{
			{ID: "act", Start: 0, End: 3, Size: 8},
			{ID: "crit", Start: 1, End: 2, Size: 8, Kind: model.Scratch, LatencyCritical: true},
			{ID: "plain", Start: 1, End: 2, Size: 8, Kind: model.Scratch},
			{ID: "own", Start: 1, End: 2, Size: 8, Kind: model.Scratch, Pools: []string{"sram"}},
		}}
	require.NoError(t, p.Validate())
	q := SlowScratch(p)
	require.NoError(t, q.Validate())
	var pools [][]string
	for _, b := range q.Buffers {
		pools = append(pools, b.Pools)
	}
	require.Equal(t, [][]string{nil, nil, {"dram", "flash"}, {"sram"}}, pools)
	require.Nil(t, p.Buffers[2].Pools, "the input problem is not changed")
	pl, err := (&FreeList{}).Plan(context.Background(), q)
	require.NoError(t, err)
	require.Empty(t, verify.Check(q, pl))
	require.Equal(t, "dram", q.PoolList()[pl.Placements[2].Pool].Name)
	one := &model.Problem{Buffers: p.Buffers}
	require.Same(t, one, SlowScratch(one))
}
