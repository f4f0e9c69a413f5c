package heuristics

import (
	"cmp"
	"context"
	"slices"

	"github.com/optalloc/optalloc/model"
)

func init() {
	Register(&Textbook{})
}

// Textbook is the greedy of the textbooks and of most papers: items sorted
// by size, largest first, ties by start (then input order); each goes at
// the lowest offset where it fits between the already placed items whose
// lifetimes meet its own (first fit, not best fit). Pinned items are placed
// first, at their pins. Its name is "greedy-textbook".
type Textbook struct{}

// Name implements Planner.
func (Textbook) Name() string { return "greedy-textbook" }

// Plan implements Planner.
func (Textbook) Plan(ctx context.Context, p *model.Problem) (*model.Plan, error) {
	return firstFitInOrder(ctx, p, textbookOrder)
}

// firstFitInOrder places each pool's items first fit in the order that
// order gives.
func firstFitInOrder(ctx context.Context, p *model.Problem, order func([]item) []int32) (*model.Plan, error) {
	return perPool(ctx, p, func(ctx context.Context, its []item) ([]int64, error) {
		pc := newPlacer(its)
		if _, err := pc.run(ctx, order(its), true); err != nil {
			return nil, err
		}
		return pc.off, nil
	})
}

// textbookOrder sorts the items by size, largest first, then by start,
// then by index.
func textbookOrder(its []item) []int32 {
	order := make([]int32, len(its))
	for k := range order {
		order[k] = int32(k)
	}
	slices.SortFunc(order, func(a, b int32) int {
		x, y := &its[a], &its[b]
		if c := cmp.Compare(y.size, x.size); c != 0 {
			return c
		}
		if c := cmp.Compare(x.start, y.start); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	return order
}
