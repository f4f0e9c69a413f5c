package executorch_test

import (
	"context"
	"fmt"
	"strings"
	"time"

	etdevice "github.com/optalloc/optalloc/device/executorch"
	etfmt "github.com/optalloc/optalloc/formats/executorch"
	"github.com/optalloc/optalloc/solve"
)

// Plan ExecuTorch's specs with its rules: one arena per mem_id, the view
// inside its base, bufsizes with the input buffer and the padding.
func ExampleRuntime_Solve() {
	f, err := etfmt.Read(strings.NewReader(`{"executorch": {"alignment": 16, "extra_padding": 8, "input_mem_buffer_sizes": [0, 64],
	 "specs": [{"id": "x", "size": 64, "lifetime": [0, 3]},
	           {"id": "w", "size": 256, "lifetime": [2, 4], "mem_id": 2},
	           {"id": "v", "size": 64, "lifetime": [5, 7], "storage_base": "w", "storage_base_offset": 128}]}}`), "specs.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	rt := etdevice.New(f)
	p := rt.Arena.Problem
	res, _, err := rt.Solve(context.Background(), p, solve.Options{TimeLimit: time.Second, Threads: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	pl, _ := rt.Placements(p, res.Plan)
	for i, s := range f.Specs {
		a := pl.Specs[i]
		fmt.Printf("%s: mem_id %d mem_obj_id %d mem_offset %d\n", s.ID, a.MemID, a.MemObjID, a.MemOffset)
	}
	fmt.Println("bufsizes", pl.BufSizes)
	// Output:
	// x: mem_id 1 mem_obj_id 0 mem_offset 64
	// w: mem_id 2 mem_obj_id 0 mem_offset 0
	// v: mem_id 2 mem_obj_id 0 mem_offset 128
	// bufsizes [0 136 264]
}
