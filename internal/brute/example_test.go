package brute_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/optalloc/optalloc/internal/brute"
	"github.com/optalloc/optalloc/model"
)

func ExampleOptimum() {
	// MiniMalloc's 5-buffer example: the optimum peak is 12.
	p := &model.Problem{Buffers: []model.Buffer{
		{ID: "b1", Start: 0, End: 3, Size: 4}, {ID: "b2", Start: 3, End: 9, Size: 4},
		{ID: "b3", Start: 0, End: 9, Size: 4}, {ID: "b4", Start: 9, End: 21, Size: 4},
		{ID: "b5", Start: 0, End: 21, Size: 4},
	}}
	peak, _ := brute.Optimum(p)
	fmt.Println(peak)
	// Output: 12
}

func ExamplePerfectPacking() {
	p, _ := brute.PerfectPacking(rand.New(rand.NewPCG(1, 1)), 8, 16, 5)
	peak, _ := brute.Optimum(p)
	fmt.Println(len(p.Buffers), peak)
	// Output: 5 16
}
