package heuristics

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/optalloc/optalloc/internal/measure"
	"github.com/optalloc/optalloc/verify"
	"github.com/stretchr/testify/require"
)

// TestMillionBuffers plans a generated transformer-like trace of 1 000 000
// buffers with the free-list planner and with the default portfolio, and
// prints time, peak heap and gap (issue 9: < 30 s, < 4 GiB). Set
// OPTALLOC_LONG=1 to run it.
func TestMillionBuffers(t *testing.T) {
	if os.Getenv("OPTALLOC_LONG") == "" {
		t.Skip("set OPTALLOC_LONG=1 to plan a 1M-buffer trace")
	}
	p := transformerTrace(1_000_000, 9)
	ml := p.ComputeSweep().MaxLive
	for _, name := range []string{"freelist", "greedy-size", "portfolio"} {
		runtime.GC()
		c0, t0 := measure.CPUTime(), time.Now()
		var peak int64
		if name == "portfolio" {
			plan, winner, err := Portfolio(context.Background(), p, PortfolioOptions{LowerBound: ml})
			require.NoError(t, err)
			peak = plan.Peak(p)
			name += "(" + winner + ")"
		} else {
			pl, _ := ByName(name)
			plan, err := pl.Plan(context.Background(), p)
			require.NoError(t, err)
			el, cpu := time.Since(t0), measure.CPUTime()-c0
			require.Empty(t, verify.Check(p, plan))
			peak = plan.Peak(p)
			fmt.Printf("%s: plan wall %v cpu %v (verify excluded)\n", name, el.Round(time.Millisecond), cpu.Round(time.Millisecond))
		}
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		fmt.Printf("1M buffers %s: wall=%v cpu=%v (incl. verify) peak=%d maxlive=%d gap=%.3f%% heap-sys=%d MiB\n",
			name, time.Since(t0).Round(time.Millisecond), (measure.CPUTime() - c0).Round(time.Millisecond), peak, ml, 100*float64(peak-ml)/float64(ml), ms.Sys>>20)
	}
}
