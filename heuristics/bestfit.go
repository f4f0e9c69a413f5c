package heuristics

import (
	"context"

	"github.com/optalloc/optalloc/model"
)

func init() {
	for _, o := range []string{"size", "area", "lifetime", "degree", "overlap"} {
		Register(&BestFit{Order: o})
	}
	for _, o := range []string{"size", "area", "lifetime", "degree"} {
		Register(&BestFit{Order: o, FirstFit: true})
	}
}

// BestFit is the greedy planner of TFLite and XLA's heap simulator: items are
// taken in the order of a metric (size, lifetime, area, degree, overlap, or
// a combination, see Order) and each goes into the smallest gap between
// already placed, time-conflicting items that holds it, or on top of them
// when no gap does. With FirstFit it goes into the lowest such gap instead.
// Pinned items are placed first, at their pins. An alias group is placed
// as one item; groups and buffers with MiniMalloc gaps are placed by their
// exact footprint (members at their deltas, gaps honoured): the offsets
// they may take are those where none of their rectangles meets a placed
// rectangle live at the same time.
// Each pool's buffers are planned apart.
//
// Its names are "greedy-ORDER" and "firstfit-ORDER"; "greedy-size" is the
// plain greedy-by-size best-fit.
type BestFit struct {
	// Order is a metric spec: "size", "lifetime", "area", "degree",
	// "overlap", "start", joined by "," (lexicographic) or "*" (product).
	Order    string
	FirstFit bool
}

// Name implements Planner.
func (g *BestFit) Name() string {
	if g.FirstFit {
		return "firstfit-" + g.Order
	}
	return "greedy-" + g.Order
}

// Plan implements Planner.
func (g *BestFit) Plan(ctx context.Context, p *model.Problem) (*model.Plan, error) {
	return perPool(ctx, p, g.planItems)
}

func (g *BestFit) planItems(ctx context.Context, its []item) ([]int64, error) {
	keys, err := parseKeys(g.Order, its)
	if err != nil {
		return nil, err
	}
	order := orderBy(its, keys)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	pc := newPlacer(its)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if _, err := pc.run(ctx, order, g.FirstFit); err != nil {
		return nil, err
	}
	return pc.off, nil
}
