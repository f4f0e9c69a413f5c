package sat

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/internal/brute"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/verify"
)

// variants are the option sets every exact test runs under: each technique
// off in turn must not change any answer.
var variants = []struct {
	name string
	opt  Options
}{
	{"all", Options{}},
	{"no-cover", Options{NoCover: true}},
	{"no-symmetry", Options{NoSymmetry: true}},
	{"no-domain-filter", Options{NoDomainFilter: true}},
	{"no-pin-filter", Options{NoPinFilter: true}},
	{"no-probe", Options{NoProbe: true}},
	{"none", Options{NoCover: true, NoSlackCover: true, NoSymmetry: true, NoDomainFilter: true, NoPinFilter: true, NoProbe: true}},
}

var randomShapes = []struct {
	name string
	opt  brute.RandomOptions
}{
	{"plain", brute.RandomOptions{}},
	{"zero-sizes", brute.RandomOptions{ZeroSize: 0.2}},
	{"aligned", brute.RandomOptions{Align: 0.4, MaxSize: 9}},
	{"pinned", brute.RandomOptions{Pin: 0.2}},
	{"mixed", brute.RandomOptions{ZeroSize: 0.1, Align: 0.3, Pin: 0.15, MaxSize: 12}},
	{"pool-aligned", brute.RandomOptions{PoolAlign: 1, Align: 0.2, Pin: 0.1, MaxSize: 9}},
}

func requireValid(t *testing.T, p *model.Problem, pl *model.Plan) {
	t.Helper()
	require.NotNil(t, pl)
	require.Empty(t, verify.Check(p, pl), "plan must pass verify.Check")
}

// requireOptimum checks a minimisation of instance k against its
// brute-force optimum want (negative: conflicting pins, so an error): the
// plan and every plan offered verify, and the peak and the proven bound
// equal want.
func requireOptimum(t *testing.T, k int, p *model.Problem, want int64, pl *model.Plan, lb int64, err error, offered []*model.Plan) {
	t.Helper()
	if want < 0 { // conflicting pins: no packing
		require.Error(t, err, "instance %d", k)
		return
	}
	require.NoError(t, err)
	requireValid(t, p, pl)
	require.Equal(t, want, pl.Peak(p), "instance %d: %+v", k, p.Buffers)
	require.Equal(t, want, lb, "lower bound of instance %d", k)
	for _, q := range offered {
		requireValid(t, p, q)
	}
}

// TestMinimiseEqualsBrute: on random tiny instances the SAT optimum equals
// the brute-force optimum, every plan verifies, and the returned lower bound
// equals the peak (the last refutation is a proof).
func TestMinimiseEqualsBrute(t *testing.T) {
	ctx := context.Background()
	for _, shape := range randomShapes {
		for _, v := range variants {
			t.Run(shape.name+"/"+v.name, func(t *testing.T) {
				rng := rand.New(rand.NewPCG(1, uint64(len(shape.name))))
				for k := 0; k < 30; k++ {
					n := 3 + rng.IntN(brute.MaxBuffers-2)
					p := brute.Random(rng, n, shape.opt)
					want, _ := brute.Optimum(p)
					var improved []*model.Plan
					pl, lb, _, err := Minimise(ctx, p, nil, 0, v.opt, func(q *model.Plan) { improved = append(improved, q) })
					requireOptimum(t, k, p, want, pl, lb, err, improved)
				}
			})
		}
	}
}

// TestDecideCrossCheck: Decide is Feasible at the brute-force optimum (with
// a verified plan) and Infeasible one byte below, which brute force confirms.
func TestDecideCrossCheck(t *testing.T) {
	ctx := context.Background()
	for _, shape := range randomShapes {
		t.Run(shape.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(7, uint64(len(shape.name))))
			for k := 0; k < 40; k++ {
				p := brute.Random(rng, 3+rng.IntN(brute.MaxBuffers-2), shape.opt)
				opt, _ := brute.Optimum(p)
				if opt <= 0 {
					continue
				}
				pl, s, st, err := Decide(ctx, p, opt, Options{NoFirstFit: k%2 == 0})
				require.NoError(t, err)
				require.Equal(t, Feasible, s, "instance %d at its optimum %d: %s %+v", k, opt, st.Reason, p.Buffers)
				requireValid(t, p, pl)
				require.LessOrEqual(t, pl.Peak(p), opt)
				_, s, st, err = Decide(ctx, p, opt-1, Options{})
				require.NoError(t, err)
				require.Equal(t, Infeasible, s, "instance %d below its optimum: %s", k, st.Reason)
			}
		})
	}
}

