package model_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/optalloc/optalloc/model"
)

// ReadCSV reads MiniMalloc's CSV: columns in any order, lower/upper is the
// half-open lifetime, optional alignment, offset (pin) and gaps.
func ExampleReadCSV() {
	const in = `id,lower,upper,size,alignment
conv1,0,3,4096,64
relu1,2,5,4096,64
fc,4,6,1024,
`
	p, err := model.ReadCSV(strings.NewReader(in), "net.csv")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, b := range p.Buffers {
		fmt.Printf("%s live [%d, %d) %d bytes, align %d (line %d)\n", b.ID, b.Start, b.End, b.Size, b.Alignment(), b.Line)
	}
	// Bad input gives one line naming the file and row.
	_, err = model.ReadCSV(strings.NewReader("id,lower,upper,size\na,0,3,4\nb,5,2,8\n"), "bad.csv")
	fmt.Println(err)
	// Output:
	// conv1 live [0, 3) 4096 bytes, align 64 (line 2)
	// relu1 live [2, 5) 4096 bytes, align 64 (line 3)
	// fc live [4, 6) 1024 bytes, align 1 (line 4)
	// bad.csv:3: buffer "b": lifetime [5, 2) is empty: end must be after start
}

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

// WriteCSV with a plan writes the problem's columns plus each offset.
func ExampleWriteCSV() {
	p := &model.Problem{Buffers: []model.Buffer{
		{ID: "a", Start: 0, End: 3, Size: 4},
		{ID: "b", Start: 1, End: 4, Size: 8},
	}}
	plan := &model.Plan{Placements: []model.Placement{{Offset: 8, Size: 4}, {Offset: 0, Size: 8}}}
	if err := model.WriteCSV(os.Stdout, p, plan); err != nil {
		fmt.Println(err)
	}
	fmt.Println("peak:", plan.Peak(p))
	// Output:
	// id,lower,upper,size,offset
	// a,0,3,4,8
	// b,1,4,8,0
	// peak: 12
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
