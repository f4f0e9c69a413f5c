package bounds

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/exact/sat"
	"github.com/optalloc/optalloc/formats"
	"github.com/optalloc/optalloc/internal/brute"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/verify"
)

// section builds a problem whose buffers are all live on [0, 1).
func section(pool int64, items ...[2]int64) *model.Problem {
	p := &model.Problem{Name: "section"}
	for i, it := range items {
		p.Buffers = append(p.Buffers, model.Buffer{ID: fmt.Sprint(i), Start: 0, End: 1, Size: it[0], Align: it[1]})
	}
	if pool > 0 {
		p.Pools = []model.Pool{{Name: "m", Align: pool}}
	}
	return p
}

// TestAlignBoundSections: hand-made sections whose optimum is known; the
// bound must not exceed it and, where the argument is tight, equals it.
func TestAlignBoundSections(t *testing.T) {
	tests := []struct {
		name    string
		p       *model.Problem
		want    int64 // the bound
		optimum int64
	}{
		{"three 65s aligned to 64: 128+128+65", section(0, [2]int64{65, 64}, [2]int64{65, 64}, [2]int64{65, 64}), 321, 321},
		{"no alignment: max-live", section(0, [2]int64{65, 0}, [2]int64{65, 0}), 130, 130},
		{"multiples of the alignment: no padding", section(0, [2]int64{128, 64}, [2]int64{64, 64}), 192, 192},
		{"one aligned item: its size", section(0, [2]int64{65, 64}, [2]int64{10, 0}), 75, 75},
		{"unaligned bytes fill the padding", section(0, [2]int64{65, 64}, [2]int64{65, 64}, [2]int64{63, 0}), 193, 193},
		{"unaligned bytes beyond the padding (indivisible: 257)", section(0, [2]int64{65, 64}, [2]int64{65, 64}, [2]int64{70, 0}), 200, 257},
		{"the largest padding goes on top", section(0, [2]int64{100, 64}, [2]int64{65, 64}), 193, 193},
		{"pool alignment applies to every buffer", section(8, [2]int64{1, 0}, [2]int64{1, 0}, [2]int64{1, 0}), 17, 17},
		{"pool and buffer alignment combine (lcm 12)", section(4, [2]int64{1, 6}, [2]int64{1, 6}), 13, 13},
		{"gcd level: alignments 4 and 6 seen at 2", section(0, [2]int64{1, 4}, [2]int64{1, 6}), 3, 5},
		{"mixed: 64-aligned and 16-aligned", section(0, [2]int64{65, 64}, [2]int64{17, 16}, [2]int64{17, 16}), 129, 129},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.NoError(t, tc.p.Validate())
			got := Align(tc.p)
			assert.Equal(t, tc.want, got.LowerBound)
			assert.GreaterOrEqual(t, got.LowerBound, got.MaxLive)
			if tc.p.Pools == nil {
				opt, _ := brute.Optimum(tc.p)
				assert.Equal(t, tc.optimum, opt, "brute force")
			}
			assert.LessOrEqual(t, got.LowerBound, tc.optimum)
		})
	}
}

// TestAlignBoundNeverAboveBruteForce: on random tiny instances with
// alignments (and pins, zero sizes) the bound is at most the brute-force
// optimum and at least max-live; how often it beats max-live is logged.
func TestAlignBoundNeverAboveBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 2026))
	const n = 4000
	checked, stronger, reached := 0, 0, 0
	for k := 0; k < n; k++ {
		opt := brute.RandomOptions{Align: 0.3 + 0.7*rng.Float64(), MaxSize: 2 + rng.Int64N(9)}
		if k%4 == 0 {
			opt.Pin = 0.15
		}
		if k%5 == 0 {
			opt.ZeroSize = 0.1
		}
		p := brute.Random(rng, 1+rng.IntN(7), opt)
		if k%7 == 0 {
			p.Pools = []model.Pool{{Name: "m", Align: 2 + rng.Int64N(3)}}
			for i := range p.Buffers {
				p.Buffers[i].Pin = nil // a pin off the pool's grid has no plan
			}
		}
		want, offs := brute.Optimum(p)
		if want < 0 {
			continue // conflicting pins
		}
		require.Empty(t, verify.Check(p, brute.Plan(p, offs)), "instance %d: brute force plan", k)
		got := Align(p)
		checked++
		require.LessOrEqual(t, got.LowerBound, want, "instance %d: bound above the optimum (%s)", k, got.Detail())
		require.GreaterOrEqual(t, got.LowerBound, got.MaxLive)
		if got.LowerBound > got.MaxLive {
			stronger++
		}
		if got.LowerBound == want {
			reached++
		}
	}
	require.Greater(t, checked, 3000)
	assert.Greater(t, stronger, checked/10, "the bound should beat max-live on a decent fraction")
	t.Logf("%d instances: bound > max-live on %d (%.1f%%), bound = optimum on %d (%.1f%%)",
		checked, stronger, 100*float64(stronger)/float64(checked), reached, 100*float64(reached)/float64(checked))
}

