package bnb

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/optalloc/optalloc/formats"
	"github.com/optalloc/optalloc/internal/measure"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/verify"
	"github.com/stretchr/testify/require"
)

const miniDir = "../../../shared/benchmarks/minimalloc"

var miniNames = []string{"A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "K"}

func loadMini(tb testing.TB, name string) *model.Problem {
	path := filepath.Join(miniDir, name+".1048576.csv")
	if _, err := os.Stat(path); err != nil {
		tb.Skipf("benchmark data %s not found (needs ../shared/benchmarks next to the repo)", path)
	}
	p, err := formats.Load(path)
	require.NoError(tb, err)
	return p
}

// benchLimit bounds one decision of BenchmarkDecideMiniMalloc; an instance
// not decided within it is skipped (reported as such).
const benchLimit = 30 * time.Second

// BenchmarkDecideMiniMalloc decides capacity 1048576 on MiniMalloc's
// challenging instances A..K.
func BenchmarkDecideMiniMalloc(b *testing.B) {
	for _, name := range miniNames {
		b.Run(name, func(b *testing.B) {
			p := loadMini(b, name)
			for b.Loop() {
				ctx, cancel := context.WithTimeout(context.Background(), benchLimit)
				_, status, st, err := Decide(ctx, p, 1048576, Options{})
				cancel()
				require.NoError(b, err)
				if status != Feasible {
					b.Skipf("%s: %s after %v", name, status, benchLimit)
				}
				b.ReportMetric(float64(st.Nodes), "nodes")
			}
		})
	}
}

// BenchmarkDecideMiniMallocOneThread decides capacity 1048576 on A..K with
// one thread, as the README's decide table runs the CLI (deterministic: the
// same nodes every run, so the time per op is the cost of the nodes);
// cpu-ns/op is the process's CPU time per decision (GC included), steadier
// than the wall time when the machine is shared.
func BenchmarkDecideMiniMallocOneThread(b *testing.B) {
	for _, name := range miniNames {
		b.Run(name, func(b *testing.B) {
			p := loadMini(b, name)
			c0, ops := measure.CPUTime(), 0
			defer func() {
				if ops > 0 {
					b.ReportMetric(float64(measure.CPUTime()-c0)/float64(ops), "cpu-ns/op")
				}
			}()
			for b.Loop() {
				ops++
				ctx, cancel := context.WithTimeout(context.Background(), benchLimit)
				_, status, st, err := Decide(ctx, p, 1048576, Options{Threads: 1})
				cancel()
				require.NoError(b, err)
				if status != Feasible {
					b.Skipf("%s: %s after %v", name, status, benchLimit)
				}
				b.ReportMetric(float64(st.Nodes), "nodes")
				b.ReportMetric(float64(st.WindowNodes), "window-nodes")
			}
		})
	}
}

// TestDecideMiniMallocTable prints, per instance, the median of three
// decision times at 1048576 (OPTALLOC_LONG=1 to run; OPTALLOC_THREADS,
// OPTALLOC_RUNS, OPTALLOC_LIMIT=60s per run, OPTALLOC_ONLY=A,B to restrict,
// OPTALLOC_ORDERS=TWA,TRL to choose the portfolio, OPTALLOC_NOCONTINUE=1 to
// restart every order each round).
func TestDecideMiniMallocTable(t *testing.T) {
	if os.Getenv("OPTALLOC_LONG") == "" {
		t.Skip("set OPTALLOC_LONG=1 to time the MiniMalloc instances")
	}
	opt := Options{}
	if v := os.Getenv("OPTALLOC_THREADS"); v != "" {
		fmt.Sscan(v, &opt.Threads)
	}
	if v := os.Getenv("OPTALLOC_ORDERS"); v != "" {
		opt.Orders = strings.Split(v, ",")
	}
	opt.NoContinue = os.Getenv("OPTALLOC_NOCONTINUE") != ""
	limit := 60 * time.Second
	if v := os.Getenv("OPTALLOC_LIMIT"); v != "" {
		d, err := time.ParseDuration(v)
		require.NoError(t, err)
		limit = d
	}
	runs := 3
	if v := os.Getenv("OPTALLOC_RUNS"); v != "" {
		fmt.Sscan(v, &runs)
	}
	var total, totalCPU time.Duration
	fmt.Printf("| instance | buffers | max-live | decision wall time (median of %d) | CPU time (all threads) | nodes | order | window nodes |\n|---|---|---|---|---|---|---|---|\n", runs)
	for _, name := range miniNames {
		if only := os.Getenv("OPTALLOC_ONLY"); only != "" && !slices.Contains(strings.Split(only, ","), name) {
			continue
		}
		p := loadMini(t, name)
		var times, cpus []time.Duration
		var st Stats
		for r := 0; r < runs; r++ {
			ctx, cancel := context.WithTimeout(context.Background(), limit)
			t0, c0 := time.Now(), measure.CPUTime()
			pl, status, s, err := Decide(ctx, p, 1048576, opt)
			d := time.Since(t0)
			cpus = append(cpus, measure.CPUTime()-c0)
			cancel()
			require.NoError(t, err)
			if status == Feasible {
				require.LessOrEqual(t, pl.Peak(p), int64(1048576))
			}
			times = append(times, d)
			st = s
			if status != Feasible {
				fmt.Printf("%s: %s after %v\n", name, status, d)
				break
			}
		}
		slices.Sort(times)
		slices.Sort(cpus)
		med := times[len(times)/2]
		total += med
		totalCPU += cpus[len(cpus)/2]
		fmt.Printf("| %s | %d | %d | %.2f s | %.2f s | %d | %s | %d |\n", name, len(p.Buffers), p.ComputeSweep().MaxLive, med.Seconds(), cpus[len(cpus)/2].Seconds(), st.Nodes, st.Winner, st.WindowNodes)
	}
	fmt.Printf("total wall %.2f s, CPU %.2f s\n", total.Seconds(), totalCPU.Seconds())
}

// TestMinimiseMiniMallocTable minimises A..K from the engine's own first
// plan (no heuristic incumbent) with a per-instance time limit (OPTALLOC_LONG=1; OPTALLOC_LIMIT=20s).
func TestMinimiseMiniMallocTable(t *testing.T) {
	if os.Getenv("OPTALLOC_LONG") == "" {
		t.Skip("set OPTALLOC_LONG=1 to minimise the MiniMalloc instances")
	}
	limit := 20 * time.Second
	if v := os.Getenv("OPTALLOC_LIMIT"); v != "" {
		d, err := time.ParseDuration(v)
		require.NoError(t, err)
		limit = d
	}
	fmt.Printf("| instance | max-live | first plan | best peak | proven LB | status | time | decisions |\n|---|---|---|---|---|---|---|---|\n")
	for _, name := range miniNames {
		if only := os.Getenv("OPTALLOC_ONLY"); only != "" && !slices.Contains(strings.Split(only, ","), name) {
			continue
		}
		p := loadMini(t, name)
		ctx, cancel := context.WithTimeout(context.Background(), limit)
		t0 := time.Now()
		var first int64
		best, lb, st, err := Minimise(ctx, p, nil, 0, Options{}, func(pl *model.Plan) {
			if first == 0 {
				first = pl.Peak(p)
			}
		})
		d := time.Since(t0)
		cancel()
		require.NoError(t, err)
		require.Empty(t, verify.Check(p, best))
		status := "feasible"
		if lb == best.Peak(p) {
			status = "optimal"
		}
		fmt.Printf("| %s | %d | %d | %d | %d | %s | %.1f s | %d |\n", name, p.ComputeSweep().MaxLive, first, best.Peak(p), lb, status, d.Seconds(), st.Decisions)
	}
}
