package multi_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/multi"
	"github.com/optalloc/optalloc/solve"
)

// Two models on one TFLite Micro arena: "pre" (an audio preprocessor)
// and "kws" (a keyword spotter that asks for a kernel scratch buffer,
// placed by the runtime). Run one after another, their heads overlay:
// the shared head is the larger one. Run at the same time, they are kept
// apart, the model with scratch lowest.
func ExampleSolveTFLM() {
	pre := multi.Model{Name: "pre", Problem: &model.Problem{Buffers: []model.Buffer{
		{ID: "audio", Start: 0, End: 2, Size: 256, Align: 16},
		{ID: "features", Start: 1, End: 3, Size: 128, Align: 16},
	}}}
	kws := multi.Model{Name: "kws", Problem: &model.Problem{Buffers: []model.Buffer{
		{ID: "in", Start: 0, End: 2, Size: 128, Align: 16},
		{ID: "out", Start: 1, End: 3, Size: 16, Align: 16},
		{ID: "s0", Start: 1, End: 2, Size: 64, Align: 16, Kind: model.Scratch},
	}}, Online: []bool{false, false, true}}
	for _, sched := range []string{"pre\nkws\n", "pre kws\n"} {
		s, err := multi.ParseSchedule(strings.NewReader(sched), "schedule.txt", []string{"pre", "kws"})
		if err != nil {
			fmt.Println(err)
			return
		}
		c, err := multi.Combine([]multi.Model{pre, kws}, s, multi.Options{})
		if err != nil {
			fmt.Println(err)
			return
		}
		res, out, err := multi.SolveTFLM(context.Background(), c, solve.Options{Threads: 1})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%d stage(s): shared head %d (%s), model heads %v\n", len(s.Stages), res.Peak, res.Status, out.ModelHeads)
	}
	// Output:
	// 2 stage(s): shared head 384 (optimal), model heads [384 208]
	// 1 stage(s): shared head 592 (optimal), model heads [592 208]
}
