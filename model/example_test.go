package model_test

import (
	"fmt"

	"github.com/optalloc/optalloc/model"
)

// ComputeSweep gives the max-live lower bound, the sections (maximal sets of
// buffers live together) and the independent components.
func ExampleProblem_ComputeSweep() {
	p := &model.Problem{Buffers: []model.Buffer{
		{ID: "a", Start: 0, End: 3, Size: 4},
		{ID: "b", Start: 1, End: 4, Size: 8},
		{ID: "c", Start: 3, End: 5, Size: 2},
		{ID: "d", Start: 6, End: 8, Size: 16},
	}}
	s := p.ComputeSweep()
	fmt.Println("max-live:", s.MaxLive)
	fmt.Println("sections:", s.Sections)
	for _, c := range s.Components {
		fmt.Printf("component [%d, %d): buffers %v\n", c.Start, c.End, c.Buffers)
	}
	// Output:
	// max-live: 16
	// sections: 3
	// component [0, 5): buffers [0 1 2]
	// component [6, 8): buffers [3]
}

// A buffer with an absent window and a partial one occupies four
// rectangles (bytes relative to its offset).
func ExampleBuffer_Rects() {
	b := model.Buffer{ID: "x", Start: 0, End: 10, Size: 8, Gaps: []model.Gap{
		{Start: 2, End: 4}, // absent
		{Start: 6, End: 8, Window: true, Lo: 0, Hi: 2}, // only bytes [0, 2)
	}}
	for _, r := range b.Rects(0, nil) {
		fmt.Printf("time [%d,%d) bytes [%d,%d)\n", r.Start, r.End, r.Lo, r.Hi)
	}
	// Output:
	// time [0,2) bytes [0,8)
	// time [4,6) bytes [0,8)
	// time [6,8) bytes [0,2)
	// time [8,10) bytes [0,8)
}
