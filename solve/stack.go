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
// stackPlanners and returns the lowest plan; it stops at a plan at q's
// max-live, which nothing lowers (PanGu-α 2.6B: firstfit-peak's plan of
// the second window, a quarter of the stack's CPU saved).
func stackPlace(ctx context.Context, q *model.Problem) (*model.Plan, error) {
	var best *model.Plan
	var bestPeak int64
	floor := q.ComputeSweep().MaxLive
	for _, name := range stackPlanners {
		if best != nil && bestPeak <= floor {
			break
		}
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

// earlyStackShare: the stack run before the heuristics (earlyStackStage)
// takes at most 1/earlyStackShare of the time left, in CPU time.
const earlyStackShare = 10

// earlyStackStage runs the peak stack right after the first plan and the
// bound, before the heuristics, where the refinement's first window at the
// first plan's peak is too dense to search (refine.TooDense): there the
// refinement cannot lower the peak, and the stack, which costs a placement
// of the whole problem per window, is the stage that can close the gap.
// PanGu-α 2.6B: optimal after 0.35 s of the stack, where it used to run
// after the portfolio (1.9 s on two cores) and, on a loaded machine, never
// ran before a 10 s limit ended (issue 44 item 1). The stack's plans depend
// on the problem alone (not on the plan it starts from), so when it ran
// through every window it is not run again after the refinement
// (solver.stackRan).
type earlyStackStage struct{}

func (earlyStackStage) applies(ctx context.Context, s *solver) bool {
	if s.opt.NoStack || s.stackRan || !s.refineApplies() || ctx.Err() != nil || refine.StackDeclines(s.p) != "" {
		return false
	}
	from, _ := s.refineStart()
	return from != nil && refine.TooDense(s.p, from, refine.DefaultBudget)
}

func (earlyStackStage) run(ctx context.Context, s *solver) error {
	t := time.Now()
	defer s.res.Stats.phase("stack", t)
	from, target := s.refineStart()
	sctx, cancel := withShare(ctx, earlyStackShare, 1) // one thread, in CPU time
	defer cancel()
	var offerErr error
	st, err := refine.Stack(sctx, s.p, target, from.Peak(s.p), s.opt.BnB, refine.Work, stackPlace, func(pl *model.Plan) {
		if offerErr == nil {
			offerErr = s.offer(pl, "stack")
		}
	})
	s.res.Stats.engine("stack", st)
	if err != nil {
		return fmt.Errorf("stack: %w", err)
	}
	s.stackRan = sctx.Err() == nil
	return offerErr
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
func (s *solver) refineWithStack(ctx context.Context, p *model.Problem, from *model.Plan, target int64, par int, on func(*model.Plan, string)) (map[string]any, error) {
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
	if s.opt.NoStack || s.stackRan || bestPeak <= target || ctx.Err() != nil || refine.StackDeclines(p) != "" {
		return st, nil
	}
	sctx, cancel := withShare(ctx, stackShare, par) // in CPU time (cpuclock.go)
	defer cancel()
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
