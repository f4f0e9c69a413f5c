package solve

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/optalloc/optalloc/internal/measure"
)

// Shares of the time limit counted in CPU time (issue 44 item 1).
//
// The stages share the time limit out (the portfolio a fifth of what is
// left, the peak stack a quarter, the restrictions a third, ...). Counted
// on the wall clock, a loaded machine gave each stage less CPU than an idle
// one, so a stage that runs late (PanGu-α 2.6B's peak stack) got none and
// the answer was worse, not just later. The shares are instead counted on
// a CPU clock: the process's CPU time (user and system, getrusage) spread
// over the threads the stage keeps busy. On an idle machine that clock
// runs with the wall clock and nothing changes; under load it runs slower,
// every stage gets the same CPU it gets on an idle machine, and the time
// limit itself (the wall clock, the caller's contract) cuts the solve
// where the idle run would have been at that much CPU: the same answer,
// later.
//
// Why the process's CPU time and not the work units of Options.Work or a
// thread's CPU time: only the branch-and-bound and the refinement count
// work (nodes); the portfolio's planners, SAT and the placements around
// the stack do not, and counting it in each would touch every package.
// A thread's CPU time means nothing in Go (a goroutine moves between
// threads), and the stages of the pipeline run one after another, so the
// process's CPU time during a stage is that stage's (with the garbage
// collector it causes). Where stages race (the exact race), each engine's
// share is counted on the whole race's CPU, spread over its threads, as
// the wall clock counted it before. Other work in the same process (a
// library caller's own goroutines) is counted too.

// cpuKey is the context key of a cpuBudget.
type cpuKey struct{}

// cpuBudget is a share of the time counted in CPU time: it ends when the
// process's CPU time reaches end; the time it leaves is (end − now) / par.
type cpuBudget struct {
	end time.Duration // process CPU time at which the share ends
	par time.Duration // the threads the share is spread over
	// wall is ctx's deadline when the share began (zero: none): a wall
	// deadline set inside the share (an earlier one) takes over (timeLeft).
	wall time.Time
}

// errCPUShare is the cause of a context ended by its CPU share.
var errCPUShare = errors.New("the stage's share of the CPU time ran out")

// fakeCPU, when set (tests), is the CPU clock instead of the process's.
var fakeCPU atomic.Pointer[func() time.Duration]

// cpuNow is the process's CPU time so far (user and system), or the fake
// clock of a test.
func cpuNow() time.Duration {
	if f := fakeCPU.Load(); f != nil {
		return (*f)()
	}
	return processCPU()
}

// wallStart stands in for the process's start where no CPU clock is read.
var wallStart = time.Now()

// processCPU is the process's CPU time so far (user and system); where the
// system does not tell it, the wall time since the program started times
// the cores: shares are then counted on the wall clock, as before.
func processCPU() time.Duration {
	if c := measure.CPUTime(); c > 0 {
		return c
	}
	return time.Since(wallStart) * cpuRate()
}

// cpuRate is the most CPU time the process can use per second of wall time
// (its cores): a share's end is checked no sooner than it could come.
func cpuRate() time.Duration { return time.Duration(max(1, runtime.GOMAXPROCS(0))) }

// parallelism is the number of threads the solve keeps busy: its Threads,
// at most the cores.
func (s *solver) parallelism() int {
	return max(1, min(s.opt.Threads, runtime.GOMAXPROCS(0)))
}

// timeLeft is the time left before ctx ends, as the stages share it out: the
// rest of ctx's CPU share (withCPU) when it has one, else the wall time to
// its deadline; ok is false when neither bounds ctx.
func timeLeft(ctx context.Context) (d time.Duration, ok bool) {
	dl, hasDeadline := ctx.Deadline()
	if b, has := ctx.Value(cpuKey{}).(cpuBudget); has && (!hasDeadline || b.wall.Equal(dl)) {
		return max(0, (b.end-cpuNow())/b.par), true
	}
	if hasDeadline {
		return max(0, time.Until(dl)), true
	}
	return 0, false
}

// shareOf is 1/n of the time left before ctx ends (timeLeft), and whether any
// is counted.
func shareOf(ctx context.Context, n int) (time.Duration, bool) {
	d, ok := timeLeft(ctx)
	return d / time.Duration(n), ok
}

// cpuLimit marks ctx, whose deadline is the solve's time limit d, so that
// its shares (timeLeft) are counted on the CPU clock over par threads from
// now. It does not end ctx: the wall deadline, which cannot come later
// (par is at most the cores), does.
func cpuLimit(ctx context.Context, d time.Duration, par int) context.Context {
	b := cpuBudget{par: time.Duration(max(1, par))}
	b.end = cpuNow() + d*b.par
	b.wall, _ = ctx.Deadline()
	return context.WithValue(ctx, cpuKey{}, b)
}

// withCPU returns ctx ended (cause errCPUShare) once the process has used d
// of CPU time per thread of par from now (d × par in all), or when ctx
// ends. Its shares (timeLeft) are counted from what remains of d.
func withCPU(ctx context.Context, d time.Duration, par int) (context.Context, context.CancelFunc) {
	b := cpuBudget{par: time.Duration(max(1, par))}
	b.end = cpuNow() + max(0, d)*b.par
	b.wall, _ = ctx.Deadline()
	ctx, cancel := context.WithCancelCause(context.WithValue(ctx, cpuKey{}, b))
	var mu sync.Mutex
	var t *time.Timer
	done := false
	var check func()
	check = func() {
		rest := b.end - cpuNow()
		mu.Lock()
		defer mu.Unlock()
		if done {
			return
		}
		if rest <= 0 {
			done = true
			cancel(errCPUShare)
			return
		}
		// The share cannot end sooner than the process can use rest.
		t = time.AfterFunc(max(rest/cpuRate(), time.Millisecond), check)
	}
	check()
	return ctx, func() {
		mu.Lock()
		done = true
		if t != nil {
			t.Stop()
		}
		mu.Unlock()
		cancel(nil)
	}
}

// withShare bounds ctx to 1/n of the time left (timeLeft), counted in CPU time
// over par threads; unbounded ctx stays so (a cancel of its own).
func withShare(ctx context.Context, n, par int) (context.Context, context.CancelFunc) {
	d, ok := shareOf(ctx, n)
	if !ok {
		return context.WithCancel(ctx)
	}
	return withCPU(ctx, d, par)
}

// cpuWait waits until the process has used d of CPU time per thread of par
// from now, or ctx ends; it reports whether the wait ran out (a race's
// delays: a head start in CPU time, not in wall time).
func cpuWait(ctx context.Context, d time.Duration, par int, early <-chan struct{}) bool {
	wctx, cancel := withCPU(ctx, d, par)
	defer cancel()
	select {
	case <-wctx.Done():
		return ctx.Err() == nil
	case <-early:
		return true
	}
}
