package corpus_test

import (
	"context"
	"fmt"

	"github.com/optalloc/optalloc/benchmarks"
	"github.com/optalloc/optalloc/corpus"
)

// Run solves every instance with every method; every plan is re-verified.
func ExampleRun() {
	p, optimum, _ := benchmarks.PerfectPacking(2, 20, 64, 8)
	res := corpus.Run(context.Background(), []corpus.Instance{{Name: "perfect", Problem: p}},
		corpus.Config{Methods: []string{"heuristic"}, Workers: 1})
	r := res[0]
	fmt.Println(r.Name, r.Buffers, r.MaxLive == optimum, r.Runs[0].Valid, r.BestPeak >= optimum)
	// Output: perfect 8 true true true
}