// TestPerfectPackings: guillotine cuts of a rectangle are packed at exactly
// the rectangle's height, the known optimum (= max-live).
func TestPerfectPackings(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		width, height int64
		pieces        int
	}{
		{12, 16, 20}, {20, 24, 30}, {30, 32, 40},
	}
	for _, c := range cases {
		for seed := uint64(1); seed <= 2; seed++ {
			t.Run(fmt.Sprintf("%dx%d/%d/seed%d", c.width, c.height, c.pieces, seed), func(t *testing.T) {
				p, _ := brute.PerfectPacking(rand.New(rand.NewPCG(seed, 99)), c.width, c.height, c.pieces)
				pl, lb, st, err := Minimise(ctx, p, nil, 0, Options{}, nil)
				require.NoError(t, err)
				requireValid(t, p, pl)
				assert.Equal(t, c.height, pl.Peak(p), "stats %+v", st)
				assert.Equal(t, c.height, lb)
				pl, s, _, err := Decide(ctx, p, c.height, Options{NoFirstFit: true})
				require.NoError(t, err)
				require.Equal(t, Feasible, s)
				requireValid(t, p, pl)
			})
		}
	}
}

// TestGapsAndAliasesExact: gaps and an alias outliving its root are
// encoded exactly: b2 lives in b1's absent window and m outlives r, the
// optimum is max-live (8), Decide proves nothing fits in 7 and Minimise's
// bound is the optimum. (This problem used to be placed conservatively,
// at 12 with no proof.)
func TestGapsAndAliasesExact(t *testing.T) {
	ctx := context.Background()
	p := &model.Problem{Buffers: []model.Buffer{
		{ID: "a", Start: 0, End: 10, Size: 4},
		{ID: "b1", Start: 0, End: 10, Size: 4, Gaps: []model.Gap{{Start: 2, End: 8}}},
		{ID: "b2", Start: 3, End: 7, Size: 4},
		{ID: "r", Start: 10, End: 12, Size: 8},
		{ID: "m", Start: 11, End: 14, Size: 2, Alias: &model.Alias{Parent: "r", Delta: 4}},
	}}
	pl, s, st, err := Decide(ctx, p, 8, Options{NoFirstFit: true})
	require.NoError(t, err)
	require.Equal(t, Feasible, s, st.Reason)
	requireValid(t, p, pl)
	_, s, _, err = Decide(ctx, p, 7, Options{})
	require.NoError(t, err)
	assert.Equal(t, Infeasible, s)
	pl, lb, _, err := Minimise(ctx, p, nil, 0, Options{}, nil)
	require.NoError(t, err)
	requireValid(t, p, pl)
	assert.Equal(t, int64(8), pl.Peak(p))
	assert.Equal(t, int64(8), lb)
	// Sizes rounded up remain a restriction: no proof from them.
	_, s, st, err = Decide(ctx, p, 7, Options{RoundUp: 4, NoFirstFit: true})
	require.NoError(t, err)
	assert.Equal(t, Unknown, s)
	assert.Contains(t, st.Reason, "no proof")
}

// TestAliasCongruence: an aligned alias at an odd delta constrains its
// root's offset by a congruence, not by the alignment itself.
func TestAliasCongruence(t *testing.T) {
	p := &model.Problem{Buffers: []model.Buffer{
		{ID: "x", Start: 0, End: 4, Size: 3},
		{ID: "r", Start: 0, End: 4, Size: 8},
		{ID: "m", Start: 1, End: 3, Size: 2, Align: 4, Alias: &model.Alias{Parent: "r", Delta: 1}},
	}}
	pl, lb, _, err := Minimise(context.Background(), p, nil, 0, Options{}, nil)
	require.NoError(t, err)
	requireValid(t, p, pl)
	// r must sit at 3 mod 4: x below r at [0,3) puts r at 3, peak 11.
	assert.Equal(t, int64(11), pl.Peak(p))
	assert.Equal(t, int64(11), lb)
}

