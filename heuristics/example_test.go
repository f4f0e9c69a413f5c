package heuristics_test

import (
	"context"
	"fmt"

	"github.com/optalloc/optalloc/heuristics"
	"github.com/optalloc/optalloc/model"
)

func example() *model.Problem {
	return &model.Problem{Buffers: []model.Buffer{
		{ID: "a", Start: 0, End: 2, Size: 4},
		{ID: "b", Start: 1, End: 3, Size: 2},
		{ID: "c", Start: 2, End: 4, Size: 4},
		{ID: "e", Start: 2, End: 3, Size: 5},
		{ID: "scratch", Start: 1, End: 2, Size: 1, MaxSize: 8, Kind: model.Scratch},
	}}
}

func Example() {
	p := example()
	pl, _ := heuristics.ByName("greedy-size")
	plan, err := pl.Plan(context.Background(), p)
	if err != nil {
		fmt.Println(err)
		return
	}
	for i, q := range plan.Placements {
		fmt.Println(p.Buffers[i].ID, q.Offset)
	}
	fmt.Println("peak", plan.Peak(p))
	// Output:
	// a 0
	// b 9
	// c 5
	// e 0
	// scratch 4
	// peak 11
}

func ExamplePortfolio() {
	p := example()
	plan, winner, err := heuristics.Portfolio(context.Background(), p, heuristics.PortfolioOptions{
		Threads: 2, Seed: 1, LowerBound: p.ComputeSweep().MaxLive,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("winner", winner, "peak", plan.Peak(p))
	// Output:
	// winner greedy-size peak 11
}

func ExampleFillScratch() {
	p := example()
	pl, _ := heuristics.ByName("greedy-size")
	plan, _ := pl.Plan(context.Background(), p)
	// the elastic scratch buffer grows into the free bytes at its time,
	// without raising the peak
	filled, err := heuristics.FillScratch(p, plan, heuristics.ScratchOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	q := filled.Placements[4]
	fmt.Println("scratch at", q.Offset, "granted", q.Size, "peak", filled.Peak(p))
	// Output:
	// scratch at 4 granted 5 peak 11
}

func ExampleFreeList() {
	// 10 requested while blocks of 2 and 4 are free, the 4 at the end of
	// the arena: the planner takes the 4 and extends it by 6.
	p := &model.Problem{Buffers: []model.Buffer{
		{ID: "x", Start: 0, End: 5, Size: 2},
		{ID: "y", Start: 1, End: 10, Size: 1},
		{ID: "z", Start: 2, End: 5, Size: 4},
		{ID: "w", Start: 5, End: 6, Size: 10},
	}}
	plan, _ := (&heuristics.FreeList{}).Plan(context.Background(), p)
	fmt.Println("w at", plan.Placements[3].Offset, "peak", plan.Peak(p))
	// Output:
	// w at 3 peak 13
}
