package solve

import (
	"context"
	"strings"
	"time"

	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/refine"
)

// The time-window refinement of large problems (package refine) in the
// pipeline.

// refineApplies reports whether the refinement takes part in this solve:
// methods auto and exact, problems of refine.MinBuffers buffers or more, not
// a fit test or a restriction, not switched off.
func (s *solver) refineApplies() bool {
	return !s.opt.NoRefine && !s.quick && !s.restricted && len(s.p.Buffers) >= refine.MinBuffers &&
		(s.opt.Method == "auto" || s.opt.Method == "exact")
}

// refineStart is what the refinement starts from: minimising, the best
// plan, down to the lower bound; deciding a capacity no plan fits yet, the
// lowest plan above it, down to the capacity. from is nil when there is
// nothing to refine.
func (s *solver) refineStart() (from *model.Plan, target int64) {
	from, target = s.res.Plan, s.res.LowerBound
	if c := s.p.PoolList()[0].Capacity; c > 0 {
		if s.res.Plan != nil || c < s.res.LowerBound {
			return nil, 0 // decided
		}
		from, target = s.overPlan, c
	}
	if from == nil || from.Peak(s.p) <= target {
		return nil, 0
	}
	return from, target
}

// runRefine lowers the best plan window by window before the race when no
// exact engine takes the problem on (when one does, the refinement races
// it: refineEngine): with all the time left, or half of it when a decision
// races the heuristic portfolio (racesPortfolio). On a graph of 100 000 ops
// (a chain with skips) the plan went from 10% above max-live to max-live.
func (s *solver) runRefine(ctx context.Context) error {
	from, target := s.refineStart()
	if s.racesPortfolio(s.p.PoolList()[0].Capacity) {
		var cancel context.CancelFunc
		ctx, cancel = withShare(ctx, 2, 1) // one thread (cpuclock.go)
		defer cancel()
	}
	t := time.Now()
	defer s.res.Stats.phase("refine", t)
	name := s.res.Method
	if s.res.Plan == nil {
		name = "refine"
	} else if !strings.HasSuffix(name, "+refine") {
		name += "+refine"
	}
	var offerErr error
	stacked := false
	st, err := s.refineWithStack(ctx, s.p, from, target, 1, func(pl *model.Plan, by string) {
		switch {
		case offerErr != nil:
		case by == "stack":
			stacked = true
			offerErr = s.offer(pl, "stack")
		case stacked:
			offerErr = s.offer(pl, "stack+refine")
		default:
			offerErr = s.offer(pl, name)
		}
	})
	s.res.Stats.engine("refine", st)
	if err != nil {
		return err
	}
	return offerErr
}

// refineEngine races the exact engines when one of them takes the problem
// on: before, it ran ahead of them with half the time, and on a
// 5 000-buffer transformer trace it spent 4.8 s there where the
// branch-and-bound proves the optimum in 1.5 s (6.7 s instead of 2.0 s in
// all). With one thread the engines take turns and it goes first, with at
// most a fifth of the time left.
func (s *solver) refineEngine(r *race) engine {
	run := func(ctx context.Context, p *model.Problem, from *model.Plan, target int64, on func(*model.Plan)) (any, error) {
		if s.opt.Threads == 1 {
			var cancel context.CancelFunc
			ctx, cancel = withShare(ctx, heuristicShare, 1)
			defer cancel()
		}
		// Racing, the stack's share is counted on the race's threads.
		return s.refineWithStack(ctx, p, from, target, s.parallelism(), func(pl *model.Plan, _ string) { on(pl) })
	}
	return engine{
		name: "refine",
		decide: func(ctx context.Context, p *model.Problem, c int64) (*model.Plan, outcome, any, error) {
			r.mu.Lock()
			from, _ := s.refineStart() // c is the pool's capacity, the target
			r.mu.Unlock()
			if from == nil {
				return nil, undecided, nil, nil
			}
			var best *model.Plan
			st, err := run(ctx, p, from, c, func(pl *model.Plan) { best = pl })
			if err != nil || best == nil {
				return nil, undecided, st, err
			}
			if best.Peak(p) <= c {
				return best, fits, st, nil
			}
			return best, undecided, st, nil // above c: offered as the best found
		},
		minimise: func(ctx context.Context, p *model.Problem, inc *model.Plan, lb int64, on func(*model.Plan)) (int64, any, error) {
			if inc == nil {
				return lb, nil, nil
			}
			st, err := run(ctx, p, inc, lb, on)
			return lb, st, err
		},
	}
}
