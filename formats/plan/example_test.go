package plan_test

import (
	"fmt"
	"strings"

	"github.com/optalloc/optalloc/formats/plan"
	"github.com/optalloc/optalloc/model"
)

// Read takes a CSV (or JSON) plan for a problem; buffers it does not
// mention are marked missing for the verifier.
func ExampleRead() {
	p := &model.Problem{Buffers: []model.Buffer{
		{ID: "a", Start: 0, End: 2, Size: 16},
		{ID: "b", Start: 1, End: 3, Size: 8},
	}}
	pl, err := plan.Read(strings.NewReader("id,offset\na,8\n"), "plan.csv", p)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(pl.Placements[0].Offset, pl.Placements[1].Offset == model.MissingOffset)
	// Output: 8 true
}
