package bnb_test

import (
	"context"
	"fmt"

	"github.com/optalloc/optalloc/exact/bnb"
	"github.com/optalloc/optalloc/model"
)

func example() *model.Problem {
	// MiniMalloc's 5-buffer example (benchmarks/examples/input.12.csv).
	return &model.Problem{Buffers: []model.Buffer{
		{ID: "b1", Start: 0, End: 3, Size: 4}, {ID: "b2", Start: 3, End: 9, Size: 4},
		{ID: "b3", Start: 0, End: 9, Size: 4}, {ID: "b4", Start: 9, End: 21, Size: 4},
		{ID: "b5", Start: 0, End: 21, Size: 4},
	}}
}

func ExampleDecide() {
	p := example()
	for _, capacity := range []int64{11, 12} {
		pl, status, _, err := bnb.Decide(context.Background(), p, capacity, bnb.Options{Threads: 1})
		if err != nil {
			panic(err)
		}
		if pl != nil {
			fmt.Println(capacity, status, pl.Peak(p))
		} else {
			fmt.Println(capacity, status)
		}
	}
	// Output:
	// 11 infeasible
	// 12 feasible 12
}

func ExampleMinimise() {
	p := example()
	best, lb, _, err := bnb.Minimise(context.Background(), p, nil, 0, bnb.Options{Threads: 1}, nil)
	if err != nil {
		panic(err)
	}
	fmt.Printf("peak=%d lower_bound=%d\n", best.Peak(p), lb)
	// Output: peak=12 lower_bound=12
}
