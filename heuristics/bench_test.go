package heuristics

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/optalloc/optalloc/benchmarks"
	"github.com/optalloc/optalloc/internal/measure"
	"github.com/optalloc/optalloc/model"
)

// BenchmarkPlanners times every planner on mindspore-bert_base (5620
// buffers) and reports the gap to max-live.
func BenchmarkPlanners(b *testing.B) {
	f := filepath.Join(benchDir, "traces/mindspore-bert_base.csv")
	benchFiles(b) // skips when the data is absent
	prob := loadBench(b, f)
	ml := prob.ComputeSweep().MaxLive
	for _, pl := range All() {
		b.Run(pl.Name(), func(b *testing.B) { benchPlan(b, pl, prob, ml, time.Millisecond, "cpu-ms/op") })
	}
}

// BenchmarkTransformer62k times the fast planners on a generated
// transformer-like trace of 62 000 buffers.
func BenchmarkTransformer62k(b *testing.B) {
	prob := transformerTrace(62000, 1)
	ml := prob.ComputeSweep().MaxLive
	for _, name := range []string{"greedy-size", "firstfit-size"} {
		pl, _ := ByName(name)
		b.Run(name, func(b *testing.B) {
			var peak int64
			for b.Loop() {
				plan, err := pl.Plan(context.Background(), prob)
				if err != nil {
					b.Fatal(err)
				}
				peak = plan.Peak(prob)
			}
			b.ReportMetric(100*float64(peak-ml)/float64(ml), "gap%")
		})
	}
}

// BenchmarkPortfolio62k times the default portfolio on a generated
// transformer-like trace of 62 000 buffers.
func BenchmarkPortfolio62k(b *testing.B) {
	prob := transformerTrace(62000, 1)
	ml := prob.ComputeSweep().MaxLive
	var peak int64
	var name string
	c0 := measure.CPUTime()
	for b.Loop() {
		plan, n, err := Portfolio(context.Background(), prob, PortfolioOptions{LowerBound: ml})
		if err != nil {
			b.Fatal(err)
		}
		peak, name = plan.Peak(prob), n
	}
	b.ReportMetric(float64(measure.CPUTime()-c0)/1e6/float64(b.N), "cpu-ms/op")
	b.ReportMetric(100*float64(peak-ml)/float64(ml), "gap%")
	b.Logf("winner %s", name)
}

// BenchmarkFreeList1M times the free-list planner on the dense random
// million-buffer instance (benchmarks.Random seed 1, as `gen -kind random
// -n 1000000`) and on a million-buffer transformer-like trace, and the
// reference copy of the planner's earlier code (freelist_ref_test.go) on
// the same; cpu-ms/op is the process's CPU time (the machine is shared).
//
//	go test ./heuristics/ -run XXX -bench FreeList1M -benchmem -count 3
func BenchmarkFreeList1M(b *testing.B) {
	for _, c := range []struct {
		name string
		p    *model.Problem
	}{
		{"random", benchmarks.Random(1, benchmarks.RandomOptions{Buffers: 1_000_000})},
		{"transformer", transformerTrace(1_000_000, 1)},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			c0 := measure.CPUTime()
			for b.Loop() {
				if _, err := (&FreeList{}).Plan(context.Background(), c.p); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(measure.CPUTime()-c0)/1e6/float64(b.N), "cpu-ms/op")
		})
		// the code before the address-ordered blocks, for comparison
		b.Run(c.name+"-reference", func(b *testing.B) {
			b.ReportAllocs()
			c0 := measure.CPUTime()
			for b.Loop() {
				if _, err := (&FreeList{}).refPlan(context.Background(), c.p); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(measure.CPUTime()-c0)/1e6/float64(b.N), "cpu-ms/op")
		})
	}
}

// BenchmarkPeakSweep1M times the sweeps (PeakSweep) on the dense random
// million-buffer instance and on skip connections (benchmarks.Skips, about
// a million buffers); cpu-ms/op is the process's CPU time.
//
//	go test ./heuristics/ -run XXX -bench PeakSweep1M -benchmem -count 3
func BenchmarkPeakSweep1M(b *testing.B) {
	for _, c := range []struct {
		name string
		p    *model.Problem
	}{
		{"random", benchmarks.Random(1, benchmarks.RandomOptions{Buffers: 1_000_000})},
		{"skips", benchmarks.Skips(1, 2, 375_000)},
	} {
		for _, pl := range []*PeakSweep{{}, {NoCentre: true}} {
			b.Run(c.name+"/"+pl.Name(), func(b *testing.B) {
				b.ReportAllocs()
				c0 := measure.CPUTime()
				for b.Loop() {
					if _, err := pl.Plan(context.Background(), c.p); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(measure.CPUTime()-c0)/1e6/float64(b.N), "cpu-ms/op")
			})
		}
	}
}

// BenchmarkSweepsMillion times the sweeps of a huge portfolio on the
// traces of benchmarks/cmd/scale, 1 000 000 buffers each (dense random and
// long random skip connections; about 1.3 GB), and reports CPU time and
// the gap to max-live: `go test ./heuristics -run XXX -bench SweepsMillion
// -benchtime 1x`.
func BenchmarkSweepsMillion(b *testing.B) {
	const n = 1_000_000
	skips := func() *model.Problem {
		for ops := n*3/8 + 1000; ; ops += ops / 8 {
			if p := benchmarks.Skips(1, 2, ops); len(p.Buffers) >= n {
				p.Buffers = p.Buffers[:n]
				return p
			}
		}
	}
	for _, tr := range []struct {
		name string
		p    func() *model.Problem
	}{
		{"random", func() *model.Problem { return benchmarks.Random(1, benchmarks.RandomOptions{Buffers: n}) }},
		{"skips", skips},
	} {
		prob := tr.p()
		ml := prob.LiveCounts().MaxLive
		for _, name := range []string{"sweep-classes", "sweep-classes-fill", "sweep-peak", "sweep-peak-lifetime"} {
			pl, _ := ByName(name)
			b.Run(tr.name+"/"+name, func(b *testing.B) { benchPlan(b, pl, prob, ml, time.Second, "cpu-s/op") })
		}
	}
}

// benchPlan plans prob with pl b.N times and reports the process's CPU
// time per plan in unit (named name) and the last plan's gap above ml.
func benchPlan(b *testing.B, pl Planner, prob *model.Problem, ml int64, unit time.Duration, name string) {
	var peak int64
	c0 := measure.CPUTime()
	for b.Loop() {
		plan, err := pl.Plan(context.Background(), prob)
		if err != nil {
			b.Fatal(err)
		}
		peak = plan.Peak(prob)
	}
	b.ReportMetric(float64(measure.CPUTime()-c0)/float64(unit)/float64(b.N), name)
	b.ReportMetric(100*float64(peak-ml)/float64(ml), "gap%")
}
