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

	"github.com/optalloc/optalloc/model"
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
	p, err := model.Load(f)
	require.NoError(tb, err)
	return p
}

// TestGapTable prints, for every benchmark instance and planner, the peak,
// the gap to max-live and the time. Set OPTALLOC_LONG=1 to run it.
func TestGapTable(t *testing.T) {
	if os.Getenv("OPTALLOC_LONG") == "" {
		t.Skip("set OPTALLOC_LONG=1 to print the gap table")
	}
	names := Names()
	if s := os.Getenv("OPTALLOC_PLANNERS"); s != "" {
		names = splitComma(s)
	}
	for _, f := range benchFiles(t) {
		p := loadBench(t, f)
		ml := p.ComputeSweep().MaxLive
		for _, name := range names {
			pl, ok := ByName(name)
			require.True(t, ok, name)
			t0 := time.Now()
			plan, err := pl.Plan(context.Background(), p)
			el := time.Since(t0)
			require.NoError(t, err)
			require.NoError(t, checkPlan(p, plan), "%s on %s", name, f)
			peak := plan.Peak(p)
			fmt.Printf("%-28s %-20s peak=%d maxlive=%d gap=%.3f%% time=%v\n", filepath.Base(f), name, peak, ml, 100*float64(peak-ml)/float64(ml), el.Round(time.Microsecond))
		}
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
