package bnb

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/optalloc/optalloc/internal/brute"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/verify"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func pin(v int64) *int64 { return &v }

func TestDecideHandChecked(t *testing.T) {
	tests := []struct {
		name     string
		bufs     []model.Buffer
		capacity int64
		want     Status
		pools    []model.Pool
	}{
		{"fits", []model.Buffer{{ID: "a", Start: 0, End: 2, Size: 5}, {ID: "b", Start: 1, End: 3, Size: 7}}, 12, Feasible, nil},
		{"too small", []model.Buffer{{ID: "a", Start: 0, End: 2, Size: 5}, {ID: "b", Start: 1, End: 3, Size: 7}}, 11, Infeasible, nil},
		{"time-disjoint", []model.Buffer{{ID: "a", Start: 0, End: 1, Size: 5}, {ID: "b", Start: 1, End: 3, Size: 7}}, 7, Feasible, nil},
		{"alignment forces a hole", []model.Buffer{
			{ID: "a", Start: 0, End: 2, Size: 3, Pin: pin(0)},
			{ID: "b", Start: 1, End: 3, Size: 2, Align: 4}}, 5, Infeasible, nil},
		{"pins clash", []model.Buffer{
			{ID: "a", Start: 0, End: 2, Size: 3, Pin: pin(0)},
			{ID: "b", Start: 1, End: 3, Size: 2, Pin: pin(2)}}, 100, Infeasible, nil},
		{"pin above capacity", []model.Buffer{{ID: "a", Start: 0, End: 2, Size: 3, Pin: pin(8)}}, 10, Infeasible, nil},
		{"zero sizes", []model.Buffer{{ID: "a", Start: 0, End: 2, Size: 0}, {ID: "b", Start: 0, End: 2, Size: 0, Pin: pin(3)}}, 1, Feasible, nil},
		{"alias group", []model.Buffer{
			{ID: "a", Start: 0, End: 4, Size: 8},
			{ID: "v", Start: 2, End: 3, Size: 4, Alias: &model.Alias{Parent: "a", Delta: 4}},
			{ID: "b", Start: 1, End: 3, Size: 4}}, 12, Feasible, nil},
		// The pool's alignment applies to every buffer: b cannot sit at 3.
		{"pool alignment", []model.Buffer{
			{ID: "a", Start: 0, End: 2, Size: 3},
			{ID: "b", Start: 1, End: 3, Size: 3}}, 7, Feasible, []model.Pool{{Name: "m", Align: 4}}},
		{"pool alignment forces a hole", []model.Buffer{
			{ID: "a", Start: 0, End: 2, Size: 3},
			{ID: "b", Start: 1, End: 3, Size: 3}}, 6, Infeasible, []model.Pool{{Name: "m", Align: 4}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := &model.Problem{Buffers: tc.bufs, Pools: tc.pools}
			pl, status, st, err := Decide(context.Background(), p, tc.capacity, Options{Threads: 1})
			require.NoError(t, err)
			assert.Equal(t, tc.want, status)
			if status == Feasible {
				require.Empty(t, verify.Check(p, pl))
				assert.LessOrEqual(t, pl.Peak(p), tc.capacity)
			} else {
				assert.Nil(t, pl)
			}
			_, err = json.Marshal(st)
			require.NoError(t, err)
		})
	}
}

func TestGapsAreNeverProofs(t *testing.T) {
	// b is absent during [1,2): the true optimum is 5 (a and c can share
	// bytes with b's gap), but the engine treats b as a whole rectangle.
	p := &model.Problem{Buffers: []model.Buffer{
		{ID: "a", Start: 0, End: 1, Size: 5},
		{ID: "b", Start: 0, End: 3, Size: 5, Gaps: []model.Gap{{Start: 1, End: 2}}},
		{ID: "c", Start: 1, End: 2, Size: 5},
	}}
	_, status, st, err := Decide(context.Background(), p, 9, Options{Threads: 1})
	require.NoError(t, err)
	assert.Equal(t, Unknown, status, "a failed search on the conservative model is not a proof")
	assert.False(t, st.Exact)
	pl, lb, _, err := Minimise(context.Background(), p, nil, 0, Options{Threads: 1}, nil)
	require.NoError(t, err)
	require.Empty(t, verify.Check(p, pl))
	assert.LessOrEqual(t, lb, int64(10))
}

