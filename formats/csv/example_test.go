package csv_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/optalloc/optalloc/formats/csv"
	"github.com/optalloc/optalloc/model"
)

// Read reads MiniMalloc's CSV: columns in any order, lower/upper is the
// half-open lifetime, optional alignment, offset (pin) and gaps.
func ExampleRead() {
	const in = `id,lower,upper,size,alignment
conv1,0,3,4096,64
relu1,2,5,4096,64
fc,4,6,1024,
`
	p, err := csv.Read(strings.NewReader(in), "net.csv")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, b := range p.Buffers {
		fmt.Printf("%s live [%d, %d) %d bytes, align %d (line %d)\n", b.ID, b.Start, b.End, b.Size, b.Alignment(), b.Line)
	}
	// Bad input gives one line naming the file and row.
	_, err = csv.Read(strings.NewReader("id,lower,upper,size\na,0,3,4\nb,5,2,8\n"), "bad.csv")
	fmt.Println(err)
	// Output:
	// conv1 live [0, 3) 4096 bytes, align 64 (line 2)
	// relu1 live [2, 5) 4096 bytes, align 64 (line 3)
	// fc live [4, 6) 1024 bytes, align 1 (line 4)
	// bad.csv:3: buffer "b": lifetime [5, 2) is empty: end must be after start
}

// Write with a plan writes the problem's columns plus each offset.
func ExampleWrite() {
	p := &model.Problem{Buffers: []model.Buffer{
		{ID: "a", Start: 0, End: 3, Size: 4},
		{ID: "b", Start: 1, End: 4, Size: 8},
	}}
	plan := &model.Plan{Placements: []model.Placement{{Offset: 8, Size: 4}, {Offset: 0, Size: 8}}}
	if err := csv.Write(os.Stdout, p, plan); err != nil {
		fmt.Println(err)
	}
	fmt.Println("peak:", plan.Peak(p))
	// Output:
	// id,lower,upper,size,offset
	// a,0,3,4,8
	// b,1,4,8,0
	// peak: 12
}
