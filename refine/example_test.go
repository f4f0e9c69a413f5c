package refine_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/optalloc/optalloc/exact/bnb"
	"github.com/optalloc/optalloc/heuristics"
	"github.com/optalloc/optalloc/internal/brute"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/refine"
	"github.com/optalloc/optalloc/verify"
)

// Refine lowers greedy-size's plan of a chain of 3 000 ops window by
// window, down to max-live (so the plan is optimal).
func ExampleRefine() {
	p := brute.Chain(rand.New(rand.NewPCG(1, 1)), 3000)
	start, _, err := heuristics.Portfolio(context.Background(), p, heuristics.PortfolioOptions{Planners: []string{"greedy-size"}})
	if err != nil {
		panic(err)
	}
	maxLive := p.ComputeSweep().MaxLive
	best := start
	_, err = refine.Refine(context.Background(), p, start, maxLive, bnb.Options{}, refine.DefaultBudget, func(pl *model.Plan) { best = pl })
	if err != nil {
		panic(err)
	}
	fmt.Println("greedy-size above max-live:", start.Peak(p) > maxLive)
	fmt.Println("refined to max-live:", best.Peak(p) == maxLive, "valid:", len(verify.Check(p, best)) == 0)
	// Output:
	// greedy-size above max-live: true
	// refined to max-live: true valid: true
}
