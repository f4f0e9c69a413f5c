package heuristics

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/verify"
	"github.com/stretchr/testify/require"
)

func i64(v int64) *int64 { return &v }

// TestHonourHints: worked examples. The plan before the pass is given by
// hand; the pass moves a hinted buffer only when its hint is free for its
// whole footprint, aligned, within capacity and under the peak.
func TestHonourHints(t *testing.T) {
	// a [0,4)×8 at 0, b [0,2)×4 at 8, c [2,4)×2 at 8: peak 12.
	base := func() *model.Problem {
		return &model.Problem{Buffers: []model.Buffer{
			{ID: "a", Start: 0, End: 4, Size: 8},
			{ID: "b", Start: 0, End: 2, Size: 4},
			{ID: "c", Start: 2, End: 4, Size: 2},
		}}
	}
	basePlan := []int64{0, 8, 8}
	cases := []struct {
		name  string
		edit  func(p *model.Problem)
		plan  []int64
		want  []int64
		count int
	}{
		{"free and under the peak: moved", func(p *model.Problem) { p.Buffers[2].Hint = i64(10) }, basePlan, []int64{0, 8, 10}, 1},
		{"already there", func(p *model.Problem) { p.Buffers[2].Hint = i64(8) }, basePlan, basePlan, 1},
		{"would raise the peak", func(p *model.Problem) { p.Buffers[2].Hint = i64(11) }, basePlan, basePlan, 0},
		{"taken by a live buffer", func(p *model.Problem) { p.Buffers[2].Hint = i64(6) }, basePlan, basePlan, 0},
		{"bytes of a dead buffer are free", func(p *model.Problem) {
			p.Buffers[1].End = 1
			p.Buffers[2].Hint = i64(9)
		}, basePlan, []int64{0, 8, 9}, 1},
		{"misaligned", func(p *model.Problem) {
			p.Buffers[2].Hint, p.Buffers[2].Align = i64(10), 4
		}, basePlan, basePlan, 0},
		{"beyond the capacity", func(p *model.Problem) {
			p.Buffers[2].Hint = i64(10)
			p.SetCapacity(11)
		}, basePlan, basePlan, 0},
		{"pool alignment", func(p *model.Problem) {
			p.Buffers[2].Hint = i64(10)
			p.Pools = []model.Pool{{Name: "m", Align: 4}}
		}, basePlan, basePlan, 0},
		{"pinned buffers stay", func(p *model.Problem) {
			p.Buffers[2].Hint, p.Buffers[2].Pin = i64(10), i64(8)
		}, basePlan, basePlan, 0},
		{"a swap is refused: each hint sees the other's place", func(p *model.Problem) {
			p.Buffers[1].Start, p.Buffers[1].End, p.Buffers[1].Size = 1, 3, 2 // b [1,3)×2 at 8, c [2,4)×2 at 10
			p.Buffers[1].Hint, p.Buffers[2].Hint = i64(10), i64(8)
		}, []int64{0, 8, 10}, []int64{0, 8, 10}, 0},
		{"hint inside another buffer's absent window", func(p *model.Problem) {
			p.Buffers[0].Gaps = []model.Gap{{Start: 2, End: 4}}
			p.Buffers[2].Hint = i64(0)
		}, basePlan, []int64{0, 8, 0}, 1},
		{"hint inside another buffer's partial window", func(p *model.Problem) {
			p.Buffers[0].Gaps = []model.Gap{{Start: 2, End: 4, Window: true, Lo: 0, Hi: 4}}
			p.Buffers[2].Hint = i64(4)
		}, basePlan, []int64{0, 8, 4}, 1},
		{"the hint's footprint may meet bytes outside the window", func(p *model.Problem) {
			p.Buffers[0].Gaps = []model.Gap{{Start: 2, End: 4, Window: true, Lo: 0, Hi: 4}}
			p.Buffers[2].Hint = i64(3)
		}, basePlan, basePlan, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := base()
			c.edit(p)
			require.NoError(t, p.Validate())
			pl := model.NewPlan(p)
			for i, o := range c.plan {
				pl.Placements[i].Offset = o
			}
			got, n := HonourHints(p, pl)
			require.Equal(t, c.count, n)
			for i, o := range c.want {
				require.Equal(t, o, got.Placements[i].Offset, p.Buffers[i].ID)
			}
			require.Equal(t, c.plan[0], pl.Placements[0].Offset, "the input plan is not modified")
			for _, v := range verify.Check(p, got) {
				require.Equal(t, verify.OutOfCapacity, v.Kind, v.String())
			}
		})
	}
}

