package verify_test

import (
	"fmt"

	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/verify"
)

// Check lists everything wrong with a plan; an empty list means valid.
func ExampleCheck() {
	p := &model.Problem{Buffers: []model.Buffer{
		{ID: "a", Start: 0, End: 3, Size: 8},
		{ID: "b", Start: 2, End: 5, Size: 8, Align: 16},
		{ID: "c", Start: 3, End: 6, Size: 4},
	}}
	good := &model.Plan{Placements: []model.Placement{{Offset: 0, Size: 8}, {Offset: 16, Size: 8}, {Offset: 0, Size: 4}}}
	fmt.Println("valid:", len(verify.Check(p, good)) == 0)

	bad := &model.Plan{Placements: []model.Placement{{Offset: 0, Size: 8}, {Offset: 4, Size: 8}, {Offset: 4, Size: 4}}}
	for _, v := range verify.Check(p, bad) {
		fmt.Println(v)
	}
	// Output:
	// valid: true
	// misaligned: buffer "b" at offset 4 is not a multiple of 16
	// overlap: buffers "a" [0, 3) and "b" [2, 5) share bytes [4, 8) at time 2
	// overlap: buffers "b" [2, 5) and "c" [3, 6) share bytes [4, 8) at time 3
}
