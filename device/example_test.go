package device_test

import (
	"context"
	"fmt"

	"github.com/optalloc/optalloc/device"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/solve"
)

// Two operators: the first writes "x" and asks for a scratch buffer, the
// second reads "x" and writes "y". The scratch is the runtime's to place
// (online); the tensors get offline offsets. The peak stated is the arena
// the device uses once the runtime has placed the scratch.
func ExampleSolveTFLM() {
	p := &model.Problem{Buffers: []model.Buffer{
		{ID: "x", Start: 1, End: 3, Size: 64, Align: 16},
		{ID: "y", Start: 2, End: 4, Size: 96, Align: 16},
		{ID: "s0", Start: 1, End: 2, Size: 80, Align: 16, Kind: model.Scratch},
	}}
	online := []bool{false, false, true}
	res, out, err := device.SolveTFLM(context.Background(), p, online, solve.Options{Threads: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("head:", res.Peak, res.Status)
	fmt.Println("TFLite Micro's own planner:", out.TFLMHead)
	fmt.Println("scratch placed by the runtime at", res.Plan.Placements[2].Offset)
	// Output:
	// head: 160 optimal
	// TFLite Micro's own planner: 160
	// scratch placed by the runtime at 0
}
