package viz_test

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/viz"
)

// Draw MiniMalloc's 5-buffer example: one rectangle per buffer, and the
// buffers that define the peak of 12.
func ExampleWriteSVG() {
	p := &model.Problem{Buffers: []model.Buffer{
		{ID: "b1", Start: 0, End: 3, Size: 4}, {ID: "b2", Start: 3, End: 9, Size: 4},
		{ID: "b3", Start: 0, End: 9, Size: 4}, {ID: "b4", Start: 9, End: 21, Size: 4},
		{ID: "b5", Start: 0, End: 21, Size: 4},
	}}
	plan := model.NewPlan(p)
	for i, off := range []int64{8, 8, 4, 4, 0} {
		plan.Placements[i].Offset = off
	}
	var svg bytes.Buffer
	if err := viz.WriteSVG(&svg, p, plan, viz.Options{Title: "input.12"}); err != nil {
		panic(err)
	}
	fmt.Println("rectangles:", strings.Count(svg.String(), `<rect class="buf`))
	for i, c := range viz.Critical(p, plan) {
		if c {
			fmt.Print(p.Buffers[i].ID, " ")
		}
	}
	fmt.Println("define the peak")
	// Output:
	// rectangles: 5
	// b1 b2 b3 b5 define the peak
}

// WriteHTML makes one self-contained page with hover and zoom.
func ExampleWriteHTML() {
	p := &model.Problem{Buffers: []model.Buffer{{ID: "x", Start: 0, End: 2, Size: 8}, {ID: "y", Start: 1, End: 3, Size: 8}}}
	plan := model.NewPlan(p)
	plan.Placements[1].Offset = 8
	var page bytes.Buffer
	if err := viz.WriteHTML(&page, p, plan, viz.Options{}); err != nil {
		panic(err)
	}
	fmt.Println(strings.HasPrefix(page.String(), "<!DOCTYPE html>"), strings.Count(page.String(), `<rect class="buf`))
	// Output: true 2
}
