package solve

import (
	"context"
	"fmt"
	"time"

	"github.com/optalloc/optalloc/heuristics"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/refine"
)

// The peak stack (refine.Stack) in the pipeline: it runs where the
// refinement runs, after it when it leaves a gap, and the refinement goes
// on from its plan when that is lower.

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

// refineWithStack runs the refinement on p from plan from (above target);
// when it ends above target with time left, the peak stack (unless
// switched off), and when that gives a lower plan, the refinement again
// from it. It calls on with each lower plan and who made it ("refine" or
// "stack"), and returns the refinement's statistics, with the stack's under
// "stack" and the second refinement's under "after_stack". The stack comes
// second because it costs a placement of the whole problem per window: on a
// chain of 100 000 ops, which the refinement alone brings to max-live in
// about a second, running it first added 1.9 s.
func (s *solver) refineWithStack(ctx context.Context, p *model.Problem, from *model.Plan, target int64, on func(*model.Plan, string)) (map[string]any, error) {
	best, bestPeak := from, from.Peak(p)
	keep := func(by string) func(*model.Plan) {
		return func(pl *model.Plan) {
			if pk := pl.Peak(p); pk < bestPeak {
				best, bestPeak = pl, pk
			}
			on(pl, by)
		}
	}
	st, err := refine.Refine(ctx, p, from, target, s.opt.BnB, refine.DefaultBudget, keep("refine"))
	if err != nil {
		return st, fmt.Errorf("refine: %w", err)
	}
	if s.opt.NoStack || bestPeak <= target || ctx.Err() != nil || refine.StackDeclines(p) != "" {
		return st, nil
	}
	sctx := ctx
	if dl, ok := ctx.Deadline(); ok {
		var cancel context.CancelFunc
		sctx, cancel = context.WithTimeout(ctx, time.Until(dl)/stackShare)
		defer cancel()
	}
	before := bestPeak
	stk, err := refine.Stack(sctx, p, target, bestPeak, s.opt.BnB, refine.Work, stackPlace, keep("stack"))
	st["stack"] = stk
	if err != nil {
		return st, fmt.Errorf("stack: %w", err)
	}
	if bestPeak < before && bestPeak > target && ctx.Err() == nil {
		again, err := refine.Refine(ctx, p, best, target, s.opt.BnB, refine.DefaultBudget, keep("refine"))
		st["after_stack"] = again
		if err != nil {
			return st, fmt.Errorf("refine: %w", err)
		}
	}
	return st, nil
}
