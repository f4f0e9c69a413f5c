package heuristics

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/optalloc/optalloc/model"
	"github.com/stretchr/testify/require"
)

// TestFreeListSourceRules checks the options that restore seed 000's own
// choices: the largest block split, same-time starts in op order, and a
// fast pool filled before a slow one is reused.
func TestFreeListSourceRules(t *testing.T) {
	// at 5 blocks [0,5) and [6,13) are free (b1, b3 stay); 4 requested.
	twoFit := bufs([3]int64{0, 5, 5}, [3]int64{1, 10, 1}, [3]int64{2, 5, 7}, [3]int64{3, 10, 1}, [3]int64{6, 7, 4})
	// b0 (1) and b1 (5) start together.
	together := bufs([3]int64{0, 2, 1}, [3]int64{0, 2, 5})
	cases := []struct {
		name string
		fl   FreeList
		p    *model.Problem
		want []int64
	}{
		{"smallest block that holds 4: the 5", FreeList{}, twoFit, []int64{0, 5, 6, 13, 0}},
		{"largest block: the 7", FreeList{SplitLargest: true}, twoFit, []int64{0, 5, 6, 13, 6}},
		{"largest, split off: fresh memory", FreeList{SplitLargest: true, NoSplit: true}, twoFit, []int64{0, 5, 6, 13, 14}},
		{"largest still reuses an exact block", FreeList{SplitLargest: true}, bufs([3]int64{0, 5, 4}, [3]int64{1, 10, 1}, [3]int64{2, 5, 7}, [3]int64{3, 10, 1}, [3]int64{6, 7, 4}), []int64{0, 4, 5, 12, 0}},
		{"same start: largest first", FreeList{}, together, []int64{5, 0}},
		{"same start: op order", FreeList{OpOrder: true}, together, []int64{0, 1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pl, err := c.fl.Plan(context.Background(), c.p)
			require.NoError(t, err)
			require.Equal(t, c.want, offsets(pl))
			require.NoError(t, checkPlan(c.p, pl))
		})
	}
}

func TestFreeListFillFast(t *testing.T) {
	// sram holds 8. b0 (6) → sram@0; b1 (4) does not fit → dram@0; both
	// leave at 3. b2 (6) reuses sram [0,6); b3 (2): by default dram's
	// free [0,4) block is reused; FillFast puts it at sram's top 6.
	p := bufs([3]int64{0, 3, 6}, [3]int64{1, 3, 4}, [3]int64{4, 6, 6}, [3]int64{4, 6, 2})
	p.Pools = []model.Pool{{Name: "sram", Capacity: 8, Rank: 0}, {Name: "dram", Rank: 1}}
	for _, c := range []struct {
		fl   FreeList
		want [][2]int64
	}{
		{FreeList{}, [][2]int64{{0, 0}, {1, 0}, {0, 0}, {1, 0}}},
		{FreeList{FillFast: true}, [][2]int64{{0, 0}, {1, 0}, {0, 0}, {0, 6}}},
	} {
		pl, err := c.fl.Plan(context.Background(), p)
		require.NoError(t, err)
		got := make([][2]int64, len(pl.Placements))
		for i, q := range pl.Placements {
			got[i] = [2]int64{int64(q.Pool), q.Offset}
		}
		require.Equal(t, c.want, got, "FillFast=%v", c.fl.FillFast)
		require.NoError(t, checkPlan(p, pl))
	}
}

// TestSettingsOverride checks that Settings in the context replace a
// planner's own knobs.
func TestSettingsOverride(t *testing.T) {
	twoFit := bufs([3]int64{0, 5, 5}, [3]int64{1, 10, 1}, [3]int64{2, 5, 7}, [3]int64{3, 10, 1}, [3]int64{6, 7, 4})
	ctx := WithSettings(context.Background(), &Settings{FreeList: &FreeList{SplitLargest: true}})
	fl, _ := ByName("freelist")
	pl, err := fl.Plan(ctx, twoFit)
	require.NoError(t, err)
	require.Equal(t, []int64{0, 5, 6, 13, 6}, offsets(pl))

	p := randomProblem(rand.New(rand.NewPCG(3, 3)), 60)
	want, err := (&Strip{Order: "size", NoReorder: true}).Plan(context.Background(), p)
	require.NoError(t, err)
	got, err := (&Strip{Order: "size"}).Plan(WithSettings(context.Background(), &Settings{StripNoReorder: true}), p)
	require.NoError(t, err)
	require.Equal(t, want, got)
}

func TestStripByName(t *testing.T) {
	for _, c := range []struct{ name, order string }{
		{"strip-size", "size"},
		{"strip-size-lifetime", "size,lifetime"},
		{"strip-size-x-overlap", "size*overlap"},
		{"strip-size-plus-lifetime", "size+lifetime"},
		{"strip-size-per-lifetime", "size/lifetime"},
		{"strip-lifetime-asc-size", "lifetime:asc,size"},
		{"strip-size-x-lifetime-per-degree-plus-overlap-asc-start", "size*lifetime/degree+overlap:asc,start"},
	} {
		s, ok := StripByName(c.name)
		require.True(t, ok, c.name)
		require.Equal(t, c.order, s.Order, c.name)
		pl, ok := ByName(c.name)
		require.True(t, ok, c.name)
		require.Equal(t, c.name, pl.Name())
	}
	for _, bad := range []string{"strip-", "strip-bogus", "strip-size-x", "strip-x-size", "strip-asc", "strip-size-asc-asc",
		"strip-size-plus-plus-lifetime", "strip-size--lifetime", "greedy-size-plus-lifetime"} {
		_, ok := StripByName(bad)
		require.False(t, ok, bad)
	}
}

