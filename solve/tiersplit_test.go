package solve

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/internal/brute"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/verify"
)

// TestExactSplitMatchesBrute: on random tiny two-pool problems the fast
// pool keeps as many bytes as the best subset that packs in it (brute
// force over every subset, each packed by brute-force enumeration), the
// split is proven, and every plan verifies.
func TestExactSplitMatchesBrute(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	ctx := context.Background()
	better := 0
	for k := 0; k < 400; k++ {
		n := 2 + rng.IntN(6)
		p := brute.Random(rng, n, brute.RandomOptions{MaxSize: 8, Align: 0.2})
		ml := p.ComputeSweep().MaxLive
		fast := 1 + rng.Int64N(max(1, ml))
		p.Pools = twoPools(fast)
		r, err := Solve(ctx, p, Options{Method: "auto", Threads: 1, TimeLimit: 10 * time.Second})
		require.NoError(t, err)
		require.NotNil(t, r.Plan, "instance %d", k)
		require.Empty(t, verify.Check(p, r.Plan), "instance %d", k)
		require.NotNil(t, r.Split)
		require.True(t, r.Split.Proven, "instance %d: %+v", k, r.Split)
		var kept int64
		for i, pl := range r.Plan.Placements {
			if pl.Pool == 0 {
				kept += p.Buffers[i].Size
			}
		}
		require.Equal(t, bestShare(p, fast), kept, "instance %d: %+v", k, p.Buffers)
		require.Equal(t, kept, r.Split.Pools[0].Bytes)

		h, err := Solve(ctx, p, Options{Method: "heuristic", Threads: 1})
		require.NoError(t, err)
		require.Equal(t, "heuristic", h.Split.Method)
		if h.Split.Pools[0].Bytes < kept {
			better++
		}
		require.LessOrEqual(t, h.Split.Pools[0].Bytes, kept, "instance %d: the heuristic split keeps more", k)
	}
	t.Logf("the exact split kept more bytes in the fast pool than the heuristic one on %d of 400", better)
}

// bestShare is the largest total size of a subset of p's buffers whose
// brute-force optimum fits in capacity.
func bestShare(p *model.Problem, capacity int64) int64 {
	n := len(p.Buffers)
	var best int64
	for mask := 1; mask < 1<<n; mask++ {
		sub := &model.Problem{}
		var bytes int64
		for i := range n {
			if mask&(1<<i) != 0 {
				sub.Buffers = append(sub.Buffers, p.Buffers[i])
				bytes += p.Buffers[i].Size
			}
		}
		if bytes <= best {
			continue
		}
		if opt, _ := brute.Optimum(sub); opt >= 0 && opt <= capacity {
			best = bytes
		}
	}
	return best
}

func TestExactSplitWeights(t *testing.T) {
	for _, tc := range []struct {
		name    string
		buffers []model.Buffer
		fast    int64
		want    []string // the fast pool's buffers
	}{{
		name: "bytes: two small beat one large",
		buffers: []model.Buffer{
			{ID: "a", Start: 0, End: 4, Size: 100},
			{ID: "b", Start: 0, End: 4, Size: 60},
			{ID: "c", Start: 0, End: 4, Size: 60},
		},
		fast: 120,
		want: []string{"b", "c"},
	}, {
		name: "weights: the heavy one wins",
		buffers: []model.Buffer{
			{ID: "a", Start: 0, End: 4, Size: 100, Weight: 5},
			{ID: "b", Start: 0, End: 4, Size: 60, Weight: 1},
			{ID: "c", Start: 0, End: 4, Size: 60, Weight: 1},
		},
		fast: 120,
		want: []string{"a"},
	}, {
		name: "latency-critical scratch before any weight",
		buffers: []model.Buffer{
			{ID: "a", Start: 0, End: 4, Size: 100, Weight: 50},
			{ID: "s", Start: 1, End: 2, Size: 30, Kind: model.Scratch, LatencyCritical: true},
		},
		fast: 100,
		want: []string{"s"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			p := &model.Problem{Buffers: tc.buffers, Pools: twoPools(tc.fast)}
			r, err := Solve(context.Background(), p, Options{Method: "auto", Threads: 1, TimeLimit: 5 * time.Second})
			require.NoError(t, err)
			require.Empty(t, verify.Check(p, r.Plan))
			require.True(t, r.Split.Proven)
			var got []string
			for i, pl := range r.Plan.Placements {
				if pl.Pool == 0 {
					got = append(got, p.Buffers[i].ID)
				}
			}
			require.Equal(t, tc.want, got)
		})
	}
}
