package blocks_test

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/blocks"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/verify"
)

func allPlanners(maxBlocks int) []blocks.Planner {
	var out []blocks.Planner
	for _, name := range append(append([]string(nil), blocks.Heuristics...), "exact") {
		pl, err := blocks.NewPlanner(name, maxBlocks)
		if err != nil {
			panic(err)
		}
		out = append(out, pl)
	}
	return out
}

func TestPlannersProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	ctx := context.Background()
	for iter := 0; iter < 150; iter++ {
		o := genOpts{n: 1 + r.IntN(60), horizon: 5 + r.Int64N(60), maxSize: 1 + r.Int64N(1000), aliases: 0.2, zeros: 0.05}
		p := genProblem(r, o)
		bd, err := blocks.ComputeBounds(p)
		require.NoError(t, err)
		for _, pl := range allPlanners(0) {
			if e, ok := pl.(*blocks.Exact); ok {
				e.TimeLimit = 50 * time.Millisecond
			}
			bp, err := pl.Plan(ctx, p)
			require.NoError(t, err, pl.Name())
			v := verify.BlockCheck(p, bp.Sizes(), bp.Assign)
			require.Empty(t, v, "%s on instance %d", pl.Name(), iter)
			assert.GreaterOrEqual(t, bp.TotalBytes(), bd.LowerBound, pl.Name())
			assert.GreaterOrEqual(t, len(bp.Blocks), bd.MinBlocks, pl.Name())
			if pl.Name() == "greedy_in_order" {
				assert.Equal(t, bd.MinBlocks, len(bp.Blocks), "greedy_in_order creates a block only when none is free")
			}
			for k, b := range bp.Blocks {
				assert.Equal(t, k, b.ID)
			}
		}
	}
}

func TestExactAgreesWithBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	ctx := context.Background()
	variants := map[string]blocks.Exact{
		"all":            {},
		"no-level-bound": {NoLevelBound: true},
		"no-free-slots":  {NoFreeSlots: true},
		"no-seed":        {NoSeed: true},
		"no-gap-dedup":   {NoGapDedup: true},
		"no-memo":        {NoMemo: true},
		"no-forced":      {NoForcedBound: true},
		"no-dominance":   {NoDominance: true},
		"nothing":        {NoLevelBound: true, NoFreeSlots: true, NoSeed: true, NoGapDedup: true, NoMemo: true, NoForcedBound: true, NoDominance: true},
	}
	for iter := 0; iter < 120; iter++ {
		p := genProblem(r, genOpts{n: 1 + r.IntN(8), horizon: 4 + r.Int64N(10), maxSize: 1 + r.Int64N(20), aliases: 0.2, zeros: 0.05})
		want, wantCount, ok := bruteForce(p, 0)
		if !ok { // only zero-size buffers
			want, wantCount = 0, 0
		}
		bd, err := blocks.ComputeBounds(p)
		require.NoError(t, err)
		assert.LessOrEqual(t, bd.LowerBound, want, "the level bound must be a lower bound")
		assert.Equal(t, wantCount, bd.MinBlocks, "min blocks = max alive at once")
		for name, v := range variants {
			e := v
			res, err := e.Solve(ctx, p, nil)
			require.NoError(t, err)
			require.Equal(t, blocks.Optimal, res.Status, name)
			if want == 0 {
				continue
			}
			require.NotNil(t, res.Plan)
			assert.Equal(t, want, res.TotalBytes, "%s on instance %d", name, iter)
			assert.Equal(t, want, res.LowerBound)
			assert.Empty(t, verify.BlockCheck(p, res.Plan.Sizes(), res.Plan.Assign))
		}
		sr, err := blocks.Solve(ctx, p, blocks.Options{})
		require.NoError(t, err)
		assert.Equal(t, want, sr.TotalBytes)
		assert.Equal(t, blocks.Optimal, sr.Status)
	}
}

func TestMaxBlocksAgreesWithBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	ctx := context.Background()
	for iter := 0; iter < 80; iter++ {
		p := genProblem(r, genOpts{n: 2 + r.IntN(6), horizon: 4 + r.Int64N(8), maxSize: 1 + r.Int64N(20)})
		_, minCount, ok := bruteForce(p, 0)
		require.True(t, ok)
		for cap := 1; cap <= minCount+1; cap++ {
			want, _, feasible := bruteForce(p, cap)
			res, err := blocks.Solve(ctx, p, blocks.Options{MaxBlocks: cap})
			require.NoError(t, err)
			if !feasible {
				assert.Equal(t, blocks.Infeasible, res.Status)
				assert.Nil(t, res.Plan)
				assert.Contains(t, res.Reason, "alive at once")
				continue
			}
			require.Equal(t, blocks.Optimal, res.Status, "cap %d instance %d", cap, iter)
			assert.Equal(t, want, res.TotalBytes, "cap %d instance %d", cap, iter)
			assert.LessOrEqual(t, res.BlocksUsed, cap)
		}
	}
}

