package bnb

import (
	"context"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/optalloc/optalloc/internal/brute"
	"github.com/optalloc/optalloc/verify"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestGoesOn(t *testing.T) {
	for _, tc := range []struct {
		name          string
		refutes       int64
		own, windowed int64 // the search's own nodes and its window nodes
		every         bool
		wantGoOn      bool
	}{
		{"windows refuted nothing, cost much: start afresh (A's TWA)", 0, 6228, 1964, false, false},
		{"windows refuted nothing, cost an eighth: start afresh", 0, 8000, 1000, false, false},
		{"windows cost under an eighth: go on (I's TLR)", 0, 7875, 337, false, true},
		{"no windows yet: go on", 0, 300, 0, false, true},
		{"windows refuted a state: go on", 1, 6000, 6000, false, true},
		{"many refutations", 40, 1000, 4000, false, true},
		{"continueEvery (tests)", 0, 1000, 4000, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func(v bool) { continueEvery = v }(continueEvery)
			continueEvery = tc.every
			cs := &compSolver{searcher: []*searcher{{windowRefutes: tc.refutes, own: tc.own, windowWork: tc.windowed}}}
			assert.Equal(t, tc.wantGoOn, cs.goesOn(0))
		})
	}
}

// TestContinuedRoundsExact decides random small instances at, below and
// above their brute-force optimum with node limits of 1–4 looked at every
// node, with every order going on from where it paused (continueEvery), so
// that searches pause and go on many times within a decision, on one and
// two threads: the answers must be exact, and no paused search may outlive
// its decision.
func TestContinuedRoundsExact(t *testing.T) {
	defer func(v bool) { continueEvery = v }(continueEvery)
	continueEvery = true
	defer func(v int64) { checkEvery = v }(checkEvery)
	checkEvery = 1 // the tiny limits bite at every node
	rng := rand.New(rand.NewPCG(44, 9))
	ctx := context.Background()
	before := runtime.NumGoroutine()
	checked := 0
	var resumed int64
	for k := 0; k < 300; k++ {
		p := brute.Random(rng, 5+rng.IntN(5), brute.RandomOptions{MaxSize: 1 + rng.Int64N(24)})
		want, _ := brute.Optimum(p)
		if want <= 1 {
			continue
		}
		opt := Options{Threads: 1 + k%2, NodeLimit: 1 + rng.Int64N(4)}
		_, status, st, err := Decide(ctx, p, want-1, opt)
		require.NoError(t, err)
		require.Equal(t, Infeasible, status, "instance %d: %+v", k, p.Buffers)
		resumed += st.Resumed
		for _, c := range []int64{want, want + rng.Int64N(want)} {
			pl, status, st, err := Decide(ctx, p, c, opt)
			require.NoError(t, err)
			resumed += st.Resumed
			require.Equal(t, Feasible, status, "instance %d at %d: %+v", k, c, p.Buffers)
			require.Empty(t, verify.Check(p, pl))
			require.LessOrEqual(t, pl.Peak(p), c)
		}
		checked++
	}
	require.Greater(t, checked, 200)
	require.Greater(t, resumed, int64(1000), "searches must go on from where they paused")
	requireGoroutinesBack(t, before)
}

// TestContinuedAgreesWithRestarts: with the default rule (an order goes on
// once its windows refuted a state, else its paused search is stopped and
// it starts afresh; eager windows) and small node limits looked at every
// node, decisions on instances of 12–27 buffers agree with NoContinue's
// wherever both finish within 14 rounds.
func TestContinuedAgreesWithRestarts(t *testing.T) {
	defer eagerWindows()()
	defer func(v int64) { checkEvery = v }(checkEvery)
	checkEvery = 1
	rng := rand.New(rand.NewPCG(48, 13))
	before := runtime.NumGoroutine()
	agreed := 0
	for k := 0; k < 200; k++ {
		p := brute.Random(rng, 12+rng.IntN(16), brute.RandomOptions{MaxSize: 2 + rng.Int64N(12)})
		capacity := p.ComputeSweep().MaxLive + rng.Int64N(3)
		var statuses [2]Status
		for w, noContinue := range []bool{false, true} {
			opt := Options{Threads: 1 + k%2, NodeLimit: 2 + rng.Int64N(8), NoProbe: true, MaxRounds: 14, NoContinue: noContinue}
			pl, status, st, err := Decide(context.Background(), p, capacity, opt)
			require.NoError(t, err)
			statuses[w] = status
			if noContinue {
				require.Zero(t, st.Resumed)
			}
			if status == Feasible {
				require.Empty(t, verify.Check(p, pl), "instance %d", k)
				require.LessOrEqual(t, pl.Peak(p), capacity)
			}
		}
		if statuses[0] != Unknown && statuses[1] != Unknown {
			require.Equal(t, statuses[1], statuses[0], "instance %d at %d: %+v", k, capacity, p.Buffers)
			agreed++
		}
	}
	require.Greater(t, agreed, 150)
	requireGoroutinesBack(t, before)
}

