package solve

import (
	"context"
	"time"
)

// The time kept after the stages on large problems (issue 44, item 1).
//
// What follows the last stage runs on one thread and grows with the
// problem: the result's figures and the caller writing the plan out (the
// CLI's CSV writer: 0.37 s of CPU on 1 000 000 buffers). The check of the
// last plan is inside its stage (the portfolio's, or solver.offer's). On
// a loaded machine that CPU takes longer on the wall clock, and the stages
// themselves ran up to the deadline: `plan --time-limit 10s --threads 1`
// on the million skip connections ended after 11.2–11.9 s at load 5–7 on
// two cores (10.3–10.7 s with the reserve, against 10.8–12.4 s without, two
// runs each of both million-buffer traces). So from finishFrom buffers on,
// every stage ends that long before the deadline, stretched by the rate at
// which the machine has lent the solve CPU so far.

// finishPerBuffer is the CPU time per buffer kept for what follows the
// stages (the writing above). At 0.5 µs the scale runs at an idle machine
// ended 0.4–0.85 s early (2 000 000 skip connections: 3.87% against 3.28%
// with the time up to the deadline).
const finishPerBuffer = 300 * time.Nanosecond

// finishFrom is the number of buffers from which the time is kept (below
// it the finish costs less than 30 ms).
const finishFrom = 100_000

// maxSlowdown caps the stretch of the reserve under load.
const maxSlowdown = 10

// finishReserve is the wall time kept before the deadline for n buffers,
// when the solve has used cpu over wall since it began.
func finishReserve(n int, wall, cpu time.Duration) time.Duration {
	if n < finishFrom {
		return 0
	}
	slow := 1.0
	if wall >= minStartWall && cpu > 0 {
		slow = min(max(float64(wall)/float64(cpu), 1), maxSlowdown)
	}
	return time.Duration(float64(n) * float64(finishPerBuffer) * slow)
}

// stageContext is ctx with its deadline moved earlier by finishReserve
// (measured now; never later than an earlier stage's), and its share of
// CPU time (cpuclock.go) shortened by the reserve's CPU time, so that the
// stage's shares stay counted in CPU time.
func (s *solver) stageContext(ctx context.Context) (context.Context, context.CancelFunc) {
	dl, ok := ctx.Deadline()
	n := len(s.p.Buffers)
	r := finishReserve(n, time.Since(s.start), cpuNow()-s.startCPU)
	if !ok || r == 0 {
		return ctx, func() {}
	}
	end := dl.Add(-r)
	if !s.finishBy.IsZero() && s.finishBy.Before(end) {
		// A reserve measured anew must not open time for a stage after
		// one ended at its own (the refinement then began on a million
		// buffers and ran 2 s past the limit).
		end = s.finishBy
	}
	s.finishBy = end
	if b, has := ctx.Value(cpuKey{}).(cpuBudget); has && b.wall.Equal(dl) {
		b.end -= time.Duration(n) * finishPerBuffer * b.par
		b.wall = end
		ctx = context.WithValue(ctx, cpuKey{}, b)
	}
	return context.WithDeadline(ctx, end)
}