func TestMaxBlocksInfeasibleReason(t *testing.T) {
	p := &model.Problem{Buffers: []model.Buffer{
		{ID: "x", Start: 0, End: 4, Size: 8}, {ID: "y", Start: 1, End: 3, Size: 4}, {ID: "z", Start: 2, End: 5, Size: 2},
		{ID: "w", Start: 5, End: 6, Size: 8},
	}}
	res, err := blocks.Solve(context.Background(), p, blocks.Options{MaxBlocks: 2})
	require.NoError(t, err)
	assert.Equal(t, blocks.Infeasible, res.Status)
	assert.Equal(t, 3, res.MinBlocks)
	for _, want := range []string{"max blocks 2", "minimum 3", "time 2", "x", "y", "z"} {
		assert.Contains(t, res.Reason, want)
	}
	// At the minimum every method that honours caps succeeds.
	res, err = blocks.Solve(context.Background(), p, blocks.Options{MaxBlocks: 3})
	require.NoError(t, err)
	assert.Equal(t, 3, res.BlocksUsed)
	// A named planner that cannot meet a cap says so.
	for _, name := range blocks.Heuristics {
		_, err := blocks.Solve(context.Background(), p, blocks.Options{Method: name, MaxBlocks: 3})
		if err != nil {
			assert.True(t, blocks.IsCapError(err), name)
		}
	}
	_, err = blocks.Solve(context.Background(), p, blocks.Options{MaxBlocks: -1})
	assert.Error(t, err)
}

func TestCappedHeuristicsRespectCapOrSayCap(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for iter := 0; iter < 60; iter++ {
		p := genProblem(r, genOpts{n: 5 + r.IntN(40), horizon: 20, maxSize: 100, aliases: 0.1})
		bd, err := blocks.ComputeBounds(p)
		require.NoError(t, err)
		for _, pl := range allPlanners(bd.MinBlocks) {
			if e, ok := pl.(*blocks.Exact); ok {
				e.TimeLimit = 20 * time.Millisecond
			}
			bp, err := pl.Plan(context.Background(), p)
			if err != nil {
				require.True(t, blocks.IsCapError(err), "%s: %v", pl.Name(), err)
				require.NotEqual(t, "greedy_in_order", pl.Name())
				continue
			}
			assert.LessOrEqual(t, len(bp.Blocks), bd.MinBlocks, pl.Name())
			assert.Empty(t, verify.BlockCheck(p, bp.Sizes(), bp.Assign))
		}
	}
}