// TestRefusal: an encoding over budget is refused, never built.
func TestRefusal(t *testing.T) {
	p, _ := brute.PerfectPacking(rand.New(rand.NewPCG(3, 3)), 20, 64, 30)
	pl, s, st, err := Decide(context.Background(), p, 64, Options{MaxClauses: 100, NoFirstFit: true})
	require.NoError(t, err)
	assert.Equal(t, Unknown, s)
	assert.Nil(t, pl)
	assert.Contains(t, st.Reason, "budget")
	assert.Zero(t, st.Clauses)
}

// TestCancel: a cancelled context gives what is known without a search:
// the bound, no error. Without wall time (issue 44): the context ends
// before the call (a search that ignored it would hit the test binary's
// timeout); how soon a cancel mid-search returns is for benchmarks.
func TestCancel(t *testing.T) {
	p, _ := brute.PerfectPacking(rand.New(rand.NewPCG(5, 5)), 60, 256, 60)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, lb, st, err := Minimise(ctx, p, nil, 0, Options{}, nil)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, lb, int64(256))
	assert.GreaterOrEqual(t, st.Calls, 0)
	// An already cancelled context: Decide answers Unknown and says why.
	ctx, cancel = context.WithCancel(context.Background())
	cancel()
	pl, s, st, err := Decide(ctx, p, 256, Options{})
	require.NoError(t, err)
	assert.Nil(t, pl)
	assert.Equal(t, Unknown, s)
	assert.Contains(t, st.Reason, "stopped")
}

// TestBadInput: invalid problems are errors naming the buffer.
func TestBadInput(t *testing.T) {
	p := &model.Problem{Buffers: []model.Buffer{{ID: "neg", Start: 0, End: 1, Size: -1}}}
	_, _, _, err := Decide(context.Background(), p, 10, Options{})
	require.ErrorContains(t, err, `"neg"`)
	p = &model.Problem{Buffers: []model.Buffer{{ID: "ok", Start: 0, End: 1, Size: 1}}}
	_, _, _, err = Decide(context.Background(), p, 0, Options{})
	require.Error(t, err)
}

// TestRoundUp: sizes rounded up give valid plans at most one rounding unit
// per buffer above the optimum, and never a proof.
func TestRoundUp(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for k := 0; k < 20; k++ {
		p := brute.Random(rng, 3+rng.IntN(brute.MaxBuffers-2), brute.RandomOptions{MaxSize: 16})
		opt, _ := brute.Optimum(p)
		pl, lb, st, err := Minimise(context.Background(), p, nil, 0, Options{RoundUp: 4}, nil)
		require.NoError(t, err)
		requireValid(t, p, pl)
		assert.GreaterOrEqual(t, pl.Peak(p), opt)
		assert.LessOrEqual(t, lb, opt)
		assert.Contains(t, st.Reason, "rounded up")
		_, s, _, err := Decide(context.Background(), p, opt-1, Options{RoundUp: 4})
		require.NoError(t, err)
		assert.NotEqual(t, Infeasible, s)
	}
	p := &model.Problem{Buffers: []model.Buffer{{ID: "pinned", Start: 0, End: 1, Size: 3, Pin: ptr(2)}}}
	_, _, _, err := Decide(context.Background(), p, 10, Options{RoundUp: 4})
	require.ErrorContains(t, err, `"pinned"`)
}

func ptr(v int64) *int64 { return &v }

