package solve

import (
	"context"
	"time"

	"github.com/optalloc/optalloc/heuristics"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/refine"
)

// The peak stack (refine.Stack) in the pipeline: it runs where the
// refinement runs, just before it, and the refinement goes on from its plan
// when that is lower.

// stackShare: the stack takes at most 1/stackShare of the time left.
const stackShare = 4

// stackPlanners place the buffers around the pinned stack; the lowest plan
// is kept (ties to the first).
var stackPlanners = []string{"firstfit-peak", "greedy-textbook"}

// stackPlace plans q, the problem with the stack pinned, with each of
// stackPlanners and returns the lowest plan.
func stackPlace(ctx context.Context, q *model.Problem) (*model.Plan, error) {
	var best *model.Plan
	var bestPeak int64
	for _, name := range stackPlanners {
		pl, ok := heuristics.ByName(name)
		if !ok {
			continue
		}
		plan, err := pl.Plan(ctx, q)
		if err != nil {
			if ctx.Err() != nil {
				return best, nil
			}
			return nil, err
		}
		if pk := plan.Peak(q); best == nil || pk < bestPeak {
			best, bestPeak = plan, pk
		}
	}
	return best, nil
}

// stackFirst runs the peak stack on p from plan from (above target) unless
// switched off, calls on with each lower plan, and returns the plan the
// refinement should start from (the stack's lowest when it is lower than
// from) and the stack's statistics (nil when it did not run).
func (s *solver) stackFirst(ctx context.Context, p *model.Problem, from *model.Plan, target int64, on func(*model.Plan)) (*model.Plan, map[string]any, error) {
	if s.opt.NoStack || from == nil {
		return from, nil, nil
	}
	if refine.StackDeclines(p) != "" {
		return from, nil, nil // nothing to say: most problems it declines are not plain
	}
	if dl, ok := ctx.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Until(dl)/stackShare)
		defer cancel()
	}
	best := from
	st, err := refine.Stack(ctx, p, target, from.Peak(p), s.opt.BnB, refine.Work, stackPlace, func(pl *model.Plan) {
		best = pl
		on(pl)
	})
	return best, st, err
}
