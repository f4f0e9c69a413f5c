package solve

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/formats"
	_ "github.com/optalloc/optalloc/formats/graph" // .graph.json inputs
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/verify"
)

func twoPools(fast int64) []model.Pool {
	return []model.Pool{{Name: "sram", Capacity: fast, Rank: 0}, {Name: "dram", Rank: 1}}
}

func poolOf(t *testing.T, p *model.Problem, r *Result, id string) string {
	t.Helper()
	i, ok := p.Index()[id]
	require.True(t, ok)
	return p.PoolList()[r.Plan.Placements[i].Pool].Name
}

func TestTiersPriorityAndSpill(t *testing.T) {
	for _, tc := range []struct {
		name    string
		buffers []model.Buffer
		fast    int64
		want    map[string]string
	}{{
		name: "dense short buffer beats sparse long one",
		buffers: []model.Buffer{
			{ID: "long", Start: 0, End: 10, Size: 100}, // 10 bytes per step
			{ID: "short", Start: 2, End: 3, Size: 100}, // 100 bytes per step
		},
		fast: 100,
		want: map[string]string{"short": "sram", "long": "dram"},
	}, {
		name: "latency-critical scratch first",
		buffers: []model.Buffer{
			{ID: "act", Start: 0, End: 1, Size: 64},
			{ID: "scr", Start: 0, End: 4, Size: 64, Kind: model.Scratch, LatencyCritical: true},
		},
		fast: 64,
		want: map[string]string{"scr": "sram", "act": "dram"},
	}, {
		name: "weight overrides bytes per lifetime",
		buffers: []model.Buffer{
			{ID: "a", Start: 0, End: 1, Size: 64},
			{ID: "b", Start: 0, End: 8, Size: 64, Weight: 1000},
		},
		fast: 64,
		want: map[string]string{"b": "sram", "a": "dram"},
	}, {
		name: "allowed pools are honoured",
		buffers: []model.Buffer{
			{ID: "x", Start: 0, End: 1, Size: 8, Pools: []string{"dram"}},
			{ID: "y", Start: 0, End: 1, Size: 8},
		},
		fast: 1024,
		want: map[string]string{"x": "dram", "y": "sram"},
	}, {
		name: "a too large buffer does not block smaller ones",
		buffers: []model.Buffer{
			{ID: "huge", Start: 0, End: 1, Size: 4096},
			{ID: "small", Start: 0, End: 2, Size: 16},
		},
		fast: 1024,
		want: map[string]string{"huge": "dram", "small": "sram"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			p := &model.Problem{Buffers: tc.buffers, Pools: twoPools(tc.fast)}
			r, err := Solve(context.Background(), p, Options{Method: "heuristic", Threads: 1})
			require.NoError(t, err)
			require.NotNil(t, r.Plan)
			assert.Empty(t, verify.Check(p, r.Plan))
			for id, pool := range tc.want {
				assert.Equal(t, pool, poolOf(t, p, r, id), id)
			}
			assert.Equal(t, Feasible, r.Status, "a split over pools is never claimed optimal")
			assert.LessOrEqual(t, r.Plan.PoolPeaks(p)[0], tc.fast)
		})
	}
}

func TestTiersAliasGroupStaysTogether(t *testing.T) {
	p := &model.Problem{Pools: twoPools(1 << 20), Buffers: []model.Buffer{
		{ID: "cat", Start: 2, End: 4, Size: 64},
		{ID: "a", Start: 0, End: 3, Size: 32, Alias: &model.Alias{Parent: "cat", Delta: 0}},
		{ID: "b", Start: 1, End: 3, Size: 32, Alias: &model.Alias{Parent: "cat", Delta: 32}},
	}}
	r, err := Solve(context.Background(), p, Options{Method: "heuristic"})
	require.NoError(t, err)
	require.Empty(t, verify.Check(p, r.Plan))
	assert.Equal(t, poolOf(t, p, r, "cat"), poolOf(t, p, r, "a"))
	assert.Equal(t, poolOf(t, p, r, "cat"), poolOf(t, p, r, "b"))
}

