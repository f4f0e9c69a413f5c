package heuristics

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/optalloc/optalloc/formats"
	"github.com/optalloc/optalloc/internal/measure"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/verify"
	"github.com/stretchr/testify/require"
)

const benchDir = "../../shared/benchmarks"

// benchFiles lists the benchmark instances, or skips the test when the
// shared data is absent.
func benchFiles(tb testing.TB) []string {
	tb.Helper()
	if _, err := os.Stat(benchDir); err != nil {
		tb.Skipf("benchmark data not found at %s (shared/benchmarks is needed)", benchDir)
	}
	var files []string
	for _, pat := range []string{"traces/*.csv", "minimalloc/[A-K].*.csv"} {
		m, _ := filepath.Glob(filepath.Join(benchDir, pat))
		for _, f := range m {
			if filepath.Ext(f) == ".csv" && !strings.Contains(f, ".plan.") {
				files = append(files, f)
			}
		}
	}
	sort.Strings(files)
	return files
}

func loadBench(tb testing.TB, f string) *model.Problem {
	p, err := formats.Load(f)
	require.NoError(tb, err)
	return p
}

// TestGapTable prints, for every benchmark instance, the gap to max-live of
// every planner (with its CPU and wall time) and of the portfolio, then a
// markdown summary. Set OPTALLOC_LONG=1 to run it; OPTALLOC_PLANNERS=a,b
// restricts the planners.
func TestGapTable(t *testing.T) {
	if os.Getenv("OPTALLOC_LONG") == "" {
		t.Skip("set OPTALLOC_LONG=1 to print the gap table")
	}
	names := Names()
	if s := os.Getenv("OPTALLOC_PLANNERS"); s != "" {
		names = splitComma(s)
	}
	gap := func(peak, ml int64) float64 { return 100 * float64(peak-ml) / float64(ml) }
	var summary []string
	var mmGreedy, mmPort float64
	var mmN int
	for _, f := range benchFiles(t) {
		p := loadBench(t, f)
		ml := p.ComputeSweep().MaxLive
		base := filepath.Base(f)
		var greedy float64
		for _, name := range names {
			pl, ok := ByName(name)
			require.True(t, ok, name)
			c0, t0 := measure.CPUTime(), time.Now()
			plan, err := pl.Plan(context.Background(), p)
			el, cpu := time.Since(t0), measure.CPUTime()-c0
			require.NoError(t, err)
			require.Empty(t, verify.Check(p, plan), "%s on %s", name, f)
			g := gap(plan.Peak(p), ml)
			if name == "greedy-size" {
				greedy = g
			}
			fmt.Printf("%-28s %-22s peak=%d maxlive=%d gap=%.3f%% cpu=%v wall=%v\n", base, name, plan.Peak(p), ml, g,
				cpu.Round(time.Microsecond), el.Round(time.Microsecond))
		}
		c0, t0 := measure.CPUTime(), time.Now()
		plan, winner, err := Portfolio(context.Background(), p, PortfolioOptions{Seed: 1, LowerBound: ml})
		el, cpu := time.Since(t0), measure.CPUTime()-c0
		require.NoError(t, err)
		g := gap(plan.Peak(p), ml)
		fmt.Printf("%-28s %-22s peak=%d maxlive=%d gap=%.3f%% cpu=%v wall=%v winner=%s\n", base, "PORTFOLIO", plan.Peak(p), ml, g,
			cpu.Round(time.Millisecond), el.Round(time.Millisecond), winner)
		summary = append(summary, fmt.Sprintf("| %s | %d | %d | %.2f%% | %.3f%% | %s | %v |", strings.TrimSuffix(base, ".csv"),
			len(p.Buffers), ml, greedy, g, winner, el.Round(time.Millisecond)))
		if strings.Contains(f, "minimalloc") {
			mmGreedy += greedy
			mmPort += g
			mmN++
		}
	}
	fmt.Println("\n| instance | buffers | max-live | greedy-size gap | portfolio gap | winner | portfolio wall time |")
	fmt.Println("|---|---|---|---|---|---|---|")
	for _, s := range summary {
		fmt.Println(s)
	}
	if mmN > 0 {
		fmt.Printf("| MiniMalloc A–K mean | | | %.2f%% | %.2f%% | | |\n", mmGreedy/float64(mmN), mmPort/float64(mmN))
	}
}

func splitComma(s string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ',' {
			if i > start {
				out = append(out, s[start:i])
			}
			start = i + 1
		}
	}
	return out
}