// randomGapAlias returns a tiny random problem with alignments, gap
// windows, absent gaps and alias members (valid, or nil).
func randomGapAlias(rng *rand.Rand, n int) *model.Problem {
	p := &model.Problem{Name: "gaps"}
	for i := 0; i < n; i++ {
		s := rng.Int64N(6)
		e := s + 1 + rng.Int64N(7-s)
		b := model.Buffer{ID: fmt.Sprint(i), Start: s, End: e, Size: 1 + rng.Int64N(7)}
		if rng.IntN(2) == 0 {
			b.Align = 2 + rng.Int64N(3)
		}
		if i > 0 && rng.IntN(4) == 0 {
			par := &p.Buffers[rng.IntN(i)]
			b.Size = 1 + rng.Int64N(par.Size)
			b.Alias = &model.Alias{Parent: par.ID, Delta: rng.Int64N(par.Size - b.Size + 1)}
			b.Align = 0
		}
		if e-s >= 2 && rng.IntN(2) == 0 {
			g := model.Gap{Start: s + rng.Int64N(e-s), End: e}
			g.End = g.Start + 1 + rng.Int64N(e-g.Start)
			if g.End > e {
				g.End = e
			}
			if rng.IntN(2) == 0 {
				g.Window, g.Lo = true, rng.Int64N(b.Size)
				g.Hi = g.Lo + 1 + rng.Int64N(b.Size-g.Lo)
			}
			b.Gaps = []model.Gap{g}
		}
		p.Buffers = append(p.Buffers, b)
	}
	if p.Validate() != nil {
		return nil
	}
	return p
}

// TestAlignBoundGapsAndAliases: with gap windows and alias groups (fluid
// pieces) the bound stays at or below the optimum proven by the SAT engine
// (which is exact on gaps and aliases), on 400 random tiny instances.
func TestAlignBoundGapsAndAliases(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 77))
	checked, stronger := 0, 0
	for k := 0; checked < 400 && k < 5000; k++ {
		p := randomGapAlias(rng, 2+rng.IntN(5))
		if p == nil {
			continue
		}
		pl, lb, _, err := sat.Minimise(context.Background(), p, nil, 0, sat.Options{}, nil)
		if err != nil || pl == nil || lb != pl.Peak(p) {
			continue // no plan, or not proven
		}
		require.Empty(t, verify.Check(p, pl))
		got := Align(p)
		checked++
		require.LessOrEqual(t, got.LowerBound, lb, "instance %d: %s; %+v", k, got.Detail(), p.Buffers)
		if got.LowerBound > got.MaxLive {
			stronger++
		}
	}
	require.Equal(t, 400, checked)
	t.Logf("%d gap/alias instances: bound > max-live on %d", checked, stronger)
}

// TestAlignBoundMiniMalloc checks and logs the bound of MiniMalloc's C, G and K with
// alignment 65536 on every buffer of at least 64 KiB (issue 6).
func TestAlignBoundMiniMalloc(t *testing.T) {
	dir := "../../shared/benchmarks/minimalloc"
	for _, name := range []string{"C", "G", "K"} {
		f := filepath.Join(dir, name+".1048576.csv")
		if _, err := os.Stat(f); err != nil {
			t.Skipf("benchmark data not found at %s", f)
		}
		p, err := formats.Load(f)
		require.NoError(t, err)
		for i := range p.Buffers {
			if p.Buffers[i].Size >= 65536 {
				p.Buffers[i].Align = 65536
			}
		}
		got := Align(p)
		// One time alone says only max-live on C (its paddings can be
		// filled); two times say more (pair.go).
		assert.Greater(t, got.LowerBound, got.MaxLive, name)
		if name == "C" {
			assert.True(t, got.Pair, "C: the two-time bound")
		}
		t.Logf("%s: max-live %d, align bound %d (%s)", name, got.MaxLive, got.LowerBound, got.Detail())
	}
}

// BenchmarkAlignBound: 20,000 buffers, a third aligned to 64 or 4096,
// lifetimes of up to 200 steps over 40,000 steps (~100 live at a time).
func BenchmarkAlignBound(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	p := &model.Problem{Name: "bench"}
	for i := 0; i < 20000; i++ {
		s := rng.Int64N(40000)
		buf := model.Buffer{ID: fmt.Sprint(i), Start: s, End: s + 1 + rng.Int64N(400), Size: 1 + rng.Int64N(100000)}
		switch rng.IntN(3) {
		case 0:
			buf.Align = 64
		case 1:
			buf.Align = 4096
		}
		p.Buffers = append(p.Buffers, buf)
	}
	var r AlignResult
	for b.Loop() {
		r = Align(p)
	}
	b.ReportMetric(float64(r.LowerBound)/float64(r.MaxLive), "bound/max-live")
}

// TestAlignContextStops: with its context ended, the alignment bound of a
// staircase of aligned buffers (20 000 of them took 61 s, deaf to the
// clock) returns at once with a sound bound: at least max-live, at most
// the bound computed to the end (on a smaller staircase, where that is
// cheap), and the same under every ended context.
func TestAlignContextStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, n := range []int{400, 20000} {
		p := brute.AlignedStaircase(n)
		got := AlignContext(ctx, p)
		ml, _ := MaxLiveAt(p)
		assert.Equal(t, ml, got.MaxLive, "n=%d", n)
		assert.GreaterOrEqual(t, got.LowerBound, ml, "n=%d", n)
		if n <= 400 {
			full := Align(p)
			assert.LessOrEqual(t, got.LowerBound, full.LowerBound, "n=%d: a cut-short bound is never above the full one", n)
			assert.Greater(t, full.LowerBound, full.MaxLive, "n=%d: the staircase's alignments raise the full bound", n)
		}
		b, err := AlignProver{}.Bound(ctx, p)
		require.NoError(t, err)
		assert.Equal(t, got.LowerBound, b.Value, "n=%d: the prover passes its context on", n)
	}
}

// BenchmarkAlignStaircase20k: the staircase of 20 000 aligned buffers
// under a 1 s deadline (61 s before the bound looked at its context; the
// CLI with --time-limit 1s must end within 2 s).
func BenchmarkAlignStaircase20k(b *testing.B) {
	p := brute.AlignedStaircase(20000)
	for b.Loop() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		AlignContext(ctx, p)
		cancel()
	}
}
