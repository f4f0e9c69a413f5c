package sat

import (
	"context"
	"fmt"

	"github.com/optalloc/optalloc/model"
)

// Decide answers whether the problem fits in capacity bytes of pool 0
// (capacity ≤ 0 means the capacity of pool 0; a pool capacity below
// capacity wins, since a plan above it is not valid). Max-live, pins and a
// first-fit packing are checked before any encoding is built. Feasible comes with a plan
// (every buffer in pool 0 at its minimum size); Infeasible is a proof,
// given only when the item model is exact (always, unless Options.RoundUp);
// Unknown comes with Stats.Reason (budget, time, rounded sizes). Gaps and
// alias members (also those outliving their root) are encoded exactly.
func Decide(ctx context.Context, p *model.Problem, capacity int64, opt Options) (*model.Plan, Status, Stats, error) {
	in, err := newInstance(p, opt.RoundUp)
	if u, ok := err.(impossible); ok {
		return nil, Infeasible, Stats{Reason: string(u)}, nil
	}
	if u, ok := declined(err); ok {
		return nil, Unknown, Stats{Reason: u}, nil
	}
	if err != nil {
		return nil, Unknown, Stats{}, err
	}
	if c := p.PoolList()[0].Capacity; capacity <= 0 || c > 0 && c < capacity {
		capacity = c // a plan above pool 0's own capacity would not be valid
	}
	if capacity <= 0 {
		return nil, Unknown, Stats{}, fmt.Errorf("encode: Decide needs a capacity (pool %q is unbounded)", p.PoolList()[0].Name)
	}
	st := Stats{Scale: in.g}
	h := capacity / in.g
	s := in.positive()
	infeasible := func(why string) (*model.Plan, Status, Stats, error) {
		if in.exact {
			st.Reason = why
			return nil, Infeasible, st, nil
		}
		st.Reason = why + " for the conservative item model (" + in.why + "): no proof"
		return nil, Unknown, st, nil
	}
	if m := maxLive(s.items, seq(len(s.items))); m > h {
		return infeasible(fmt.Sprintf("max-live %d exceeds the capacity", m*in.g))
	}
	if f := floorHeight(s.items); f > h {
		return infeasible(fmt.Sprintf("a pinned or aligned buffer ends at %d, above the capacity", f*in.g))
	}
	if len(s.items) == 0 {
		return in.toPlan(s.full(nil)), Feasible, st, nil
	}
	// A large problem over the budget is declined before the first fit,
	// whose cost grows with the square of the number of buffers (the
	// race's other engines take such problems).
	if len(s.items) > firstFitMaxItems {
		if refused := domainGuard(s.items, h, opt); refused != "" {
			st.Reason = refused
			return nil, Unknown, st, nil
		}
	}
	// A first-fit packing that already fits answers at once.
	if !opt.NoFirstFit {
		if off := s.firstFit(ctx); off != nil && peakOf(s.items, off) <= h && checkItems(s.items, off, h) == nil {
			st.Reason = "first fit"
			return in.toPlan(s.full(off)), Feasible, st, nil
		}
	}
	e, inf, refused := newEncoder(ctx, s.items, h, opt)
	if inf {
		return infeasible("a buffer has no admissible offset below the capacity")
	}
	if refused != "" {
		st.Reason = refused
		return nil, Unknown, st, nil
	}
	r := e.solve(ctx, e.height(h))
	st.add(e.stats())
	switch r {
	case 1:
		off := e.offsets()
		if err := checkItems(s.items, off, h); err != nil {
			return nil, Unknown, st, err
		}
		return in.toPlan(s.full(off)), Feasible, st, nil
	case -1:
		return infeasible(fmt.Sprintf("unsatisfiable at %d units of %d bytes", h, in.g))
	}
	st.Reason = "stopped: " + context.Cause(ctx).Error()
	return nil, Unknown, st, nil
}