func TestSolveRules(t *testing.T) {
	ctx := context.Background()
	// Two serial buffers share a block, sized by the larger.
	p := &model.Problem{Buffers: []model.Buffer{{ID: "a", Start: 0, End: 2, Size: 10}, {ID: "b", Start: 2, End: 4, Size: 30}}}
	res, err := blocks.Solve(ctx, p, blocks.Options{})
	require.NoError(t, err)
	assert.Equal(t, int64(30), res.TotalBytes)
	assert.Equal(t, 1, res.BlocksUsed)
	assert.Equal(t, res.Plan.Assign[0], res.Plan.Assign[1])
	assert.Equal(t, blocks.Optimal, res.Status)

	// Overlapping buffers never share.
	p = &model.Problem{Buffers: []model.Buffer{{ID: "a", Start: 0, End: 3, Size: 10}, {ID: "b", Start: 2, End: 4, Size: 30}}}
	res, err = blocks.Solve(ctx, p, blocks.Options{})
	require.NoError(t, err)
	assert.Equal(t, int64(40), res.TotalBytes)
	assert.NotEqual(t, res.Plan.Assign[0], res.Plan.Assign[1])

	// An alias child is in its parent's block; a zero-size buffer has none.
	p = &model.Problem{Buffers: []model.Buffer{
		{ID: "a", Start: 0, End: 2, Size: 10},
		{ID: "v", Start: 1, End: 5, Size: 4, Alias: &model.Alias{Parent: "a", Delta: 6}},
		{ID: "b", Start: 2, End: 4, Size: 10},
		{ID: "z", Start: 0, End: 9, Size: 0},
	}}
	res, err = blocks.Solve(ctx, p, blocks.Options{})
	require.NoError(t, err)
	assert.Equal(t, res.Plan.Assign[0], res.Plan.Assign[1])
	assert.NotEqual(t, res.Plan.Assign[0], res.Plan.Assign[2], "the group holds its block over [0, 5)")
	assert.Equal(t, -1, res.Plan.Assign[3])
	assert.Equal(t, int64(20), res.TotalBytes)

	// Bad input names the buffer; unknown methods are refused.
	bad := &model.Problem{Buffers: []model.Buffer{{ID: "q", Start: 3, End: 1, Size: 1}}}
	_, err = blocks.Solve(ctx, bad, blocks.Options{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"q"`)
	_, err = blocks.Solve(ctx, p, blocks.Options{Method: "nope"})
	assert.ErrorContains(t, err, "unknown method")
	_, err = blocks.Solve(ctx, nil, blocks.Options{})
	assert.Error(t, err)

	// Empty problem.
	res, err = blocks.Solve(ctx, &model.Problem{}, blocks.Options{})
	require.NoError(t, err)
	assert.Equal(t, int64(0), res.TotalBytes)
	assert.Equal(t, blocks.Optimal, res.Status)
}

func TestEveryMethodThroughSolve(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	p := genProblem(r, genOpts{n: 40, horizon: 30, maxSize: 500, aliases: 0.2})
	for _, m := range blocks.Methods() {
		res, err := blocks.Solve(context.Background(), p, blocks.Options{Method: m, TimeLimit: 200 * time.Millisecond})
		require.NoError(t, err, m)
		assert.Empty(t, verify.BlockCheck(p, res.Plan.Sizes(), res.Plan.Assign), m)
		assert.GreaterOrEqual(t, res.TotalBytes, res.LowerBound)
		if m != "auto" && m != "exact" {
			assert.Equal(t, m, res.Method)
			assert.Len(t, res.Attempts, 1)
		}
	}
}

func TestExactNeverWorseThanHeuristics(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for iter := 0; iter < 30; iter++ {
		p := genProblem(r, genOpts{n: 10 + r.IntN(80), horizon: 40, maxSize: 1000, aliases: 0.1})
		res, err := blocks.Solve(context.Background(), p, blocks.Options{TimeLimit: 30 * time.Millisecond})
		require.NoError(t, err)
		for _, a := range res.Attempts {
			if a.Err == nil && a.TotalBytes > 0 {
				assert.LessOrEqual(t, res.TotalBytes, a.TotalBytes, a.Method)
			}
		}
		if res.Status == blocks.Optimal {
			assert.Equal(t, res.LowerBound, res.TotalBytes)
		}
	}
}

func TestDeterministic(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	p := genProblem(r, genOpts{n: 60, horizon: 50, maxSize: 1000, aliases: 0.2})
	var first *blocks.BlockPlan
	for k := 0; k < 3; k++ {
		res, err := blocks.Solve(context.Background(), p, blocks.Options{Exact: blocks.Exact{NodeLimit: 10000, LNSRounds: 50}, TimeLimit: time.Minute})
		require.NoError(t, err)
		if first == nil {
			first = res.Plan
		} else {
			assert.Equal(t, first, res.Plan)
		}
	}
}

func TestExactTimeLimitGivesGap(t *testing.T) {
	// A hard instance stopped after a few nodes still returns a valid plan.
	r := rand.New(rand.NewPCG(15, 16))
	p := genProblem(r, genOpts{n: 120, horizon: 60, maxSize: 1 << 20})
	e := &blocks.Exact{NodeLimit: 512}
	res, err := e.Solve(context.Background(), p, nil)
	require.NoError(t, err)
	require.NotNil(t, res.Plan)
	assert.Empty(t, verify.BlockCheck(p, res.Plan.Sizes(), res.Plan.Assign))
	if res.Status != blocks.Optimal {
		assert.Equal(t, blocks.Feasible, res.Status)
		assert.Less(t, res.LowerBound, res.TotalBytes)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res2, err := blocks.Solve(ctx, p, blocks.Options{Method: "greedy_by_size"})
	assert.True(t, err != nil || res2.Plan != nil)
	if err != nil {
		assert.True(t, strings.Contains(err.Error(), "canceled"))
	}
}

func TestLNSImprovesAndStaysValid(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 18))
	improved := 0
	for iter := 0; iter < 4; iter++ {
		p := genProblem(r, genOpts{n: 120, horizon: 80, maxSize: 1 << 16, aliases: 0.1})
		plain := &blocks.Exact{NodeLimit: 1000, NoLNS: true}
		withLNS := &blocks.Exact{NodeLimit: 1000, LNSRounds: 100}
		a, err := plain.Solve(context.Background(), p, nil)
		require.NoError(t, err)
		b, err := withLNS.Solve(context.Background(), p, nil)
		require.NoError(t, err)
		require.NotNil(t, b.Plan)
		assert.Empty(t, verify.BlockCheck(p, b.Plan.Sizes(), b.Plan.Assign))
		assert.LessOrEqual(t, b.TotalBytes, a.TotalBytes)
		assert.Equal(t, b.TotalBytes, b.Plan.TotalBytes())
		if b.TotalBytes < a.TotalBytes {
			improved++
		}
		// With a cap, LNS keeps within it.
		bd, err := blocks.ComputeBounds(p)
		require.NoError(t, err)
		capped := &blocks.Exact{NodeLimit: 1000, LNSRounds: 100, MaxBlocks: bd.MinBlocks}
		c, err := capped.Solve(context.Background(), p, nil)
		require.NoError(t, err)
		require.NotNil(t, c.Plan)
		assert.LessOrEqual(t, len(c.Plan.Blocks), bd.MinBlocks)
		assert.Empty(t, verify.BlockCheck(p, c.Plan.Sizes(), c.Plan.Assign))
	}
	t.Logf("LNS improved %d of 4 instances", improved)
	assert.Positive(t, improved, "LNS should improve some 120-unit instances")
}