func TestTiersRandomPlansVerify(t *testing.T) {
	for seed := int64(0); seed < 60; seed++ {
		p := randomProblem(seed, 12)
		p.Pools = []model.Pool{{Name: "fast", Capacity: 64, Align: 8}, {Name: "slow", Rank: 1}}
		r, err := Solve(context.Background(), p, Options{Method: "heuristic", Threads: 1})
		require.NoError(t, err)
		require.NotNil(t, r.Plan, "seed %d: the unbounded slow pool always fits", seed)
		require.Empty(t, verify.Check(p, r.Plan), "seed %d", seed)
	}
}

func TestPinConflictsExplained(t *testing.T) {
	pin := func(v int64) *int64 { return &v }
	for _, tc := range []struct {
		name  string
		p     model.Problem
		names []string
	}{{
		name: "two pins collide",
		p: model.Problem{Buffers: []model.Buffer{
			{ID: "a", Start: 0, End: 4, Size: 16, Pin: pin(0)},
			{ID: "b", Start: 2, End: 6, Size: 16, Pin: pin(8)},
			{ID: "c", Start: 0, End: 6, Size: 16},
		}},
		names: []string{`"a"`, `"b"`, "share bytes"},
	}, {
		name: "a pin beyond the pool",
		p: model.Problem{Pools: []model.Pool{{Name: "sram", Capacity: 64}}, Buffers: []model.Buffer{
			{ID: "big", Start: 0, End: 4, Size: 32, Pin: pin(48)},
		}},
		names: []string{`"big"`, "capacity 64"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Solve(context.Background(), &tc.p, Options{})
			require.NoError(t, err)
			assert.Equal(t, Infeasible, r.Status)
			assert.Nil(t, r.Plan)
			for _, n := range tc.names {
				assert.Contains(t, r.Reason, n)
			}
		})
	}
}

// TestFillSpillsLess: offering the left-out buffers one by one after the
// prefix never spills more bytes than the prefix alone (the fast pool's set
// only grows), spills fewer on some instances, and every plan verifies.
func TestFillSpillsLess(t *testing.T) {
	spilled := func(p *model.Problem, fill int) int64 {
		old := maxFill
		maxFill = fill
		defer func() { maxFill = old }()
		r, err := Solve(context.Background(), p, Options{Method: "heuristic", Threads: 1})
		require.NoError(t, err)
		require.NotNil(t, r.Plan)
		require.Empty(t, verify.Check(p, r.Plan))
		var bytes int64
		for i, pl := range r.Plan.Placements {
			if pl.Pool == 1 {
				bytes += p.Buffers[i].Size
			}
		}
		return bytes
	}
	better := 0
	for seed := int64(0); seed < 40; seed++ {
		p := randomProblem(seed, 30)
		p.Pools = []model.Pool{{Name: "fast", Capacity: p.ComputeSweep().MaxLive / 2}, {Name: "slow", Rank: 1}}
		with, without := spilled(p, 64), spilled(p, 0)
		require.LessOrEqual(t, with, without, "seed %d", seed)
		if with < without {
			better++
		}
	}
	require.Positive(t, better, "the fill never helped")
	t.Logf("fill spilled fewer bytes on %d of 40 instances", better)
}

