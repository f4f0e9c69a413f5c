package solve

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/bounds"
	"github.com/optalloc/optalloc/internal/brute"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/verify"
)

// TestSolveReportsAlignBound: on an aligned instance Solve reports the
// alignment bound as the lower bound and optimal when the plan reaches it,
// even without the exact engines; a capacity below the bound is refuted by
// it; Prove starts from it with method "align".
func TestSolveReportsAlignBound(t *testing.T) {
	// Three 65-byte buffers aligned to 64 live together on [1, 3), with a
	// fourth unaligned one before and after: max-live 195, optimum 321.
	p := &model.Problem{Name: "aligned", Buffers: []model.Buffer{
		{ID: "x", Start: 0, End: 2, Size: 65, Align: 64},
		{ID: "y", Start: 1, End: 3, Size: 65, Align: 64},
		{ID: "z", Start: 1, End: 4, Size: 65, Align: 64},
		{ID: "u", Start: 3, End: 5, Size: 100},
	}}
	require.Equal(t, int64(195), p.ComputeSweep().MaxLive)
	want, _ := brute.Optimum(p)
	require.Equal(t, int64(321), want)
	for _, m := range []string{"heuristic", "auto", "greedy-size"} {
		r, err := Solve(context.Background(), p, Options{Method: m, Threads: 1})
		require.NoError(t, err, m)
		require.NotNil(t, r.Plan, m)
		require.Empty(t, verify.Check(p, r.Plan), m)
		assert.Equal(t, int64(321), r.LowerBound, m)
		assert.Equal(t, int64(321), r.Peak, m)
		assert.Equal(t, Optimal, r.Status, m)
		assert.Zero(t, r.Gap(), m)
	}
	r, err := Solve(context.Background(), p, Options{Capacity: 320, Threads: 1})
	require.NoError(t, err)
	assert.Equal(t, Infeasible, r.Status)
	assert.Nil(t, r.Plan)
	assert.Equal(t, "the alignment bound 321 exceeds the capacity 320", r.Reason)

	b, err := ProveBound(context.Background(), p, Options{NoBnB: true, NoSAT: true})
	require.NoError(t, err)
	assert.Equal(t, int64(321), b.LowerBound)
	assert.Equal(t, "align", b.Method)
	assert.Contains(t, b.Detail, "aligned to multiples of 64")
}

// TestWindowEngineRaisesTheRace: the race's window engine raises the race's
// lower bound, never above the brute-force optimum, and above the
// alignment bound on some random problems; deciding, it refutes a
// capacity below what it raised and never the optimum.
func TestWindowEngineRaisesTheRace(t *testing.T) {
	raised := 0
	eachFeasibleTimed(12, 4, 200, func(k int, p *model.Problem, opt int64) {
		s := &solver{p: p, opt: Options{Threads: 2, Seed: 1, Method: "auto"}}
		s.res = s.newResult()
		ctx, cancel := context.WithCancel(context.Background())
		start := bounds.Align(p).LowerBound
		r := &race{s: s, cancel: cancel, lb: start}
		lb, _, err := s.windowEngine(r).minimise(ctx, p, nil, start, nil)
		cancel()
		require.NoError(t, err)
		require.Equal(t, start, lb, "the engine reports through the race")
		require.LessOrEqual(t, r.lb, opt, "instance %d: %+v", k, p.Buffers)
		if r.lb > start {
			raised++
			// Deciding, the engine refutes a capacity below what it
			// raised, and names the proof.
			c := r.lb - 1
			d := &race{s: s, cancel: func() {}, lb: start}
			plan, answer, _, err := s.windowEngine(d).decide(context.Background(), p, c)
			require.NoError(t, err)
			require.Nil(t, plan)
			require.Equal(t, refuted, answer, "instance %d at %d", k, c)
			require.Greater(t, d.lb, c)
			require.Equal(t, "the window bound", d.lbBy)
		}
		// It never refutes the optimum.
		d := &race{s: s, cancel: func() {}, lb: start}
		_, answer, _, err := s.windowEngine(d).decide(context.Background(), p, opt)
		require.NoError(t, err)
		require.Equal(t, undecided, answer, "instance %d", k)
	})
	assert.Greater(t, raised, 0)
}

// eachFeasibleTimed draws random problems of 3–7 buffers (brute.Timed)
// from the seeds and calls f with each that has a plan (draw k) and its
// brute-force optimum.
func eachFeasibleTimed(seed1, seed2 uint64, draws int, f func(k int, p *model.Problem, opt int64)) {
	rng := rand.New(rand.NewPCG(seed1, seed2))
	for k := 0; k < draws; k++ {
		p := brute.Timed(rng, 3+rng.IntN(5))
		if opt, _ := brute.Optimum(p); opt >= 0 {
			f(k, p, opt)
		}
	}
}