// TestOrderSpecs checks sums, ratios and ascending parts of an order spec.
func TestOrderSpecs(t *testing.T) {
	// (start, end, size)
	p := bufs([3]int64{0, 10, 4}, [3]int64{0, 2, 6}, [3]int64{0, 4, 1}, [3]int64{0, 1, 3})
	in, err := newInstance(context.Background(), p)
	require.NoError(t, err)
	cases := []struct {
		spec string
		want []int32
	}{
		{"size", []int32{1, 0, 3, 2}},
		{"size:asc", []int32{2, 3, 0, 1}},
		{"lifetime:asc", []int32{3, 1, 2, 0}},
		// size/lifetime: 0.4, 3, 0.25, 3 (ties: larger size first)
		{"size/lifetime", []int32{1, 3, 0, 2}},
		// size/6 + lifetime/10: 1.667, 1.2, 0.567, 0.6
		{"size+lifetime", []int32{0, 1, 3, 2}},
		{"size+lifetime:asc", []int32{2, 3, 1, 0}},
		{"lifetime:asc,size:asc", []int32{3, 1, 2, 0}},
	}
	for _, c := range cases {
		keys, err := parseKeys(c.spec, in.its)
		require.NoError(t, err, c.spec)
		require.Equal(t, c.want, orderBy(in.its, keys), c.spec)
	}
	for _, bad := range []string{"", "size+", "size*", "bogus", "size,,lifetime", "size/", ":asc"} {
		_, err := parseKeys(bad, in.its)
		require.Error(t, err, bad)
	}
}

// TestPropertyOptions plans random instances with every new option and
// checks every plan.
func TestPropertyOptions(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 1))
	planners := []Planner{
		&FreeList{SplitLargest: true}, &FreeList{OpOrder: true}, &FreeList{FillFast: true},
		&FreeList{SplitLargest: true, OpOrder: true, FillFast: true, ReuseThreshold: 8},
		&FreeList{SplitLargest: true, NoExact: true, NoCoalesce: true},
		&Strip{Order: "size+lifetime"}, &Strip{Order: "size/lifetime"}, &Strip{Order: "lifetime:asc,size"},
		&Strip{Order: "area/degree+overlap:asc", MaxIter: 3},
	}
	for it := 0; it < 300; it++ {
		p := randomProblem(r, 2+r.IntN(30))
		for _, pl := range planners {
			plan, err := pl.Plan(context.Background(), p)
			require.NoError(t, err, pl.Name())
			require.NoError(t, checkPlan(p, plan), "%s on instance %d", pl.Name(), it)
		}
	}
}

// TestPropertyScratchGrowth fills random plans' scratch buffers with every
// growth and placement option and checks every plan.
func TestPropertyScratchGrowth(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 4))
	greedy, _ := ByName("greedy-size")
	checked := 0
	for it := 0; it < 300; it++ {
		p := randomProblem(r, 2+r.IntN(30))
		for i := range p.Buffers {
			if b := &p.Buffers[i]; r.IntN(3) == 0 && b.Alias == nil {
				b.Kind = model.Scratch
				b.End = b.Start + 1
				b.Gaps = nil
				if r.IntN(2) == 0 {
					b.MaxSize = b.Size + int64(r.IntN(50))
				}
			}
		}
		if p.Validate() != nil {
			continue
		}
		pl, err := greedy.Plan(context.Background(), p)
		require.NoError(t, err)
		checked++
		for _, opt := range []ScratchOptions{{GrowBottom: true}, {GrowBottom: true, Top: true}, {GrowBottom: true, NoElastic: true}} {
			got, err := FillScratch(p, pl, opt)
			require.NoError(t, err)
			require.NoError(t, checkPlan(p, got), "instance %d, %+v", it, opt)
		}
	}
	require.Greater(t, checked, 150, "instances that validated")
}

// FuzzStripByName: any name either is rejected or spells an order that
// plans and names itself back.
func FuzzStripByName(f *testing.F) {
	for _, s := range []string{"strip-size", "strip-size-x-overlap", "strip-lifetime-asc-size-plus-area", "strip-size-per-", "strip--"} {
		f.Add(s)
	}
	p := bufs([3]int64{0, 3, 4}, [3]int64{1, 2, 0}, [3]int64{2, 5, 3})
	f.Fuzz(func(t *testing.T, name string) {
		s, ok := StripByName(name)
		if !ok {
			return
		}
		require.Equal(t, name, s.Name())
		pl, err := s.Plan(context.Background(), p)
		require.NoError(t, err)
		require.NoError(t, checkPlan(p, pl))
	})
}
