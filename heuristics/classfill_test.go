package heuristics

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/optalloc/optalloc/benchmarks"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/verify"
	"github.com/stretchr/testify/require"
)

// TestPropertyFillSweepIsValid plans random instances (alignments, pins,
// alias chains, gaps, elastic scratch, two pools) and dense random ones with
// the size classes split at several thresholds; every plan must pass
// verify.Check and the brute-force checker.
func TestPropertyFillSweepIsValid(t *testing.T) {
	r := rand.New(rand.NewPCG(44, 4))
	for _, tc := range classThresholds {
		t.Run(tc.name, func(t *testing.T) {
			for i := 0; i < 150; i++ {
				p := randomProblem(r, 1+r.IntN(60))
				if i%2 == 1 {
					p = denseProblem(r, 50+r.IntN(400))
				}
				require.NoError(t, p.Validate())
				plan, err := (&FillSweep{Threshold: tc.threshold}).Plan(context.Background(), p)
				require.NoError(t, err)
				require.Empty(t, verify.Check(p, plan), "instance %d", i)
				require.NoError(t, checkPlan(p, plan), "instance %d", i)
			}
		})
	}
}

// denseProblem is a small dense random trace: many buffers alive at once,
// sizes log-uniform over 1–4096 bytes, some aligned.
func denseProblem(r *rand.Rand, n int) *model.Problem {
	p := &model.Problem{Name: "dense"}
	h := 2 * n
	for i := 0; i < n; i++ {
		s := int64(r.IntN(h))
		size := int64(1) << r.IntN(13)
		size += int64(r.IntN(int(size)))
		b := model.Buffer{ID: fmt.Sprint("d", i), Start: s, End: s + 1 + int64(r.IntN(h/5+1)), Size: size}
		if r.IntN(4) == 0 {
			b.Align = []int64{2, 8, 64}[r.IntN(3)]
		}
		p.Buffers = append(p.Buffers, b)
	}
	return p
}

// TestFillHolesTable: small items among fixed ones (two fixed items from
// time 0 to 10 leave the hole [100, 200) unless said): which are placed,
// where, and which are left for the stacked sweep (-1).
func TestFillHolesTable(t *testing.T) {
	fixed := func(s, e, off, size int64) [3]int64 { return [3]int64{s, e, off<<32 | size} }
	walls := [][3]int64{fixed(0, 10, 0, 100), fixed(0, 10, 200, 100)}
	type small struct{ s, e, size, align int64 }
	for _, tc := range []struct {
		name  string
		fixed [][3]int64
		small []small
		want  []int64
	}{
		{"in the hole", walls, []small{{2, 5, 50, 1}}, []int64{100}},
		{"fills the hole", walls, []small{{2, 5, 100, 1}}, []int64{100}},
		{"too large for it", walls, []small{{2, 5, 101, 1}}, []int64{-1}},
		{"hole claimed before it ends", append(walls, fixed(5, 10, 100, 100)), []small{{2, 7, 50, 1}}, []int64{-1}},
		{"ends when the hole is claimed", append(walls, fixed(5, 10, 100, 100)), []small{{2, 5, 50, 1}}, []int64{100}},
		{"bytes freed at its start", [][3]int64{fixed(0, 4, 0, 100), fixed(0, 10, 100, 100)}, []small{{4, 8, 60, 1}}, []int64{0}},
		{"bytes freed after its start", [][3]int64{fixed(0, 4, 0, 100), fixed(0, 10, 100, 100)}, []small{{3, 8, 60, 1}}, []int64{-1}},
		{"two in one hole", walls, []small{{2, 6, 60, 1}, {4, 8, 40, 1}}, []int64{100, 160}},
		{"the second does not fit", walls, []small{{2, 6, 60, 1}, {4, 8, 60, 1}}, []int64{100, -1}},
		{"one after the other", walls, []small{{2, 6, 60, 1}, {6, 9, 100, 1}}, []int64{100, 100}},
		{"aligned", walls, []small{{2, 5, 10, 16}}, []int64{112}},
		{"after the fixed ones end", walls, []small{{10, 12, 300, 1}}, []int64{0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var its []item
			var large, sm []int32
			off := make([]int64, len(tc.fixed)+len(tc.small))
			var top int64
			for _, f := range tc.fixed {
				o, size := f[2]>>32, f[2]&(1<<32-1)
				off[len(its)] = o
				top = max(top, o+size)
				large = append(large, int32(len(its)))
				its = append(its, item{start: f[0], end: f[1], size: size, align: 1, pin: -1})
			}
			for _, s := range tc.small {
				sm = append(sm, int32(len(its)))
				its = append(its, item{start: s.s, end: s.e, size: s.size, align: s.align, pin: -1})
			}
			rest, err := fillHoles(context.Background(), its, large, sm, off, top)
			require.NoError(t, err)
			for i, k := range sm {
				if tc.want[i] < 0 {
					require.Contains(t, rest, k, "small %d", i)
					continue
				}
				require.NotContains(t, rest, k, "small %d", i)
				require.Equal(t, tc.want[i], off[k], "small %d", i)
			}
		})
	}
}

