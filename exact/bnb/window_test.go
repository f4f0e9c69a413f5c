package bnb

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/optalloc/optalloc/internal/brute"
	"github.com/optalloc/optalloc/verify"
	"github.com/stretchr/testify/require"
)

// eagerWindows makes window refutation run at every node after its first
// child, over short windows, so that small instances exercise it; the
// returned function restores the defaults.
func eagerWindows() func() {
	after, lengths, minimum, capped := windowAfter, windowLengths, windowMinimum, windowCap
	windowAfter, windowLengths, windowMinimum, windowCap = 0, [...]int32{2, 4, 8}, 1, 0
	return func() { windowAfter, windowLengths, windowMinimum, windowCap = after, lengths, minimum, capped }
}

// TestWindowsAgreeWithout decides random instances of 12–31 buffers at
// capacities from max-live up, with eager windows and without windows:
// where both searches finish, the answers must agree, and every plan must
// verify.
func TestWindowsAgreeWithout(t *testing.T) {
	defer eagerWindows()()
	rng := rand.New(rand.NewPCG(41, 42))
	refuted := int64(0)
	agreed := 0
	for k := 0; k < 400; k++ {
		ro := brute.RandomOptions{MaxSize: 2 + rng.Int64N(12)}
		if k%4 == 1 {
			ro.Align = 0.3
		}
		if k%5 == 2 {
			ro.Pin = 0.1
		}
		p := brute.Random(rng, 12+rng.IntN(20), ro)
		capacity := p.ComputeSweep().MaxLive + rng.Int64N(3)
		var statuses [2]Status
		for w, opt := range []Options{{Threads: 1}, {Threads: 1, NoWindows: true}} {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			pl, status, st, err := Decide(ctx, p, capacity, opt)
			cancel()
			require.NoError(t, err)
			statuses[w] = status
			if status == Feasible {
				require.Empty(t, verify.Check(p, pl), "instance %d", k)
				require.LessOrEqual(t, pl.Peak(p), capacity)
			}
			if w == 0 {
				refuted += st.Prunes["window"]
			}
		}
		if statuses[0] != Unknown && statuses[1] != Unknown {
			require.Equal(t, statuses[1], statuses[0], "instance %d at %d: %+v", k, capacity, p.Buffers)
			agreed++
		}
	}
	require.Greater(t, refuted, int64(100), "the windows must actually prune here")
	require.Greater(t, agreed, 300)
}
