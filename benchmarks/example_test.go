package benchmarks_test

import (
	"fmt"

	"github.com/optalloc/optalloc/benchmarks"
)

// A perfect packing has a known optimum: max-live equals it.
func ExamplePerfectPacking() {
	p, optimum, _ := benchmarks.PerfectPacking(1, 100, 4096, 30)
	fmt.Println(len(p.Buffers), optimum, p.ComputeSweep().MaxLive)
	// Output: 30 4096 4096
}

// A trace of transformer blocks, cut at exactly the number of buffers asked.
func ExampleTransformer() {
	p := benchmarks.Transformer(benchmarks.TransformerOptions{Buffers: 1000, Backward: true})
	fmt.Println(len(p.Buffers), p.Validate() == nil)
	// Output: 1000 true
}
