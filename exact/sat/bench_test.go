package sat

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/optalloc/optalloc/internal/measure"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/formats"
	"github.com/optalloc/optalloc/heuristics"
	"github.com/optalloc/optalloc/internal/brute"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/verify"
)

// perfectCases are guillotine cuts of a rectangle (time × bytes): 20–60
// buffers whose optimum is the rectangle's height (= max-live).
var perfectCases = []struct {
	width, height int64
	pieces        int
}{
	{20, 64, 20}, {30, 128, 40}, {40, 256, 60},
}

// BenchmarkPerfectPacking: the optimum of guillotine-cut rectangles (20–60
// buffers), proven two ways: "decide" asks for a packing at the height
// (the optimum, since the height is max-live), "minimise" descends from a
// first-fit packing. Each technique is switched off in turn in "decide".
// Reports the encoding size, gini's conflicts and whether it was solved
// within 20 s.
//
//	go test ./exact/sat -run '^$' -bench PerfectPacking -benchtime 3x
func BenchmarkPerfectPacking(b *testing.B) {
	for _, c := range perfectCases {
		for seed := uint64(1); seed <= 3; seed++ {
			p, _ := brute.PerfectPacking(rand.New(rand.NewPCG(seed, 99)), c.width, c.height, c.pieces)
			name := fmt.Sprintf("n%d-h%d-seed%d", len(p.Buffers), c.height, seed)
			for _, v := range variants {
				if v.name == "none" || v.name == "no-probe" {
					continue
				}
				b.Run("decide/"+v.name+"/"+name, func(b *testing.B) {
					var st Stats
					solved := 0.0
					for b.Loop() {
						ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
						o := v.opt
						o.NoFirstFit = true // measure SAT, not the shortcut
						pl, s, stats, err := Decide(ctx, p, c.height, o)
						cancel()
						require.NoError(b, err)
						if s == Feasible {
							require.Empty(b, verify.Check(p, pl))
							solved = 1
						}
						st = stats
					}
					b.ReportMetric(float64(st.Vars), "vars")
					b.ReportMetric(float64(st.Clauses), "clauses")
					b.ReportMetric(float64(st.Conflicts), "conflicts")
					b.ReportMetric(solved, "solved")
				})
			}
			b.Run("minimise/"+name, func(b *testing.B) {
				var st Stats
				for b.Loop() {
					pl, lb, s, err := Minimise(context.Background(), p, nil, 0, Options{}, nil)
					require.NoError(b, err)
					if lb != c.height || pl.Peak(p) != c.height {
						b.Fatalf("peak %d lb %d, want %d (%s)", pl.Peak(p), lb, c.height, s.Reason)
					}
					st = s
				}
				b.ReportMetric(float64(st.Vars), "vars")
				b.ReportMetric(float64(st.Clauses), "clauses")
				b.ReportMetric(float64(st.Conflicts), "conflicts")
			})
		}
	}
}

// TestLongMiniMalloc (OPTALLOC_LONG=1): ProveLowerBound on MiniMalloc's D
// and J with 60 s each; the bound must lie between max-live and the best
// known height. Also Minimise on their components is refused, not hung.
func TestLongMiniMalloc(t *testing.T) {
	if os.Getenv("OPTALLOC_LONG") == "" {
		t.Skip("set OPTALLOC_LONG=1 (60 s per instance)")
	}
	best := map[string]int64{"D": 1031168, "J": 1041408}
	for _, name := range []string{"D", "J"} {
		if only := os.Getenv("OPTALLOC_ONLY"); only != "" && only != name {
			continue
		}
		path := "../../shared/benchmarks/minimalloc/" + name + ".1048576.csv"
		if _, err := os.Stat(path); err != nil {
			t.Skipf("benchmark data not found at %s", path)
		}
		p, err := formats.Load(path)
		require.NoError(t, err)
		ml := p.ComputeSweep().MaxLive
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		start, cpu := time.Now(), measure.CPUTime()
		lb, how, st, err := ProveLowerBound(ctx, p, Options{})
		cancel()
		require.NoError(t, err)
		t.Logf("%s: max-live %d, lower bound %d (%s) in %v wall, %v CPU; %d encodings, %d calls, %d vars, %d clauses, %d conflicts; %s",
			name, ml, lb, how, time.Since(start).Round(time.Millisecond), (measure.CPUTime() - cpu).Round(time.Millisecond),
			st.Encodings, st.Calls, st.Vars, st.Clauses, st.Conflicts, st.Reason)
		require.GreaterOrEqual(t, lb, ml)
		require.LessOrEqual(t, lb, best[name])

		ctx, cancel = context.WithTimeout(context.Background(), 10*time.Second)
		pl, mlb, st, err := Minimise(ctx, p, nil, 0, Options{}, nil)
		cancel()
		require.NoError(t, err)
		require.Empty(t, verify.Check(p, pl))
		t.Logf("%s: Minimise on the whole instance: peak %d, lb %d, %s", name, pl.Peak(p), mlb, st.Reason)
	}
}

