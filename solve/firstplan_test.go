package solve

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/heuristics"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/verify"
)

// TestHugeFirstPlanIsTheDecisiveSweep (issue 44, item 1): on more than
// 200 000 buffers the solve's first plan is the sweep that decides most
// (the sweeps before the free list), so that a solve cut right after its
// first plan — a loaded machine whose limit lets one planner end — holds
// the sweep's plan, not the free list's higher one. The solve is cancelled
// at its first report (no wall time).
func TestHugeFirstPlanIsTheDecisiveSweep(t *testing.T) {
	for _, tc := range []struct {
		name  string
		life  int
		sweep string
		lower bool // the sweep's plan is lower than the free list's here
	}{
		{"dense", 40000, "sweep-classes", true},
		{"sparse", 50, "sweep-peak", false}, // the free list's is 6% lower here: the portfolio runs it after
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &model.Problem{Name: "slide-" + tc.name}
			for i := range 200_001 {
				p.Buffers = append(p.Buffers, model.Buffer{ID: fmt.Sprint(i), Start: int64(i), End: int64(i + 1 + (i*7919)%tc.life), Size: int64(64 + (i*104729)%65536)})
			}
			require.Equal(t, tc.sweep, heuristics.FirstPlanner(p))
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			res, err := Solve(ctx, p, Options{Threads: 1, Progress: func(Progress) { cancel() }})
			require.NoError(t, err)
			require.NotNil(t, res.Plan, res.Reason)
			require.Empty(t, verify.Check(p, res.Plan))
			assert.Equal(t, tc.sweep, res.Method, "the first plan is the sweep's")
			if !tc.lower {
				return
			}
			fl, ok := heuristics.ByName("freelist")
			require.True(t, ok)
			flPlan, err := fl.Plan(context.Background(), p)
			require.NoError(t, err)
			assert.Less(t, res.Peak, flPlan.Peak(p), "the sweep's first plan is lower than the free list's")
		})
	}
}

// TestFirstUnderLoad: the decisive sweep comes first unless the CPU the
// machine lends until the deadline, at the rate it lent it so far, is
// under sweepOverStart times the CPU the start took.
func TestFirstUnderLoad(t *testing.T) {
	ms := time.Millisecond
	for _, tc := range []struct {
		name            string
		wall, cpu, left time.Duration
		want            string
	}{
		{"idle, 10 s", 200 * ms, 200 * ms, 10 * time.Second, "sweep-classes"},
		{"idle, 2 s", 200 * ms, 200 * ms, 2 * time.Second, "freelist"},
		{"a third of a core, 10 s", 600 * ms, 200 * ms, 9 * time.Second, "sweep-classes"},
		{"a fifth of a core, 10 s", 1000 * ms, 200 * ms, 9 * time.Second, "freelist"},
		{"two threads busy", 100 * ms, 200 * ms, 2 * time.Second, "sweep-classes"},
		{"start too short to read", 5 * ms, 1 * ms, 10 * ms, "sweep-classes"},
		{"no CPU read", 100 * ms, 0, 10 * ms, "sweep-classes"},
		{"deadline passed", 100 * ms, 100 * ms, -time.Second, "freelist"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, firstUnderLoad("sweep-classes", tc.wall, tc.cpu, tc.left))
		})
	}
}

// TestHugeFirstPlanAtBound: on millions of buffers a first plan at the
// lower bound ends the heuristics: the portfolio, which leaves the first
// planner out there, does not run on to another plan at the bound.
func TestHugeFirstPlanAtBound(t *testing.T) {
	p := &model.Problem{Name: "pairs"}
	for i := range 200_001 { // buffer i alive with i-1 and i+1: max-live is two buffers
		p.Buffers = append(p.Buffers, model.Buffer{ID: fmt.Sprint(i), Start: int64(i), End: int64(i + 2), Size: 64})
	}
	res, err := Solve(context.Background(), p, Options{Threads: 1})
	require.NoError(t, err)
	require.NotNil(t, res.Plan, res.Reason)
	require.Empty(t, verify.Check(p, res.Plan))
	assert.Equal(t, Optimal, res.Status)
	assert.Equal(t, heuristics.FirstPlanner(p), res.Method)
	assert.Contains(t, res.Stats.PhaseMillis, "first_plan")
	assert.NotContains(t, res.Stats.PhaseMillis, "heuristics", "the portfolio did not run")
}