// TestContinuedMinimiseExact: Minimise (many decisions, searchers kept
// across capacities) with every order going on reaches the brute-force
// optimum and proves it.
func TestContinuedMinimiseExact(t *testing.T) {
	defer func(v bool) { continueEvery = v }(continueEvery)
	continueEvery = true
	defer func(v int64) { checkEvery = v }(checkEvery)
	checkEvery = 1
	rng := rand.New(rand.NewPCG(45, 10))
	var resumed int64
	for k := 0; k < 150; k++ {
		p := brute.Random(rng, 4+rng.IntN(5), brute.RandomOptions{MaxSize: 1 + rng.Int64N(16), Align: 0.2})
		want, _ := brute.Optimum(p)
		best, lb, st, err := Minimise(context.Background(), p, nil, 0, Options{Threads: 1 + k%2, NodeLimit: 1 + rng.Int64N(3)}, nil)
		require.NoError(t, err)
		resumed += st.Resumed
		require.Empty(t, verify.Check(p, best))
		assert.Equal(t, want, best.Peak(p), "instance %d: %+v", k, p.Buffers)
		assert.Equal(t, want, lb, "instance %d", k)
	}
	require.Greater(t, resumed, int64(100), "searches must go on from where they paused")
}

// TestContinuedDeterministic: with one thread, pausing and going on gives
// the same plan and node counts run after run, and NoContinue (every order
// restarts) searches differently. MiniMalloc's E at 1048576: one of its
// components is decided by TWA in round 1, going on from where it paused
// in round 0 (its windows had refuted states there).
func TestContinuedDeterministic(t *testing.T) {
	p := loadMini(t, "E")
	before := runtime.NumGoroutine()
	run := func(o Options) Stats {
		pl, status, st, err := Decide(context.Background(), p, 1048576, o)
		require.NoError(t, err)
		require.Equal(t, Feasible, status)
		require.Empty(t, verify.Check(p, pl))
		return st
	}
	opt := Options{Threads: 1, NoProbe: true, MaxRounds: 4}
	st1, st2 := run(opt), run(opt)
	require.Equal(t, st1.Nodes, st2.Nodes)
	require.Equal(t, st1.WindowNodes, st2.WindowNodes)
	opt.NoContinue = true
	st3 := run(opt)
	require.Positive(t, st1.Resumed)
	require.Zero(t, st3.Resumed)
	require.NotEqual(t, st1.Nodes+st1.WindowNodes, st3.Nodes+st3.WindowNodes, "NoContinue must restart TWA")
	requireGoroutinesBack(t, before)
}

// TestContinuedEndPaused: decisions that end with orders paused (MaxRounds
// reached, Unknown) end them all, on one and two threads.
func TestContinuedEndPaused(t *testing.T) {
	defer func(v bool) { continueEvery = v }(continueEvery)
	continueEvery = true
	before := runtime.NumGoroutine()
	rng := rand.New(rand.NewPCG(47, 12))
	unknown := 0
	for k := 0; k < 10; k++ {
		p, _ := brute.PerfectPacking(rng, 40+rng.Int64N(40), 60+rng.Int64N(60), 60+rng.IntN(40))
		_, status, _, err := Decide(context.Background(), p, p.ComputeSweep().MaxLive, Options{Threads: 1 + k%2, NodeLimit: 256, NoProbe: true, MaxRounds: 2})
		require.NoError(t, err)
		require.NotEqual(t, Infeasible, status)
		if status == Unknown {
			unknown++
		}
	}
	require.Greater(t, unknown, 0, "some decision must end with its orders paused")
	requireGoroutinesBack(t, before)
}

// requireGoroutinesBack fails when more goroutines run than before (paused
// searches that outlived their decision); a search that ended may take a
// moment to be reaped, so it looks up to 100 times, 10 ms apart (polled
// here: testify's Eventually runs its condition on a goroutine of its own).
func requireGoroutinesBack(t *testing.T, before int) {
	t.Helper()
	n := runtime.NumGoroutine()
	for try := 0; try < 100 && n > before; try++ {
		time.Sleep(10 * time.Millisecond)
		n = runtime.NumGoroutine()
	}
	require.LessOrEqual(t, n, before, "paused searches outlived their decision")
}