// TestHonourHintsAliasGroup: a hinted root moves with its members; the
// members' alignments and footprints count.
func TestHonourHintsAliasGroup(t *testing.T) {
	// big [0,4)×12 at 0; r [0,1)×6 at 18 with m [0,3)×4 (align 4) at
	// r+2 = 20; late [3,4)×2 at 12. Peak 24.
	mk := func(hint int64) *model.Problem {
		return &model.Problem{Buffers: []model.Buffer{
			{ID: "big", Start: 0, End: 4, Size: 12},
			{ID: "r", Start: 0, End: 1, Size: 6, Hint: i64(hint)},
			{ID: "m", Start: 0, End: 3, Size: 4, Align: 4, Alias: &model.Alias{Parent: "r", Delta: 2}},
			{ID: "late", Start: 3, End: 4, Size: 2},
		}}
	}
	plan := []int64{0, 18, 20, 12}
	for _, c := range []struct {
		name  string
		hint  int64
		late  model.Buffer // replaces "late" when its ID is set
		want  []int64
		count int
	}{
		{"already there", 18, model.Buffer{}, plan, 1},
		{"moved with its member", 14, model.Buffer{}, []int64{0, 14, 16, 12}, 1},
		{"member misaligned", 15, model.Buffer{}, plan, 0},
		{"root meets big", 10, model.Buffer{}, plan, 0},
		{"member meets late", 14, model.Buffer{ID: "late", Start: 2, End: 4, Size: 5}, plan, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := mk(c.hint)
			if c.late.ID != "" {
				p.Buffers[3] = c.late
			}
			require.NoError(t, p.Validate())
			pl := model.NewPlan(p)
			for i, o := range plan {
				pl.Placements[i].Offset = o
			}
			require.Empty(t, verify.Check(p, pl))
			got, n := HonourHints(p, pl)
			require.Equal(t, c.count, n)
			require.Equal(t, c.want, offsets(got))
			require.Empty(t, verify.Check(p, got))
		})
	}
}

// TestPortfolioHonoursHints: the portfolio's winner gets the hints that
// cost nothing; the plan verifies and the peak is unchanged.
func TestPortfolioHonoursHints(t *testing.T) {
	p := &model.Problem{Buffers: []model.Buffer{
		{ID: "a", Start: 0, End: 4, Size: 8},
		{ID: "b", Start: 0, End: 2, Size: 4},
		{ID: "c", Start: 2, End: 4, Size: 2, Hint: i64(10)},
	}}
	plan, name, err := Portfolio(context.Background(), p, PortfolioOptions{Threads: 1, Seed: 1})
	require.NoError(t, err)
	require.Empty(t, verify.Check(p, plan))
	require.Equal(t, int64(12), plan.Peak(p))
	require.Equal(t, int64(10), plan.Placements[2].Offset)
	require.Contains(t, name, "+hints")
}

// TestPropertyHints: random instances (alignment, pins, alias chains, gaps,
// elastic scratch, two pools) with random hints: the pass keeps every plan
// valid, never raises a pool's peak, and counts exactly the hinted roots
// at their hint.
func TestPropertyHints(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	honoured := 0
	for it := 0; it < 400; it++ {
		p := randomProblem(r, 2+r.IntN(22))
		for i := range p.Buffers {
			if r.IntN(3) == 0 {
				p.Buffers[i].Hint = i64(int64(r.IntN(60)))
			}
		}
		require.NoError(t, p.Validate())
		plan, err := (&BestFit{Order: "size"}).Plan(context.Background(), p)
		require.NoError(t, err)
		filled, err := FillScratch(p, plan, ScratchOptions{})
		require.NoError(t, err)
		got, n := HonourHints(p, filled)
		require.Empty(t, verify.Check(p, got), "instance %d", it)
		require.NoError(t, checkPlan(p, got), "instance %d", it)
		before, after := filled.PoolPeaks(p), got.PoolPeaks(p)
		for q := range before {
			require.LessOrEqual(t, after[q], before[q])
		}
		at := 0
		for i, b := range p.Buffers {
			if b.Hint != nil && b.Alias == nil && got.Placements[i].Offset == *b.Hint {
				at++
			}
		}
		require.Equal(t, at, n)
		honoured += n
	}
	t.Logf("%d hints honoured", honoured)
	require.Positive(t, honoured)
}

// TestHonourHintsContextStops: once the context has ended no buffer moves
// (the first 63 hinted buffers that need a move are still tried, as the
// context is looked at every 64), and the count still includes the hinted
// buffers already at their hints.
func TestHonourHintsContextStops(t *testing.T) {
	p := &model.Problem{}
	for i := 0; i < 300; i++ {
		// Buffer i lives in [i, i+1) alone: every hint is free.
		b := model.Buffer{ID: string(rune('a'+i%26)) + string(rune('a'+i/26)), Start: int64(i), End: int64(i + 1), Size: 4}
		if i%2 == 0 {
			b.Hint = i64(4) // needs a move (under the peak: buffer 299 sits at 8)
		} else {
			b.Hint = i64(0) // already there
		}
		if i == 299 {
			b.Hint = nil
		}
		p.Buffers = append(p.Buffers, b)
	}
	pl := model.NewPlan(p)
	pl.Placements[299].Offset = 8
	all, n := HonourHints(p, pl)
	require.Equal(t, 299, n, "every hint honoured without a deadline")
	require.Empty(t, verify.Check(p, all))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	part, n := HonourHintsContext(ctx, p, pl)
	require.Empty(t, verify.Check(p, part))
	moved := 0
	for i := range p.Buffers {
		if part.Placements[i].Offset != pl.Placements[i].Offset {
			moved++
		}
	}
	require.Equal(t, 63, moved, "moves stop at the first look at the context")
	require.Equal(t, 149+63, n, "hints already met are counted")
}
