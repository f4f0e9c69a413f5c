package solve

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/heuristics"
	"github.com/optalloc/optalloc/internal/brute"
	"github.com/optalloc/optalloc/verify"
)

// TestLongChainPlansBeforeExactChecks (issue 36, D2): on a chain of
// 100 000 aligned ops the check whether SAT takes the problem ran for a
// minute before any planner, never looking at the clock: a time limit
// gave no plan, and a cancel (SIGTERM) took effect a minute later. Now the
// first plan comes before any exact check, and the check stops with the
// context. Without wall time (issue 44): the context is cancelled when the
// first plan is reported (where a limit or a SIGTERM might come), with and
// without a time limit; the plan is kept and no engine has run (a stage
// that ignored the context would show in the statistics; one that hung
// would hit the test binary's timeout).
func TestLongChainPlansBeforeExactChecks(t *testing.T) {
	p := brute.AlignedChain(100_000)
	for _, tc := range []struct {
		name  string
		limit time.Duration
	}{
		{"a time limit", time.Hour},
		{"no time limit", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			res, err := Solve(ctx, p, Options{TimeLimit: tc.limit, Progress: func(Progress) { cancel() }})
			require.NoError(t, err)
			require.NotNil(t, res.Plan, res.Reason)
			assert.Empty(t, verify.Check(p, res.Plan))
			assert.Contains(t, res.Stats.PhaseMillis, "first_plan")
			assert.Equal(t, heuristics.FirstPlanner(p), res.Method, "nothing after the first plan gave a plan")
			for name := range res.Stats.Engines {
				assert.Contains(t, []string{"bnb_declined", "sat_declined"}, name, "no engine ran after the cancel")
			}
		})
	}
}
