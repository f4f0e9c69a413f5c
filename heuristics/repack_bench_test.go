package heuristics

import (
	"context"
	"testing"

	"github.com/optalloc/optalloc/benchmarks"
	"github.com/optalloc/optalloc/internal/measure"
	"github.com/optalloc/optalloc/model"
)

// BenchmarkRepack times sweep-repack (sweep-peak, then the windows near the
// top re-planned) on long random skip connections and reports CPU time,
// windows and the gap to max-live: `go test ./heuristics -run XXX -bench
// Repack -benchtime 1x` (the million-buffer case takes about 1.3 GB and
// stops after 500 windows, about 10 s of CPU).
func BenchmarkRepack(b *testing.B) {
	const million = 1_000_000
	for _, c := range []struct {
		name    string
		p       func() *model.Problem
		windows int
	}{
		{"skips-40095", func() *model.Problem { return benchmarks.Skips(1, 2, 15000) }, 0},
		{"skips-1000000/windows-500", func() *model.Problem {
			for ops := million*3/8 + 1000; ; ops += ops / 8 {
				if p := benchmarks.Skips(1, 2, ops); len(p.Buffers) >= million {
					p.Buffers = p.Buffers[:million]
					return p
				}
			}
		}, 500},
	} {
		b.Run(c.name, func(b *testing.B) {
			p := c.p()
			ml := p.LiveCounts().MaxLive
			var peak int64
			var st RepackStats
			c0 := measure.CPUTime()
			for b.Loop() {
				st = RepackStats{}
				plan, err := (&Repack{MaxWindows: c.windows, Stats: &st}).Plan(context.Background(), p)
				if err != nil {
					b.Fatal(err)
				}
				peak = plan.Peak(p)
			}
			b.ReportMetric(float64(measure.CPUTime()-c0)/1e9/float64(b.N), "cpu-s/op")
			b.ReportMetric(100*float64(peak-ml)/float64(ml), "gap%")
			b.ReportMetric(100*float64(st.StartPeak-ml)/float64(ml), "sweep-gap%")
			b.ReportMetric(float64(st.Windows), "windows")
		})
	}
}