func TestBadInput(t *testing.T) {
	p := &model.Problem{Buffers: []model.Buffer{{ID: "a", Start: 2, End: 1, Size: 5}}}
	_, _, _, err := Decide(context.Background(), p, 10, Options{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"a"`)
	_, _, _, err = Minimise(context.Background(), nil, nil, 0, Options{}, nil)
	require.Error(t, err)
	q := &model.Problem{Buffers: []model.Buffer{{ID: "a", Start: 0, End: 1, Size: 5}}}
	_, _, _, err = Decide(context.Background(), q, 0, Options{})
	require.Error(t, err, "no capacity given")
	_, _, _, err = Decide(context.Background(), q, 10, Options{Orders: []string{"TWA", "bogus"}})
	require.ErrorContains(t, err, "bogus")
	q.Pools = []model.Pool{{Name: "fast", Capacity: 4}, {Name: "slow"}}
	_, _, _, err = Decide(context.Background(), q, 10, Options{})
	require.Error(t, err, "several pools")
}

func TestDeterministicWithOneThread(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	p, _ := brute.PerfectPacking(rng, 60, 100, 50)
	run := func() []model.Placement {
		pl, _, _, err := Minimise(context.Background(), p, nil, 0, Options{Threads: 1, Seed: 3}, nil)
		require.NoError(t, err)
		return pl.Placements
	}
	assert.Equal(t, run(), run())
}

func TestMinimiseFromIncumbent(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	p, _ := brute.PerfectPacking(rng, 50, 80, 40)
	// A poor incumbent: everything stacked.
	inc := stacked(p)
	var improved []int64
	best, lb, st, err := Minimise(context.Background(), p, inc, 0, Options{Threads: 2}, func(pl *model.Plan) {
		require.Empty(t, verify.Check(p, pl))
		improved = append(improved, pl.Peak(p))
	})
	require.NoError(t, err)
	assert.Equal(t, int64(80), best.Peak(p))
	assert.Equal(t, int64(80), lb)
	require.NotEmpty(t, improved)
	assert.IsNonIncreasing(t, improved)
	assert.Equal(t, int64(80), improved[len(improved)-1])
	assert.NotEmpty(t, st.Steps)
}

// TestMaxNodes: Minimise starts no decision once MaxNodes nodes are spent,
// and with one thread the cut is deterministic. J minimised from a
// stacked plan never reaches its bound, so only the budget stops it.
func TestMaxNodes(t *testing.T) {
	p := loadMini(t, "J")
	inc := stacked(p)
	run := func() (*model.Plan, Stats) {
		pl, _, st, err := Minimise(context.Background(), p, inc, 0, Options{Threads: 1, MaxNodes: 5000}, nil)
		require.NoError(t, err)
		require.Empty(t, verify.Check(p, pl))
		return pl, st
	}
	pl, st := run()
	require.GreaterOrEqual(t, st.Nodes, int64(5000))
	last := st.Steps[len(st.Steps)-1].Nodes
	assert.Less(t, st.Nodes-last, int64(5000), "a decision started after the budget was spent")
	pl2, st2 := run()
	assert.Equal(t, pl.Placements, pl2.Placements)
	assert.Equal(t, st.Nodes, st2.Nodes)
}

// TestMaxNodesDeterministicOverLongDescents: with a budget large enough for
// Minimise to probe the lower bound again during its descent, the probes
// are scheduled by nodes, not wall time, so two one-thread runs take the
// same steps (they did not: the schedule read the clock).
func TestMaxNodesDeterministicOverLongDescents(t *testing.T) {
	p := loadMini(t, "J")
	inc := stacked(p)
	run := func() (*model.Plan, Stats) {
		pl, _, st, err := Minimise(context.Background(), p, inc, 0, Options{Threads: 1, MaxNodes: 300_000}, nil)
		require.NoError(t, err)
		require.Empty(t, verify.Check(p, pl))
		return pl, st
	}
	pl, st := run()
	pl2, st2 := run()
	assert.Equal(t, pl.Placements, pl2.Placements)
	require.Equal(t, len(st.Steps), len(st2.Steps))
	for k := range st.Steps {
		assert.Equal(t, st.Steps[k].Capacity, st2.Steps[k].Capacity, "step %d", k)
		assert.Equal(t, st.Steps[k].Nodes, st2.Steps[k].Nodes, "step %d", k)
	}
	assert.Greater(t, len(st.Steps), 3, "too short a descent to probe the bound again")
}

func TestContextCancellation(t *testing.T) {
	p := loadMini(t, "J")
	// A context ended before the call (as a caller's cancel or an expired
	// limit would end it): no search starts, no error, no answer. How
	// soon a running search notices is a benchmark's matter, not a test's.
	for _, end := range []func(context.Context) (context.Context, context.CancelFunc){
		func(ctx context.Context) (context.Context, context.CancelFunc) { return context.WithCancel(ctx) },
		func(ctx context.Context) (context.Context, context.CancelFunc) {
			return context.WithDeadline(ctx, time.Unix(0, 0))
		},
	} {
		ctx, cancel := end(context.Background())
		cancel()
		_, status, st, err := Decide(ctx, p, 1000*1024, Options{})
		require.NoError(t, err)
		assert.Equal(t, Unknown, status)
		assert.Zero(t, st.Nodes)
	}
}

// TestDecideStartsAtCallerBound: with the caller's proven bound equal to the
// capacity, Decide searches the capacity alone (no probes below it).
func TestDecideStartsAtCallerBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	p, _ := brute.PerfectPacking(rng, 30, 40, 25)
	h := p.ComputeSweep().MaxLive
	_, status, st, err := Decide(context.Background(), p, h+8, Options{Threads: 1, LowerBound: h + 8})
	require.NoError(t, err)
	require.Equal(t, Feasible, status)
	require.Equal(t, 1, st.Decisions)
}

// TestPairsCount: the O(n log n) count of pairs alive at the same time
// equals the all-pairs count, ties in start and zero sizes included.
func TestPairsCount(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 52))
	for trial := 0; trial < 200; trial++ {
		p := &model.Problem{}
		n := 1 + rng.IntN(40)
		for i := 0; i < n; i++ {
			s := int64(rng.IntN(20))
			p.Buffers = append(p.Buffers, model.Buffer{ID: string(rune('a'+i%26)) + string(rune('0'+i/26)),
				Start: s, End: s + 1 + int64(rng.IntN(8)), Size: int64(rng.IntN(4))})
		}
		f, err := fold(p)
		require.NoError(t, err)
		var want int64
		for i, a := range f.items {
			for _, b := range f.items[i+1:] {
				if a.size > 0 && b.size > 0 && a.start < b.end && b.start < a.end {
					want++
				}
			}
		}
		require.Equal(t, want, f.pairs(), "trial %d", trial)
		// The conflict lists, cut from one array by their counted
		// degrees, hold exactly the items alive at the same time.
		var listed int64
		for _, c := range f.components() {
			for i := range c.conf {
				require.Equal(t, len(c.conf[i]), cap(c.conf[i]), "exact degree")
				var brute []int32
				for j := range c.conf {
					if j != i && c.start[i] < c.end[j] && c.start[j] < c.end[i] {
						brute = append(brute, int32(j))
					}
				}
				require.ElementsMatch(t, brute, c.conf[i], "trial %d", trial)
				listed += int64(len(c.conf[i]))
			}
		}
		require.Equal(t, 2*want, listed)
	}
}

// TestDeclinesOverMaxPairs: above Options.MaxPairs the engine returns an
// error naming the count before it builds any conflict list (the race then
// goes on without it); at the budget it solves.
func TestDeclinesOverMaxPairs(t *testing.T) {
	p := &model.Problem{}
	for i := 0; i < 5; i++ { // five buffers alive together: 10 pairs
		p.Buffers = append(p.Buffers, model.Buffer{ID: string(rune('a' + i)), Start: 0, End: 2, Size: 3})
	}
	_, _, _, err := Minimise(context.Background(), p, nil, 0, Options{MaxPairs: 9}, nil)
	require.ErrorContains(t, err, "10 pairs")
	_, _, _, err = Decide(context.Background(), p, 15, Options{MaxPairs: 9})
	require.ErrorContains(t, err, "budget of 9")
	pl, lb, _, err := Minimise(context.Background(), p, nil, 0, Options{MaxPairs: 10}, nil)
	require.NoError(t, err)
	assert.Equal(t, int64(15), pl.Peak(p))
	assert.Equal(t, int64(15), lb)
}

// TestAdmits: the engine's admission check agrees with what Minimise does.
func TestAdmits(t *testing.T) {
	p := &model.Problem{}
	for i := 0; i < 5; i++ { // 10 pairs
		p.Buffers = append(p.Buffers, model.Buffer{ID: string(rune('a' + i)), Start: 0, End: 2, Size: 3})
	}
	ok, why := Admits(p, Options{MaxPairs: 9})
	require.False(t, ok)
	require.Contains(t, why, "10 pairs")
	ok, why = Admits(p, Options{MaxPairs: 10})
	require.True(t, ok, why)
	ok, why = Admits(p, Options{MaxItems: 4})
	require.False(t, ok)
	require.Contains(t, why, "5 buffers")
	_, _, _, err := Minimise(context.Background(), p, nil, 0, Options{MaxItems: 4}, nil)
	require.ErrorContains(t, err, "budget of 4")
	ok, why = Admits(p, Options{MaxItems: 5})
	require.True(t, ok, why)
	ok, _ = Admits(&model.Problem{Buffers: []model.Buffer{{ID: "a", Start: 2, End: 1, Size: 5}}}, Options{})
	require.False(t, ok, "invalid input")
}
