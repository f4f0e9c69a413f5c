package solve

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/heuristics"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/verify"
)

// TestFreeListTiers: with Options.FreeListTiers the pools are chosen by the
// free-list sweep — first come, first served in time, the fast pool while
// it has room — not by priority; FillFast fills the fast pool with fresh
// memory before reusing a slow pool's free block.
func TestFreeListTiers(t *testing.T) {
	dense := []model.Buffer{
		{ID: "long", Start: 0, End: 10, Size: 100},
		{ID: "short", Start: 2, End: 3, Size: 100},
	}
	// sram holds 8: b0 (6) → sram, b1 (4) → dram; at 4 b2 (6) reuses
	// sram; b3 (2) reuses dram's free block, or with FillFast takes sram's
	// fresh top.
	reuse := []model.Buffer{
		{ID: "b0", Start: 0, End: 3, Size: 6}, {ID: "b1", Start: 1, End: 3, Size: 4},
		{ID: "b2", Start: 4, End: 6, Size: 6}, {ID: "b3", Start: 4, End: 6, Size: 2},
	}
	for _, tc := range []struct {
		name    string
		buffers []model.Buffer
		fast    int64
		fl      *heuristics.FreeList
		want    map[string]string
	}{
		{"priority (default): the dense short buffer", dense, 100, nil, map[string]string{"short": "sram", "long": "dram"}},
		{"free list: the first to start", dense, 100, &heuristics.FreeList{}, map[string]string{"long": "sram", "short": "dram"}},
		{"free list, reuse first", reuse, 8, &heuristics.FreeList{}, map[string]string{"b0": "sram", "b1": "dram", "b2": "sram", "b3": "dram"}},
		{"free list, fill fast", reuse, 8, &heuristics.FreeList{FillFast: true}, map[string]string{"b0": "sram", "b1": "dram", "b2": "sram", "b3": "sram"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &model.Problem{Buffers: tc.buffers, Pools: twoPools(tc.fast)}
			r, err := Solve(context.Background(), p, Options{Method: "heuristic", Threads: 1, FreeListTiers: tc.fl})
			require.NoError(t, err)
			require.NotNil(t, r.Plan)
			assert.Empty(t, verify.Check(p, r.Plan))
			for id, pool := range tc.want {
				assert.Equal(t, pool, poolOf(t, p, r, id), id)
			}
			if tc.fl != nil {
				assert.Equal(t, "freelist", r.Split.Method)
			}
			assert.LessOrEqual(t, r.Plan.PoolPeaks(p)[0], tc.fast)
		})
	}
}

// TestFreeListTiersRandom: random problems split by the free list, either
// rule, give verified plans within the fast pool's capacity.
func TestFreeListTiersRandom(t *testing.T) {
	for seed := int64(0); seed < 60; seed++ {
		p := randomProblem(seed, 12)
		p.Pools = []model.Pool{{Name: "fast", Capacity: 64, Align: 8}, {Name: "slow", Rank: 1}}
		for _, fl := range []*heuristics.FreeList{{}, {FillFast: true}} {
			r, err := Solve(context.Background(), p, Options{Method: "heuristic", Threads: 1, FreeListTiers: fl})
			require.NoError(t, err)
			require.NotNil(t, r.Plan, "seed %d", seed)
			require.Empty(t, verify.Check(p, r.Plan), "seed %d", seed)
		}
	}
}