// TestLongWindowScan (OPTALLOC_LONG=1): which time windows of D and J are
// tight? Windows grow from the heaviest section towards the heavier
// neighbour; each is asked at the instance's max-live (10 s per window).
// It logs a table; UNSAT would raise the global bound. OPTALLOC_ONLY=D
// and OPTALLOC_WINDOW_TIME=90s narrow and lengthen it.
func TestLongWindowScan(t *testing.T) {
	if os.Getenv("OPTALLOC_LONG") == "" {
		t.Skip("set OPTALLOC_LONG=1 (about 2 minutes per instance)")
	}
	per := 10 * time.Second
	if v, err := time.ParseDuration(os.Getenv("OPTALLOC_WINDOW_TIME")); err == nil {
		per = v
	}
	for _, name := range []string{"D", "J"} {
		if only := os.Getenv("OPTALLOC_ONLY"); only != "" && only != name {
			continue
		}
		path := "../../shared/benchmarks/minimalloc/" + name + ".1048576.csv"
		if _, err := os.Stat(path); err != nil {
			t.Skipf("benchmark data not found at %s", path)
		}
		p, err := formats.Load(path)
		require.NoError(t, err)
		in, err := newInstance(p, 0)
		require.NoError(t, err)
		s := in.positive()
		secs := sections(s.items, seq(len(s.items)))
		c := 0
		for k := range secs {
			if secs[k].load > secs[c].load {
				c = k
			}
		}
		m := secs[c].load
		w := window{a: c, b: c}
		last := 0
		opt := Options{MaxClauses: 12_000_000}
		for {
			w.t0, w.t1 = secs[w.a].start, secs[w.b].end
			its := windowItems(s.items, w)
			if len(its) > 100 {
				break
			}
			if len(its) > last {
				last = len(its)
				start, cpu := time.Now(), measure.CPUTime()
				e, _, refused := newEncoder(context.Background(), its, m, opt)
				res, vars, clauses, conf := "over budget", int64(0), int64(0), int64(0)
				if refused == "" {
					ctx, cancel := context.WithTimeout(context.Background(), per)
					r := e.solve(ctx, e.height(m))
					cancel()
					res = map[int]string{1: "fits", -1: "UNSAT", 0: "timeout"}[r]
					vars, clauses, conf = e.vars, e.clauses, e.conflicts
				}
				t.Logf("%s window sections %d..%d [%d,%d): %d buffers, window max-live %d: %s at %d in %v wall, %v CPU (%d vars, %d clauses, %d conflicts)",
					name, w.a, w.b, w.t0, w.t1, len(its), maxLive(its, seq(len(its)))*in.g, res, m*in.g,
					time.Since(start).Round(time.Millisecond), (measure.CPUTime() - cpu).Round(time.Millisecond), vars, clauses, conf)
			}
			if !w.grow(secs) {
				break
			}
		}
	}
}

// TestLongImprove (OPTALLOC_LONG=1): Improve on D and J for 60 s from the
// heuristic portfolio's plan.
func TestLongImprove(t *testing.T) {
	if os.Getenv("OPTALLOC_LONG") == "" {
		t.Skip("set OPTALLOC_LONG=1 (about 70 s per instance)")
	}
	for _, name := range []string{"D", "J"} {
		path := "../../shared/benchmarks/minimalloc/" + name + ".1048576.csv"
		if _, err := os.Stat(path); err != nil {
			t.Skipf("benchmark data not found at %s", path)
		}
		p, err := formats.Load(path)
		require.NoError(t, err)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		inc, by, err := heuristics.Portfolio(ctx, p, heuristics.PortfolioOptions{})
		cancel()
		require.NoError(t, err)
		ctx, cancel = context.WithTimeout(context.Background(), 60*time.Second)
		start, cpu := time.Now(), measure.CPUTime()
		pl, st, err := Improve(ctx, p, inc, Options{}, func(q *model.Plan) {
			t.Logf("%s: %d after %v", name, q.Peak(p), time.Since(start).Round(time.Millisecond))
		})
		cancel()
		require.NoError(t, err)
		require.Empty(t, verify.Check(p, pl))
		t.Logf("%s: portfolio (%s) %d → Improve %d in %v wall, %v CPU; %d encodings, %d conflicts; %s",
			name, by, inc.Peak(p), pl.Peak(p), time.Since(start).Round(time.Millisecond), (measure.CPUTime() - cpu).Round(time.Millisecond),
			st.Encodings, st.Conflicts, st.Reason)
	}
}

