package heuristics

import (
	"context"
	"slices"

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
	pools := p.PoolList()
	return perPool(ctx, p, func(ctx context.Context, its []item) ([]int64, error) {
		var capacity int64
		if len(its) > 0 {
			capacity = pools[its[0].pool].Capacity
		}
		return g.planItems(ctx, its, capacity)
	})
}

// pinFitBudget is the work budget of the bottom-up pass of planItems on
// pinned items (on up to 1000 items, scaled down by (1000/n)² above).
const pinFitBudget = 2e7

// planItems places one pool's items. With pins (up to 6000 items), when
// the greedy plan is above capacity (or above the pins' floor when there is
// none), the bottom-up placement of LowFirst (one round, within a work
// budget) is tried too and the lower peak kept.
func (g *BestFit) planItems(ctx context.Context, its []item, capacity int64) ([]int64, error) {
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
	peak, err := pc.run(ctx, order, g.FirstFit)
	if err != nil {
		return nil, err
	}
	if len(its) <= lowFirstMax && hasPins(its) && peak > max(capacity, pinFloor(its)) {
		// pins: also the bottom-up placement around them, the better kept
		off := slices.Clone(pc.off)
		budget := scaledBudget(pinFitBudget, len(its))
		if p2, _, err := pc.lowFirst(ctx, lifetimeKey(its), 0, nil, &budget); err == nil && p2 < peak {
			return pc.off, nil
		}
		return off, nil
	}
	return pc.off, nil
}
