package solve

import (
	"context"
	"errors"
	"time"

	"github.com/optalloc/optalloc/refine"
)

// The work budget (Options.Work): a solve whose answer depends on the
// input alone, not on the machine's speed or load.
//
// A time limit is shared out between the stages by the clock (the bound
// gets half of what is left, the portfolio a share, the restrictions and
// the refinement theirs, the engines race), so two runs of the same input
// may stop different searches at different points and return different
// plans, and a loaded CI runner can flip a regression gate's verdict. With
// a work budget the solve instead:
//
//   - runs on one thread (the engines take turns, no race);
//   - gives no stage a share of the clock: every stage runs to its end,
//     bounded by its own work (the portfolio's planners, the refinement's
//     and the peak stack's windows by their node budgets, without the
//     stack's per-window time cap);
//   - bounds the branch-and-bound by Work nodes (bnb.Options.MaxNodes);
//   - leaves out the engines and passes that only a clock bounds: SAT
//     (time slices), the coarse restrictions (time shares, and never run
//     on one thread anyway) and the squeaky-wheel improvement.
//
// The time limit stays as a safety net: when it ends the solve first, the
// result is the best so far, as usual, and Stats.WorkCut says so (the
// answer may then differ from one machine to the next). Multi-pool
// problems split their pools with fit tests bounded by time; their answer
// is deterministic only when those tests finish.

// DefaultWork is the work budget `optalloc check` uses by default and
// `plan --work` suggests: branch-and-bound nodes.
const DefaultWork = 1_000_000

// errWorkCut is the cause of a work-budgeted solve's context when its
// time limit (the safety net) ended it.
var errWorkCut = errors.New("the time limit ended a work-budgeted solve")

// workOptions returns opt set up for a work budget (see above).
func workOptions(opt Options) Options {
	opt.Threads = 1
	opt.NoSAT, opt.NoCoarse, opt.NoSqueaky = true, true, true
	if opt.BnB.MaxNodes <= 0 || opt.BnB.MaxNodes > opt.Work {
		opt.BnB.MaxNodes = opt.Work
	}
	return opt
}

// workContext is ctx for a work-budgeted solve: no deadline (the stages
// share no clock) but cancelled with errWorkCut after limit, when > 0, and
// marked for refine (refine.Untimed).
func workContext(ctx context.Context, limit time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(refine.Untimed(ctx))
	stop := func() bool { return true }
	if limit > 0 {
		t := time.AfterFunc(limit, func() { cancel(errWorkCut) })
		stop = t.Stop
	}
	return ctx, func() { stop(); cancel(nil) }
}

// workCut reports whether ctx (from workContext) was ended by its time
// limit.
func workCut(ctx context.Context) bool { return errors.Is(context.Cause(ctx), errWorkCut) }
