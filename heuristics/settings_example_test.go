package heuristics_test

import (
	"context"
	"fmt"

	"github.com/optalloc/optalloc/heuristics"
	"github.com/optalloc/optalloc/model"
)

// Settings in the context change the knobs of planners reached by name:
// here the free-list planner splits the largest free block, as seed 000
// does, instead of the smallest.
func ExampleWithSettings() {
	// at time 5 blocks [0,5) and [6,13) are free; d (4 bytes) starts then
	p := &model.Problem{Buffers: []model.Buffer{
		{ID: "a", Start: 0, End: 5, Size: 5}, {ID: "keep1", Start: 1, End: 10, Size: 1},
		{ID: "b", Start: 2, End: 5, Size: 7}, {ID: "keep2", Start: 3, End: 10, Size: 1},
		{ID: "d", Start: 6, End: 7, Size: 4},
	}}
	fl, _ := heuristics.ByName("freelist")
	for _, largest := range []bool{false, true} {
		ctx := heuristics.WithSettings(context.Background(), &heuristics.Settings{
			FreeList: &heuristics.FreeList{SplitLargest: largest}})
		plan, _ := fl.Plan(ctx, p)
		fmt.Println("split largest:", largest, "d at", plan.Placements[4].Offset)
	}
	// Output:
	// split largest: false d at 0
	// split largest: true d at 6
}

// Any strip-packing order is a planner name: sums, ratios and ascending
// parts of the metrics.
func ExampleStripByName() {
	s, ok := heuristics.StripByName("strip-size-per-lifetime-start-asc")
	fmt.Println(ok, s.Order, s.Name())
	_, ok = heuristics.StripByName("strip-size-per")
	fmt.Println(ok)
	// Output:
	// true size/lifetime,start:asc strip-size-per-lifetime-start-asc
	// false
}

// SlowScratch keeps scratch that is not latency-critical out of the
// fastest pool.
func ExampleSlowScratch() {
	p := &model.Problem{
		Pools: []model.Pool{{Name: "sram", Capacity: 64, Rank: 0}, {Name: "dram", Rank: 1}},
		Buffers: []model.Buffer{
			{ID: "conv:im2col", Start: 0, End: 1, Size: 16, Kind: model.Scratch},
			{ID: "fc:acc", Start: 1, End: 2, Size: 16, Kind: model.Scratch, LatencyCritical: true},
		}}
	for _, b := range heuristics.SlowScratch(p).Buffers {
		fmt.Println(b.ID, b.Pools)
	}
	// Output:
	// conv:im2col [dram]
	// fc:acc []
}
