package solve

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/internal/brute"
	"github.com/optalloc/optalloc/verify"
)

// TestLongChainPlansBeforeExactChecks (issue 36, D2): on a chain of
// 100 000 aligned ops the check whether SAT takes the problem ran for a
// minute before any planner, never looking at the clock: a time limit
// gave no plan, and a cancel (SIGTERM) took effect a minute later. Now the
// first plan comes before any exact check, and the check stops with the
// context: a time limit or a cancel returns a plan. The bound on the wall
// time is generous (the solve takes under a second); it only tells a
// stage that ignores the context from one that does not.
func TestLongChainPlansBeforeExactChecks(t *testing.T) {
	p := brute.AlignedChain(100_000)
	for _, tc := range []struct {
		name     string
		limit    time.Duration
		cancelIn time.Duration
	}{
		{"time limit", time.Second, 0},
		{"cancelled", 0, 300 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.cancelIn > 0 {
				time.AfterFunc(tc.cancelIn, cancel)
			}
			done := make(chan struct{})
			var res *Result
			var err error
			go func() {
				defer close(done)
				res, err = Solve(ctx, p, Options{TimeLimit: tc.limit})
			}()
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				t.Fatal("the solve ignored its context for 30 s")
			}
			require.NoError(t, err)
			require.NotNil(t, res.Plan, res.Reason)
			assert.Empty(t, verify.Check(p, res.Plan))
			assert.Contains(t, res.Stats.PhaseMillis, "first_plan")
		})
	}
}
