package solve

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/internal/brute"
	"github.com/optalloc/optalloc/verify"
)

// TestEarlyRaceBeforePortfolio: minimising with two threads and a time
// limit, the exact engines race before the heuristic portfolio
// (earlyRaceStage), and where they prove the optimum the portfolio never
// runs; with one thread, without a time limit, or deciding a capacity,
// the stage does not apply (a table of when it does). No wall time: the CPU clock of the shares
// stands still (the early race runs to its end) and the hour's limit is
// never reached.
func TestEarlyRaceBeforePortfolio(t *testing.T) {
	useFakeCPU(t)
	rng := rand.New(rand.NewPCG(44, 1))
	skipped := 0
	for k := range 60 {
		p := brute.Random(rng, 8+rng.IntN(8), brute.RandomOptions{MaxSize: 50})
		r, err := Solve(context.Background(), p, Options{Threads: 2, TimeLimit: time.Hour})
		require.NoError(t, err)
		require.Empty(t, verify.Check(p, r.Plan))
		require.Equal(t, Optimal, r.Status, "instance %d", k)
		if _, ran := r.Stats.PhaseMillis["heuristics"]; !ran {
			skipped++
			assert.NotEqual(t, "freelist", r.Method, "instance %d: the race's plan, not the first plan", k)
		}
	}
	t.Logf("the early race closed %d of 60 before the portfolio", skipped)
	assert.Greater(t, skipped, 5)

	p := brute.Random(rng, 12, brute.RandomOptions{MaxSize: 50})
	s := &solver{p: p, opt: Options{Method: "auto", Threads: 2}, res: &Result{}}
	limited, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	limited = cpuLimit(limited, time.Hour, 2)
	for _, c := range []struct {
		name string
		ctx  context.Context
		opt  Options
		want bool
	}{
		{"two threads, a limit, minimising", limited, Options{Method: "auto", Threads: 2}, true},
		{"one thread", limited, Options{Method: "auto", Threads: 1}, false},
		{"no time limit", context.Background(), Options{Method: "auto", Threads: 2}, false},
		{"a decision", limited, Options{Method: "auto", Threads: 2, Capacity: 1 << 20}, false},
		{"the portfolio alone", limited, Options{Method: "heuristic", Threads: 2}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			q, opt, err := normalise(p, c.opt)
			require.NoError(t, err)
			s.p, s.opt = q, opt
			assert.Equal(t, c.want, earlyRaceStage{}.applies(c.ctx, s))
		})
	}
}
