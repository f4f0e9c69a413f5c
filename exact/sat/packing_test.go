package sat

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/optalloc/optalloc/internal/brute"
	"github.com/optalloc/optalloc/model"
	"github.com/stretchr/testify/require"
)

// TestLowestFreeRectEqualsGeneral: the sorted sweep for items without
// pieces returns the same offset as the general candidate search, item by
// item, on random first-fit packings (plain, aligned, pinned, zero sizes).
func TestLowestFreeRectEqualsGeneral(t *testing.T) {
	rng := rand.New(rand.NewPCG(61, 62))
	compared := 0
	for trial := 0; trial < 300; trial++ {
		shape := randomShapes[trial%len(randomShapes)]
		p := brute.Random(rng, 2+rng.IntN(12), shape.opt)
		in, err := newInstance(p, 0)
		require.NoError(t, err)
		s := in.positive()
		off := make([]int64, len(s.items))
		var placed []int
		var buf []span
		for k := range s.items {
			if s.items[k].pin >= 0 {
				off[k] = s.items[k].pin
			} else {
				var got int64
				got, buf = s.lowestFreeRect(k, off, placed, buf)
				require.Equal(t, s.lowestFree(k, off, placed), got, "trial %d (%s), item %d", trial, shape.name, k)
				off[k] = got
				compared++
			}
			placed = append(placed, k)
		}
	}
	require.Greater(t, compared, 1000)
}

// TestCheckItemsEqualsAllPairs: the time sweep of checkItems finds an
// overlap exactly when some pair of items overlaps (all pairs compared),
// on random offsets that often collide.
func TestCheckItemsEqualsAllPairs(t *testing.T) {
	rng := rand.New(rand.NewPCG(63, 64))
	bad := 0
	for trial := 0; trial < 500; trial++ {
		p := brute.Random(rng, 2+rng.IntN(10), brute.RandomOptions{ZeroSize: 0.1})
		in, err := newInstance(p, 0)
		require.NoError(t, err)
		off := make([]int64, len(in.items))
		for k := range off {
			off[k] = int64(rng.IntN(12))
		}
		want := false
		var sp []span
		for i := range in.items {
			for j := i + 1; j < len(in.items); j++ {
				want = want || overlapAt(&in.items[i], &in.items[j], off[i], off[j], &sp)
			}
		}
		err = checkItems(in.items, off, 1<<40)
		require.Equal(t, want, err != nil, "trial %d: %v", trial, err)
		if want {
			bad++
		}
	}
	require.Greater(t, bad, 100)
	require.Less(t, bad, 450)
}

// TestStartingPackingStops: the descents' starting packing looks at the
// context (a cancelled one gives no plan and says why), and a caller's
// plan over the budget is declined before any packing is made.
func TestStartingPackingStops(t *testing.T) {
	rng := rand.New(rand.NewPCG(65, 66))
	p := brute.Random(rng, 8, brute.RandomOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	offered := 0
	pl, _, st, err := Minimise(ctx, p, nil, 0, Options{}, func(*model.Plan) { offered++ })
	require.NoError(t, err)
	require.Nil(t, pl)
	require.Zero(t, offered)
	require.Contains(t, st.Reason, "stopped")
	_, st, err = Improve(ctx, p, nil, Options{}, nil)
	require.NoError(t, err)
	require.Contains(t, st.Reason, "stopped")

	// Over the budget at the bound, with a plan: returned as it came.
	first, _, _, err := Minimise(context.Background(), p, nil, 0, Options{}, nil)
	require.NoError(t, err)
	offered = 0
	pl, _, st, err = Gallop(context.Background(), p, first, 0, Options{MaxVars: 1}, func(*model.Plan) { offered++ })
	require.NoError(t, err)
	require.Same(t, first, pl)
	require.Zero(t, offered)
	require.Contains(t, st.Reason, "offsets alone")
}