// TestLongAblation (OPTALLOC_LONG=1): each technique off in turn on two
// windows of J around its heaviest section, asked at J's max-live (both
// fit). Logs CPU time (3 runs), conflicts (deterministic) and clauses.
func TestLongAblation(t *testing.T) {
	if os.Getenv("OPTALLOC_LONG") == "" {
		t.Skip("set OPTALLOC_LONG=1 (about 15 s of CPU)")
	}
	path := "../../shared/benchmarks/minimalloc/J.1048576.csv"
	if _, err := os.Stat(path); err != nil {
		t.Skipf("benchmark data not found at %s", path)
	}
	p, err := formats.Load(path)
	require.NoError(t, err)
	in, err := newInstance(p, 0)
	require.NoError(t, err)
	s := in.positive()
	secs := sections(s.items, seq(len(s.items)))
	m := maxLive(s.items, seq(len(s.items)))
	for _, w := range [][2]int{{200, 202}, {198, 204}} {
		its := windowItems(s.items, window{a: w[0], b: w[1], t0: secs[w[0]].start, t1: secs[w[1]].end})
		for _, v := range variants[:4] {
			var cpus []time.Duration
			var e *encoder
			r := 0
			for rep := 0; rep < 3; rep++ {
				cpu := measure.CPUTime()
				e, _, _ = newEncoder(context.Background(), its, m, v.opt)
				ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				r = e.solve(ctx, e.height(m))
				cancel()
				cpus = append(cpus, (measure.CPUTime() - cpu).Round(time.Millisecond))
			}
			slices.Sort(cpus)
			t.Logf("J sections %d..%d (%d buffers) %-16s result %2d, CPU median %v of %v, %d conflicts, %d clauses",
				w[0], w[1], len(its), v.name, r, cpus[1], cpus, e.conflicts, e.clauses)
		}
	}
}

// BenchmarkGapsAliases: Minimise (5 s each) on random instances of 20 and
// 40 buffers with gaps (absent and partial) and alias groups whose members
// outlive their root. Reports the peak and the proven bound relative to
// max-live, and proven = 1 when the bound meets the peak.
//
//	go test ./exact/sat -run '^$' -bench GapsAliases -benchtime 1x
func BenchmarkGapsAliases(b *testing.B) {
	shape := gapOpts{horizon: 30, maxSize: 16, gap: 0.4, window: 0.5, alias: 0.25, twoGaps: true, split: true}
	for _, n := range []int{20, 40} {
		for seed := uint64(1); seed <= 3; seed++ {
			rng := rand.New(rand.NewPCG(seed, uint64(n)))
			p := randomGapAlias(rng, n, shape)
			for k, _ := stackGaps(p); k < 0; k, _ = stackGaps(p) {
				p = randomGapAlias(rng, n, shape) // no valid plan at all: draw again
			}
			ml := float64(p.ComputeSweep().MaxLive)
			b.Run(fmt.Sprintf("n%d-seed%d", n, seed), func(b *testing.B) {
				var peak, lb int64
				for b.Loop() {
					ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
					pl, bound, _, err := Minimise(ctx, p, nil, 0, Options{}, nil)
					cancel()
					require.NoError(b, err)
					require.Empty(b, verify.Check(p, pl))
					peak, lb = pl.Peak(p), bound
				}
				b.ReportMetric(float64(peak)/ml, "peak/maxlive")
				b.ReportMetric(float64(lb)/ml, "lb/maxlive")
				b.ReportMetric(map[bool]float64{true: 1}[lb == peak], "proven")
			})
		}
	}
}
