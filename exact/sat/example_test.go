package sat_test

import (
	"context"
	"fmt"

	"github.com/optalloc/optalloc/exact/sat"
	"github.com/optalloc/optalloc/model"
)

// Four buffers: a and b are live together, c replaces a, d lives with c and
// b. Max-live is 12 bytes.
func example() *model.Problem {
	return &model.Problem{Buffers: []model.Buffer{
		{ID: "a", Start: 0, End: 2, Size: 4},
		{ID: "b", Start: 0, End: 4, Size: 8},
		{ID: "c", Start: 2, End: 5, Size: 4},
		{ID: "d", Start: 4, End: 6, Size: 4},
	}}
}

func ExampleDecide() {
	p := example()
	ctx := context.Background()
	pl, status, _, err := sat.Decide(ctx, p, 12, sat.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println(status, pl.Peak(p))
	_, status, st, _ := sat.Decide(ctx, p, 11, sat.Options{})
	fmt.Println(status, "—", st.Reason)
	// Output:
	// feasible 12
	// infeasible — max-live 12 exceeds the capacity
}

func ExampleMinimise() {
	p := example()
	pl, lb, _, err := sat.Minimise(context.Background(), p, nil, 0, sat.Options{}, nil)
	if err != nil {
		panic(err)
	}
	fmt.Println("peak", pl.Peak(p), "proven lower bound", lb)
	// Output:
	// peak 12 proven lower bound 12
}

func ExampleGallop() {
	// Three 2-byte buffers live together, each aligned to 4 bytes: max-live
	// is 6, but the optimum puts them at 0, 4 and 8 (peak 10), refuted at 9.
	p := &model.Problem{Buffers: []model.Buffer{
		{ID: "x", Start: 0, End: 1, Size: 2, Align: 4},
		{ID: "y", Start: 0, End: 1, Size: 2, Align: 4},
		{ID: "z", Start: 0, End: 1, Size: 2, Align: 4},
	}}
	pl, lb, _, err := sat.Gallop(context.Background(), p, nil, 0, sat.Options{}, nil)
	if err != nil {
		panic(err)
	}
	fmt.Println("peak", pl.Peak(p), "proven lower bound", lb)
	// Output:
	// peak 10 proven lower bound 10
}

func ExampleProveLowerBound() {
	// Every offset must be a multiple of 4: the 2-byte buffers waste room,
	// so the optimum (three at 0, 4, 8: peak 10) is above max-live (6).
	p := &model.Problem{Buffers: []model.Buffer{
		{ID: "x", Start: 0, End: 2, Size: 2, Align: 4},
		{ID: "y", Start: 0, End: 2, Size: 2, Align: 4},
		{ID: "z", Start: 1, End: 2, Size: 2, Align: 4},
	}}
	lb, how, _, err := sat.ProveLowerBound(context.Background(), p, sat.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println(p.ComputeSweep().MaxLive, lb, how)
	// Output:
	// 6 10 window [1,2) of 3 buffers unsat at 8
}

func ExampleImprove() {
	p := example()
	// A poor incumbent: everything stacked.
	stacked := model.NewPlan(p)
	var top int64
	for i := range stacked.Placements {
		stacked.Placements[i].Offset = top
		top += p.Buffers[i].Size
	}
	pl, _, err := sat.Improve(context.Background(), p, stacked, sat.Options{LNSBuffers: 2}, nil)
	if err != nil {
		panic(err)
	}
	fmt.Println(stacked.Peak(p), "→", pl.Peak(p))
	// Output:
	// 20 → 12
}

func ExampleDecide_gaps() {
	// a occupies only bytes [1, 3) of its 4 while it lives (a partial gap),
	// but still ends at offset + 4; c lives beside it. Max-live is 6, and
	// the exact encoding of the gap proves that 6 bytes do not suffice.
	p := &model.Problem{Buffers: []model.Buffer{
		{ID: "a", Start: 1, End: 3, Size: 4, Gaps: []model.Gap{{Start: 1, End: 3, Window: true, Lo: 1, Hi: 3}}},
		{ID: "c", Start: 1, End: 4, Size: 4},
	}}
	ctx := context.Background()
	_, status, st, _ := sat.Decide(ctx, p, 6, sat.Options{})
	fmt.Println(status, "—", st.Reason)
	pl, lb, _, _ := sat.Minimise(ctx, p, nil, 0, sat.Options{}, nil)
	fmt.Println("peak", pl.Peak(p), "proven lower bound", lb)
	// Output:
	// infeasible — unsatisfiable at 6 units of 1 bytes
	// peak 7 proven lower bound 7
}
