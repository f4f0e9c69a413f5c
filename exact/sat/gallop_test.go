package sat

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/internal/brute"
	"github.com/optalloc/optalloc/model"
)

// TestGallopEqualsBrute: on random tiny instances Gallop reaches the
// brute-force optimum with a proof (lower bound = peak), every plan it
// offers verifies, and the offered peaks strictly decrease.
func TestGallopEqualsBrute(t *testing.T) {
	ctx := context.Background()
	for _, shape := range randomShapes {
		for _, v := range []string{"from-first-fit", "from-stacked"} {
			t.Run(shape.name+"/"+v, func(t *testing.T) {
				rng := rand.New(rand.NewPCG(7, uint64(len(shape.name))))
				for k := 0; k < 40; k++ {
					n := 3 + rng.IntN(brute.MaxBuffers-2)
					p := brute.Random(rng, n, shape.opt)
					want, _ := brute.Optimum(p)
					var inc *model.Plan
					if v == "from-stacked" && want >= 0 {
						_, inc = stackGaps(p)
					}
					var improved []*model.Plan
					pl, lb, _, err := Gallop(ctx, p, inc, 0, Options{}, func(q *model.Plan) { improved = append(improved, q) })
					requireOptimum(t, k, p, want, pl, lb, err, improved)
					for i := 1; i < len(improved); i++ {
						require.Less(t, improved[i].Peak(p), improved[i-1].Peak(p))
					}
				}
			})
		}
	}
}

// TestGallopCapacity: with a pool capacity below the first-fit packing,
// Gallop asks the capacity itself and never offers a plan above it; below
// the optimum it returns no plan and a bound above the capacity.
func TestGallopCapacity(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(3, 4))
	checked := 0
	for k := 0; k < 200; k++ {
		p := brute.Random(rng, 3+rng.IntN(brute.MaxBuffers-2), brute.RandomOptions{Align: 0.3, MaxSize: 9})
		want, _ := brute.Optimum(p)
		for _, c := range []int64{want, want - 1} {
			if c <= 0 {
				continue
			}
			q := *p
			q.Pools = []model.Pool{{Name: "mem", Capacity: c}}
			var offered int
			pl, lb, _, err := Gallop(ctx, &q, nil, 0, Options{}, func(r *model.Plan) {
				offered++
				requireValid(t, &q, r)
				require.LessOrEqual(t, r.Peak(&q), c)
			})
			require.NoError(t, err)
			if c == want {
				requireValid(t, &q, pl)
				require.Equal(t, want, pl.Peak(&q))
				require.Equal(t, want, lb)
			} else {
				require.Nil(t, pl, "instance %d: nothing fits under %d", k, c)
				require.Zero(t, offered)
				require.Greater(t, lb, c)
			}
			checked++
		}
	}
	require.Greater(t, checked, 300)
}

// TestGallopDeclinesOverBudget: when the starting height's encoding is over
// budget, Gallop returns the first-fit plan it offered, max-live as the
// bound and the budget as its reason.
func TestGallopDeclinesOverBudget(t *testing.T) {
	p := &model.Problem{}
	for i := 0; i < 50; i++ {
		p.Buffers = append(p.Buffers, model.Buffer{ID: fmt.Sprint(i), Start: int64(i), End: int64(i + 3), Size: 1_000_000_007 + int64(i)})
	}
	offered := 0
	pl, lb, st, err := Gallop(context.Background(), p, nil, 0, Options{}, func(*model.Plan) { offered++ })
	require.NoError(t, err)
	requireValid(t, p, pl)
	require.Equal(t, 1, offered)
	require.Equal(t, p.ComputeSweep().MaxLive, lb)
	require.Contains(t, st.Reason, "budget")
	require.Zero(t, st.Calls, "no solver call")
}

// TestAdmits: the budget check Gallop makes before building anything.
func TestAdmits(t *testing.T) {
	p := &model.Problem{Buffers: []model.Buffer{
		{ID: "a", Start: 0, End: 2, Size: 4},
		{ID: "b", Start: 1, End: 3, Size: 2, Align: 4},
		{ID: "c", Start: 0, End: 3, Size: 6},
	}}
	ok, why := Admits(p, 12, Options{})
	require.True(t, ok, why)
	ok, why = Admits(p, 12, Options{MaxClauses: 3})
	require.False(t, ok)
	require.Contains(t, why, "clauses")
	ok, _ = Admits(p, 5, Options{})
	require.False(t, ok, "c has no offset below 5")
	ok, why = Admits(p, 12, Options{RoundUp: 3})
	require.False(t, ok, "alignment 4 does not divide the rounding unit")
	require.NotEmpty(t, why)
}
