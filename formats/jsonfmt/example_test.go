package jsonfmt_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/optalloc/optalloc/formats/jsonfmt"
	"github.com/optalloc/optalloc/model"
)

// Read reads the JSON problem format; WritePlan writes a plan of it.
func ExampleWritePlan() {
	p, err := jsonfmt.Read(strings.NewReader(`{"buffers": [
 {"id": "a", "start": 0, "end": 2, "size": 16},
 {"id": "b", "start": 1, "end": 3, "size": 8}]}`), "net.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	pl := &model.Plan{Placements: []model.Placement{{Offset: 0, Size: 16}, {Offset: 16, Size: 8}}}
	if err := jsonfmt.WritePlan(os.Stdout, p, pl); err != nil {
		fmt.Println(err)
	}
	// Output:
	// {
	//  "peak": 24,
	//  "placements": [
	//   {
	//    "id": "a",
	//    "offset": 0,
	//    "size": 16,
	//    "start": 0,
	//    "end": 2
	//   },
	//   {
	//    "id": "b",
	//    "offset": 16,
	//    "size": 8,
	//    "start": 1,
	//    "end": 3
	//   }
	//  ]
	// }
}
