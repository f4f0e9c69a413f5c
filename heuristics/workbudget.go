package heuristics

import (
	"context"
	"errors"
	"time"

	"github.com/optalloc/optalloc/internal/measure"
)

// workTick is how often a work budget looks at the process's CPU time once
// the wall deadline has passed.
const workTick = 20 * time.Millisecond

// workBudget returns a context that ends when ctx is cancelled, or, when
// ctx's deadline passes, once the process has spent as much CPU time since
// now as there was wall time left before that deadline: a share of a time
// limit counted in work, not in wall time. On an idle machine the two agree
// (the context ends at the deadline, within a tick); on a loaded one the
// work it was given is done later instead of being cut short. Without a
// deadline, with none left, or where the system does not tell the CPU time,
// ctx is returned as it is. stop releases the watcher.
func workBudget(ctx context.Context) (_ context.Context, stop context.CancelFunc) {
	dl, ok := ctx.Deadline()
	if !ok || measure.CPUTime() == 0 {
		return ctx, func() {}
	}
	budget := time.Until(dl)
	if budget <= 0 {
		return ctx, func() {}
	}
	t := time.NewTicker(workTick)
	wctx, cancel := watchWork(ctx, budget, measure.CPUTime, t.C)
	return wctx, func() { cancel(); t.Stop() }
}

// watchWork is workBudget's watcher with its clock and its ticks given:
// the returned context ends when ctx is cancelled (not by its deadline),
// or, after ctx's deadline, at the first tick at which clock() has grown
// by budget since the call.
func watchWork(ctx context.Context, budget time.Duration, clock func() time.Duration, tick <-chan time.Time) (context.Context, context.CancelFunc) {
	c0 := clock()
	wctx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	go func() {
		select {
		case <-wctx.Done():
			return
		case <-ctx.Done():
		}
		if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			cancel(ctx.Err())
			return
		}
		for clock()-c0 < budget {
			select {
			case <-wctx.Done():
				return
			case <-tick:
			}
		}
		cancel(context.DeadlineExceeded)
	}()
	return wctx, func() { cancel(context.Canceled) }
}