// TestHugeAxisRefusedFast: a byte-granular problem with a huge height is
// refused in O(n), not enumerated.
func TestHugeAxisRefusedFast(t *testing.T) {
	p := &model.Problem{}
	for i := 0; i < 50; i++ {
		p.Buffers = append(p.Buffers, model.Buffer{ID: fmt.Sprint(i), Start: int64(i), End: int64(i + 3), Size: 1_000_000_007 + int64(i)})
	}
	_, s, st, err := Decide(context.Background(), p, 1<<40, Options{NoFirstFit: true})
	require.NoError(t, err)
	assert.Equal(t, Unknown, s)
	assert.Contains(t, st.Reason, "budget")
	assert.Zero(t, st.Clauses, "refused before any clause is built (no wall time, issue 44)")
}

// TestPinNearMaxInt: a pin near 2^63 is neither enumerated nor crawled to.
func TestPinNearMaxInt(t *testing.T) {
	pin := int64(9223372036854775700)
	p := &model.Problem{Buffers: []model.Buffer{
		{ID: "a", Start: 0, End: 2, Size: 100, Pin: &pin},
		{ID: "b", Start: 1, End: 3, Size: 5},
	}}
	// No time limit (issue 44): crawling to the pin would hit the test
	// binary's timeout instead of a wall-clock assertion.
	ctx := context.Background()
	pl, lb, _, err := Minimise(ctx, p, nil, 0, Options{}, nil)
	require.NoError(t, err)
	requireValid(t, p, pl)
	assert.Equal(t, pin+100, pl.Peak(p))
	assert.Equal(t, pin+100, lb)
	lb, how, _, err := ProveLowerBound(ctx, p, Options{})
	require.NoError(t, err)
	assert.Equal(t, pin+100, lb, how)
	pl, s, _, err := Decide(ctx, p, pin+100, Options{})
	require.NoError(t, err)
	assert.Equal(t, Feasible, s, "by first fit")
	requireValid(t, p, pl)
	_, s, st, err := Decide(ctx, p, pin+100, Options{NoFirstFit: true})
	require.NoError(t, err)
	assert.Equal(t, Unknown, s)
	assert.Contains(t, st.Reason, "budget")
	_, s, _, err = Decide(ctx, p, pin+99, Options{})
	require.NoError(t, err)
	assert.Equal(t, Infeasible, s)
}

// TestUnsupportedAndCapacity: a buffer barred from pool 0 gives Unknown
// (not an error, so a race goes on); plans above pool 0's capacity are never
// offered.
func TestUnsupportedAndCapacity(t *testing.T) {
	ctx := context.Background()
	p := &model.Problem{
		Pools: []model.Pool{{Name: "fast", Capacity: 8}, {Name: "slow"}},
		Buffers: []model.Buffer{
			{ID: "a", Start: 0, End: 2, Size: 4},
			{ID: "b", Start: 1, End: 3, Size: 4, Pools: []string{"slow"}},
		},
	}
	_, s, st, err := Decide(ctx, p, 8, Options{})
	require.NoError(t, err)
	assert.Equal(t, Unknown, s)
	assert.Contains(t, st.Reason, `"b"`)
	pl, lb, _, err := Minimise(ctx, p, nil, 0, Options{}, nil)
	require.NoError(t, err)
	assert.Nil(t, pl)
	assert.Equal(t, int64(8), lb)
	_, how, _, err := ProveLowerBound(ctx, p, Options{})
	require.NoError(t, err)
	assert.Contains(t, how, "single pool")

	// Pool 0 holds 8 bytes; three 4-byte buffers live together: no plan.
	p = &model.Problem{
		Pools: []model.Pool{{Name: "sram", Capacity: 8}},
		Buffers: []model.Buffer{
			{ID: "x", Start: 0, End: 2, Size: 4},
			{ID: "y", Start: 0, End: 2, Size: 4},
			{ID: "z", Start: 0, End: 2, Size: 4},
		},
	}
	offered := 0
	pl, lb, _, err = Minimise(ctx, p, nil, 0, Options{}, func(*model.Plan) { offered++ })
	require.NoError(t, err)
	assert.Nil(t, pl)
	assert.Zero(t, offered)
	assert.Equal(t, int64(12), lb)
	_, s, _, err = Decide(ctx, p, 0, Options{})
	require.NoError(t, err)
	assert.Equal(t, Infeasible, s)
}
