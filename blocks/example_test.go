package blocks_test

import (
	"context"
	"fmt"
	"os"

	"github.com/optalloc/optalloc/blocks"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/verify"
)

// Two models run one after the other and share one pool of blocks: the
// decoder reuses the encoder's blocks.
func ExampleSolve() {
	p := &model.Problem{Buffers: []model.Buffer{
		{ID: "encoder/x", Start: 0, End: 2, Size: 1000},
		{ID: "encoder/h", Start: 1, End: 3, Size: 400},
		{ID: "encoder/y", Start: 2, End: 4, Size: 600},
		{ID: "decoder/x", Start: 4, End: 6, Size: 800},
		{ID: "decoder/y", Start: 5, End: 7, Size: 300},
	}}
	res, err := blocks.Solve(context.Background(), p, blocks.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Status, res.TotalBytes, "bytes in", res.BlocksUsed, "blocks; at least", res.MinBlocks, "blocks")
	for i, b := range p.Buffers {
		fmt.Printf("%s -> block %d\n", b.ID, res.Plan.Assign[i])
	}
	fmt.Println("verified:", len(verify.BlockCheck(p, res.Plan.Sizes(), res.Plan.Assign)) == 0)
	// Output:
	// optimal 1400 bytes in 2 blocks; at least 2 blocks
	// encoder/x -> block 0
	// encoder/h -> block 1
	// encoder/y -> block 0
	// decoder/x -> block 0
	// decoder/y -> block 1
	// verified: true
}

// The schedule a runtime replays: per time step, releases, new blocks and
// takes, one CSV row per event.
func ExampleNewSchedule() {
	p := &model.Problem{Buffers: []model.Buffer{
		{ID: "a", Start: 0, End: 2, Size: 64},
		{ID: "b", Start: 1, End: 3, Size: 32},
		{ID: "c", Start: 2, End: 4, Size: 48},
	}}
	res, err := blocks.Solve(context.Background(), p, blocks.Options{Method: "greedy_in_order"})
	if err != nil {
		panic(err)
	}
	s, err := blocks.NewSchedule(p, res.Plan)
	if err != nil {
		panic(err)
	}
	if err := blocks.WriteScheduleCSV(os.Stdout, s); err != nil {
		panic(err)
	}
	fmt.Println("replay ok:", len(s.Verify(p, res.Plan)) == 0)
	// Output:
	// time,op,block,buffer,size,offset,model
	// 0,new,0,,64,,
	// 0,take,0,a,64,0,
	// 1,new,1,,32,,
	// 1,take,1,b,32,0,
	// 2,release,0,a,,,
	// 2,take,0,c,48,0,
	// 3,release,1,b,,,
	// 3,retire,1,,,,
	// 4,release,0,c,,,
	// 4,retire,0,,,,
	// replay ok: true
}

// The bounds: the level bound on total bytes and the minimum block count.
func ExampleComputeBounds() {
	p := &model.Problem{Buffers: []model.Buffer{
		{ID: "a", Start: 0, End: 2, Size: 64},
		{ID: "b", Start: 1, End: 3, Size: 32},
		{ID: "c", Start: 2, End: 4, Size: 48},
	}}
	b, err := blocks.ComputeBounds(p)
	if err != nil {
		panic(err)
	}
	fmt.Println(b.LowerBound, b.MinBlocks, b.At, b.Live)
	// Output:
	// 96 2 1 [a b]
}
