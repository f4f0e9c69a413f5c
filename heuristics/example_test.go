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

func ExampleHonourHints() {
	// c would like offset 10: it is free while c lives (b has died) and
	// c still ends under the peak, so the hint costs nothing.
	hint := int64(10)
	p := &model.Problem{Buffers: []model.Buffer{
		{ID: "a", Start: 0, End: 4, Size: 8},
		{ID: "b", Start: 0, End: 2, Size: 4},
		{ID: "c", Start: 2, End: 4, Size: 2, Hint: &hint},
	}}
	plan, _ := (&heuristics.BestFit{Order: "size"}).Plan(context.Background(), p)
	fmt.Println("c at", plan.Placements[2].Offset, "peak", plan.Peak(p))
	moved, honoured := heuristics.HonourHints(p, plan)
	fmt.Println("c at", moved.Placements[2].Offset, "peak", moved.Peak(p), "hints honoured", honoured)
	// Output:
	// c at 8 peak 12
	// c at 10 peak 12 hints honoured 1
}

func ExampleBoundingRectangles() {
	// y is a view of the upper half of x that outlives x: after time 3 the
	// group only uses bytes [4, 8), and z takes [0, 4).
	p := &model.Problem{Buffers: []model.Buffer{
		{ID: "x", Start: 0, End: 3, Size: 8},
		{ID: "y", Start: 2, End: 8, Size: 4, Alias: &model.Alias{Parent: "x", Delta: 4}},
		{ID: "z", Start: 4, End: 8, Size: 4},
	}}
	g := &heuristics.BestFit{Order: "size"}
	exact, _ := g.Plan(context.Background(), p)
	old, _ := g.Plan(heuristics.BoundingRectangles(context.Background()), p)
	fmt.Println("exact footprints: z at", exact.Placements[2].Offset, "peak", exact.Peak(p))
	fmt.Println("bounding rectangles: z at", old.Placements[2].Offset, "peak", old.Peak(p))
	// Output:
	// exact footprints: z at 0 peak 8
	// bounding rectangles: z at 8 peak 12
}

// A forward and backward pass: the activations saved at steps 0, 1 and 2
// are read back at 5, 4 and 3. sweep-peak stacks the buffers live at the
// turn first, so the plan is max-live; the forward-only sweep is not.
func ExamplePeakSweep() {
	p := &model.Problem{Buffers: []model.Buffer{
		{ID: "act0", Start: 0, End: 6, Size: 3},
		{ID: "tmp0", Start: 0, End: 1, Size: 4},
		{ID: "act1", Start: 1, End: 5, Size: 5},
		{ID: "tmp1", Start: 1, End: 2, Size: 2},
		{ID: "act2", Start: 2, End: 4, Size: 2},
		{ID: "grad2", Start: 3, End: 4, Size: 6},
		{ID: "grad1", Start: 4, End: 5, Size: 1},
	}}
	for _, pl := range []*heuristics.PeakSweep{{}, {NoCentre: true}} {
		plan, err := pl.Plan(context.Background(), p)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(pl.Name(), "peak", plan.Peak(p), "max-live", p.ComputeSweep().MaxLive)
	}
	// Output:
	// sweep-peak peak 16 max-live 16
	// sweep-end peak 18 max-live 16
}
