package heuristics_test

import (
	"context"
	"fmt"

	"github.com/optalloc/optalloc/benchmarks"
	"github.com/optalloc/optalloc/heuristics"
)

// ExampleRepack plans a trace of long random skip connections with
// sweep-peak, then with sweep-repack, which re-plans the windows of time
// near the top around their boundary buffers.
func ExampleRepack() {
	p := benchmarks.Skips(1, 2, 1500)
	maxLive := p.LiveCounts().MaxLive
	sweep, _ := (&heuristics.PeakSweep{}).Plan(context.Background(), p)
	var st heuristics.RepackStats
	plan, _ := (&heuristics.Repack{Stats: &st}).Plan(context.Background(), p)
	fmt.Printf("%d buffers\n", len(p.Buffers))
	fmt.Printf("sweep-peak   %.3f%% above max-live\n", 100*float64(sweep.Peak(p)-maxLive)/float64(maxLive))
	fmt.Printf("sweep-repack %.3f%% above max-live (%s)\n", 100*float64(plan.Peak(p)-maxLive)/float64(maxLive), st.Stopped)
	// Output:
	// 3990 buffers
	// sweep-peak   0.089% above max-live
	// sweep-repack 0.000% above max-live (max-live reached)
}
