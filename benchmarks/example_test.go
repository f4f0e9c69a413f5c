package benchmarks_test

import (
	"context"
	"fmt"

	"github.com/optalloc/optalloc/benchmarks"
)

// A perfect packing has a known optimum: max-live equals it.
func ExamplePerfectPacking() {
	p, optimum, _ := benchmarks.PerfectPacking(1, 100, 4096, 30)
	fmt.Println(len(p.Buffers), optimum, p.ComputeSweep().MaxLive)
	// Output: 30 4096 4096
}

// Run solves every instance with every method; every plan is re-verified.
func ExampleRun() {
	p, optimum, _ := benchmarks.PerfectPacking(2, 20, 64, 8)
	res := benchmarks.Run(context.Background(), []benchmarks.Instance{{Name: "perfect", Problem: p}},
		benchmarks.Config{Methods: []string{"heuristic"}, Workers: 1})
	r := res[0]
	fmt.Println(r.Name, r.Buffers, r.MaxLive == optimum, r.Runs[0].Valid, r.BestPeak >= optimum)
	// Output: perfect 8 true true true
}

// A trace of transformer blocks, cut at exactly the number of buffers asked.
func ExampleTransformer() {
	p := benchmarks.Transformer(benchmarks.TransformerOptions{Buffers: 1000, Backward: true})
	fmt.Println(len(p.Buffers), p.Validate() == nil)
	// Output: 1000 true
}