// TestTiersFitTestsUseTheMethod: the split's fit tests plan with the method
// that will plan each pool (a planner's own fit, a quick plan for the exact
// engines). Before, --method sat spilled everything (its fit tests found no
// plan) and freelist got a split that only greedy-size could pack.
func TestTiersFitTestsUseTheMethod(t *testing.T) {
	for _, m := range []string{"sat", "bnb", "freelist", "greedy-size", "skyline", "heuristic"} {
		p, err := formats.Load("../examples/tiny-cnn.csv")
		require.NoError(t, err)
		p.Pools = twoPools(254720)
		r, err := Solve(context.Background(), p, Options{Method: m, Threads: 1, TimeLimit: 5 * time.Second})
		require.NoError(t, err, m)
		require.NotNil(t, r.Plan, "%s: %s %s", m, r.Status, r.Reason)
		require.Empty(t, verify.Check(p, r.Plan), m)
		assert.Positive(t, r.Split.Pools[0].Bytes, "%s: nothing kept in the fast pool", m)
	}
	// freelist packs less tightly than greedy-size: a split by greedy-size
	// fit tests left it above the fast pool's capacity (status unknown).
	p, err := formats.Load("../examples/mobilenetv2.graph.json")
	require.NoError(t, err)
	p.Pools = twoPools(4993120)
	r, err := Solve(context.Background(), p, Options{Method: "freelist", Threads: 1})
	require.NoError(t, err)
	require.NotNil(t, r.Plan, "%s %s", r.Status, r.Reason)
	require.Empty(t, verify.Check(p, r.Plan))
}

func TestCapacityNeedsOnePool(t *testing.T) {
	p := &model.Problem{Pools: twoPools(100), Buffers: []model.Buffer{{ID: "a", End: 1, Size: 10}}}
	_, err := Solve(context.Background(), p, Options{Capacity: 50})
	require.ErrorContains(t, err, "a capacity decides a single pool")
}

// TestTiersAnytime: a multi-pool solve holds a plan before the split's
// fit tests start (every buffer in the unbounded slow pool, by the free
// list) and another right after the split (a quick plan of each pool),
// both verified, so that the first plan never waits for the pools' full
// solves; the final plan is never above the quick one.
func TestTiersAnytime(t *testing.T) {
	var bs []model.Buffer
	for i := range 300 {
		start := int64(i % 50)
		bs = append(bs, model.Buffer{ID: "b" + string(rune('A'+i%26)) + string(rune('a'+i/26)), Start: start, End: start + 1 + int64(i%7), Size: int64(64 * (1 + i%13))})
	}
	p := &model.Problem{Buffers: bs, Pools: twoPools(4096)}
	require.NoError(t, p.Validate())
	r, err := Solve(context.Background(), p, Options{Method: "auto", TimeLimit: 5 * time.Second})
	require.NoError(t, err)
	require.NotNil(t, r.Plan)
	assert.Empty(t, verify.Check(p, r.Plan))
	spill, ok := r.Stats.Heuristics["tiers+spill"]
	require.True(t, ok, "no spill plan: %v", r.Stats.Heuristics)
	quick, ok := r.Stats.Heuristics["tiers+quick"]
	require.True(t, ok, "no quick plan: %v", r.Stats.Heuristics)
	assert.LessOrEqual(t, quick, spill, "the split's quick plan is not above all-in-the-slow-pool")
	assert.LessOrEqual(t, r.Peak, quick)
	// the first plan came before the split ended (the spill plan precedes it)
	assert.Greater(t, r.Stats.FirstPlanMillis, 0.0)
	assert.LessOrEqual(t, r.Stats.FirstPlanMillis, r.Stats.PhaseMillis["tiers"]+r.Stats.PhaseMillis["tiers-spill"])

	// no spill plan when a pinned buffer or a pool restriction forbids it;
	// a buffer allowed only in the fast pool goes there although its
	// priority is low (it was spilled and then fit nowhere)
	p.Buffers[0].Pools = []string{"sram"}
	r, err = Solve(context.Background(), p, Options{Method: "auto", TimeLimit: 5 * time.Second})
	require.NoError(t, err)
	require.NotNil(t, r.Plan, "%s: %s", r.Status, r.Reason)
	assert.Empty(t, verify.Check(p, r.Plan))
	_, ok = r.Stats.Heuristics["tiers+spill"]
	assert.False(t, ok)
	assert.Equal(t, "sram", poolOf(t, p, r, p.Buffers[0].ID))
}
