package encode

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

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
//	go test ./encode -run '^$' -bench PerfectPacking -benchtime 3x
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
						pl, s, stats, err := Decide(ctx, p, c.height, v.opt)
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
		path := "../../shared/benchmarks/minimalloc/" + name + ".1048576.csv"
		if _, err := os.Stat(path); err != nil {
			t.Skipf("benchmark data not found at %s", path)
		}
		p, err := model.Load(path)
		require.NoError(t, err)
		ml := p.ComputeSweep().MaxLive
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		start := time.Now()
		lb, how, st, err := ProveLowerBound(ctx, p, Options{})
		cancel()
		require.NoError(t, err)
		t.Logf("%s: max-live %d, lower bound %d (%s) in %v; %d encodings, %d calls, %d vars, %d clauses, %d conflicts; %s",
			name, ml, lb, how, time.Since(start).Round(time.Millisecond), st.Encodings, st.Calls, st.Vars, st.Clauses, st.Conflicts, st.Reason)
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
