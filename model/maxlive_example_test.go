package model_test

import (
	"fmt"

	"github.com/optalloc/optalloc/model"
)

// LiveCounts gives max-live and the pairs of buffers alive together, in
// one pass over whole lifetimes.
func ExampleProblem_LiveCounts() {
	p := &model.Problem{Buffers: []model.Buffer{
		{ID: "a", Start: 0, End: 4, Size: 100},
		{ID: "b", Start: 2, End: 6, Size: 50},
		{ID: "c", Start: 4, End: 5, Size: 80}, // a has ended: b and c
	}}
	c := p.LiveCounts()
	fmt.Println("max-live:", c.MaxLive, "pairs:", c.Pairs)
	// Output: max-live: 150 pairs: 2
}
