package solve_test

import (
	"context"
	"fmt"
	"strings"

	csvfmt "github.com/optalloc/optalloc/formats/csv"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/solve"
)

// Minimise the peak of MiniMalloc's 5-buffer example: the result is proven
// optimal because the plan's peak equals max-live.
func ExampleSolve() {
	csv := "id,lower,upper,size\nb1,0,3,4\nb2,3,9,4\nb3,0,9,4\nb4,9,21,4\nb5,0,21,4\n"
	p, err := csvfmt.Read(strings.NewReader(csv), "input.12.csv")
	if err != nil {
		panic(err)
	}
	r, err := solve.Solve(context.Background(), p, solve.Options{Threads: 1})
	if err != nil {
		panic(err)
	}
	fmt.Println(r.Peak, r.LowerBound, r.Status)
	// Output: 12 12 optimal
}

// Decide a capacity: below max-live the bound itself refutes it.
func ExampleSolve_decision() {
	p := &model.Problem{Buffers: []model.Buffer{
		{ID: "a", Start: 0, End: 2, Size: 100},
		{ID: "b", Start: 1, End: 3, Size: 100},
	}}
	r, _ := solve.Solve(context.Background(), p, solve.Options{Capacity: 150})
	fmt.Println(r.Status, "-", r.Reason)
	// Output: infeasible - max-live 200 exceeds the capacity 150
}

// Prove a lower bound: here a plan at max-live exists, so it is the optimum.
func ExampleProveBound() {
	p := &model.Problem{Buffers: []model.Buffer{
		{ID: "a", Start: 0, End: 2, Size: 100},
		{ID: "b", Start: 1, End: 3, Size: 50},
	}}
	b, _ := solve.ProveBound(context.Background(), p, solve.Options{Threads: 1})
	fmt.Println(b.LowerBound, b.Method, b.Optimal)
	// Output: 150 max-live true
}