// TestFillHolesOneAgainstBruteForce: with one small item among a fixed
// sweep plan of random items, it is placed exactly when some offset below
// the plan's top is free for its whole lifetime (checked offset by offset),
// and then at a free one.
func TestFillHolesOneAgainstBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	placed, left := 0, 0
	for i := 0; i < 400; i++ {
		n := 2 + r.IntN(30)
		var its []item
		var large []int32
		for k := 0; k < n; k++ {
			s := int64(r.IntN(20))
			its = append(its, item{start: s, end: s + 1 + int64(r.IntN(8)), size: int64(1 + r.IntN(20)), align: 1, pin: -1})
			large = append(large, int32(k))
		}
		off, err := (&PeakSweep{}).plan(context.Background(), its)
		require.NoError(t, err)
		var top int64
		for k := range its {
			top = max(top, off[k]+its[k].size)
		}
		s := int64(r.IntN(22))
		its = append(its, item{start: s, end: s + 1 + int64(r.IntN(6)), size: int64(1 + r.IntN(8)), align: 1, pin: -1})
		off = append(off, 0)
		k := int32(n)
		free := func(o int64) bool {
			for j := 0; j < n; j++ {
				a, b := &its[j], &its[k]
				if a.start < b.end && b.start < a.end && off[j] < o+b.size && o < off[j]+a.size {
					return false
				}
			}
			return true
		}
		exists := false
		for o := int64(0); o+its[k].size <= top && !exists; o++ {
			exists = free(o)
		}
		rest, err := fillHoles(context.Background(), its, large, []int32{k}, off, top)
		require.NoError(t, err)
		if !exists {
			require.Equal(t, []int32{k}, rest, "instance %d", i)
			left++
			continue
		}
		require.Empty(t, rest, "instance %d: a free offset exists", i)
		require.True(t, free(off[k]), "instance %d", i)
		require.LessOrEqual(t, off[k]+its[k].size, top)
		placed++
	}
	require.NotZero(t, placed)
	require.NotZero(t, left)
}

// BenchmarkFillSweep times sweep-classes-fill against sweep-classes on
// 100 000 dense random buffers (benchmarks.Random, seed 1) and reports CPU
// time and the gap to max-live; the million is in BenchmarkSweepsMillion:
//
//	go test ./heuristics -run XXX -bench FillSweep -count 3
func BenchmarkFillSweep(b *testing.B) {
	prob := benchmarks.Random(1, benchmarks.RandomOptions{Buffers: 100_000})
	ml := prob.LiveCounts().MaxLive
	for _, pl := range []Planner{&FillSweep{}, &ClassSweep{}} {
		b.Run(pl.Name(), func(b *testing.B) { benchPlan(b, pl, prob, ml, time.Millisecond, "cpu-ms/op") })
	}
}

// TestFillSweepReservesTheCheck: a deadline closer than checkReserve per
// buffer ends the planner at once (its plan would be verified after the
// deadline); without a deadline it plans.
func TestFillSweepReservesTheCheck(t *testing.T) {
	p := denseProblem(rand.New(rand.NewPCG(1, 2)), 200)
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	_, err := (&FillSweep{}).Plan(ctx, p)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	plan, err := (&FillSweep{}).Plan(context.Background(), p)
	require.NoError(t, err)
	require.Empty(t, verify.Check(p, plan))
}

// TestFillRepackNeverAboveFill: sweep-fill-repack re-packs
// sweep-classes-fill's plan and keeps only windows that fall, so its plan is
// valid and never higher.
func TestFillRepackNeverAboveFill(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for i := 0; i < 40; i++ {
		p := denseProblem(r, 100+r.IntN(600))
		fill, err := (&FillSweep{}).Plan(context.Background(), p)
		require.NoError(t, err)
		st := &RepackStats{}
		rp, err := (&Repack{FromFill: true, Items: 50, Stats: st}).Plan(context.Background(), p)
		require.NoError(t, err)
		require.Empty(t, verify.Check(p, rp), "instance %d", i)
		require.Equal(t, fill.Peak(p), st.StartPeak, "instance %d: the pass starts from the fill's plan", i)
		require.LessOrEqual(t, rp.Peak(p), fill.Peak(p), "instance %d", i)
	}
}
