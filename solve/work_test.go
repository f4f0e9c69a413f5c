package solve

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/exact/bnb"
	"github.com/optalloc/optalloc/internal/brute"
	"github.com/optalloc/optalloc/verify"
)

// TestWorkBudgetIsDeterministic: with a work budget the plan depends on the
// input alone: the same under no time limit, a long one and a short-ish
// one (the clock's shares of the stages are gone), with any thread count,
// and from one run to the next, including problems whose search the budget
// cuts short (feasible, not optimal). Before Options.Work, a time limit
// shared the stages out by the clock (issue 42 item 7).
func TestWorkBudgetIsDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 7))
	cut := 0
	for k := range 6 {
		p := brute.Random(rng, 20+rng.IntN(20), brute.RandomOptions{MaxSize: 64})
		for i := range p.Buffers {
			if rng.IntN(3) == 0 {
				p.Buffers[i].Align = 8 << rng.IntN(3)
			}
		}
		var first *Result
		for _, o := range []Options{
			{Work: 2000},
			{Work: 2000, TimeLimit: time.Hour, Threads: 4},
			{Work: 2000, TimeLimit: 30 * time.Second, Threads: 2},
		} {
			r, err := Solve(context.Background(), p, o)
			require.NoError(t, err)
			require.NotNil(t, r.Plan)
			require.Empty(t, verify.Check(p, r.Plan))
			assert.False(t, r.Stats.WorkCut)
			if first == nil {
				first = r
				if r.Status != Optimal {
					cut++
				}
				continue
			}
			assert.Equal(t, first.Plan.Placements, r.Plan.Placements, "instance %d, %+v", k, o)
			assert.Equal(t, first.LowerBound, r.LowerBound, "instance %d", k)
			assert.Equal(t, first.Status, r.Status, "instance %d", k)
			assert.Equal(t, first.Method, r.Method, "instance %d", k)
		}
	}
	t.Logf("%d of 6 instances left open by the budget", cut)
}

// TestWorkCutIsReported: a work-budgeted solve its safety time limit ends
// says so (an already-cancelled context stands in for the clock: no test
// waits on wall time).
func TestWorkCutIsReported(t *testing.T) {
	ctx, cancel := workContext(context.Background(), 0)
	cancel()
	assert.False(t, workCut(ctx), "cancelled by the caller, not by the limit")
	cctx, cancelCause := context.WithCancelCause(context.Background())
	cancelCause(errWorkCut)
	assert.True(t, workCut(cctx))
	o := workOptions(Options{Work: 10, Threads: 8, BnB: bnb.Options{MaxNodes: 1 << 40}})
	assert.Equal(t, 1, o.Threads)
	assert.True(t, o.NoSAT && o.NoCoarse && o.NoSqueaky)
	assert.Equal(t, int64(10), o.BnB.MaxNodes)
}
