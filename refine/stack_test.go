package refine

import (
	"context"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/exact/bnb"
	"github.com/optalloc/optalloc/formats"
	"github.com/optalloc/optalloc/heuristics"
	"github.com/optalloc/optalloc/internal/brute"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/verify"
)

// placeWith returns a place function for Stack that runs one planner.
func placeWith(name string) func(context.Context, *model.Problem) (*model.Plan, error) {
	pl, _ := heuristics.ByName(name)
	return pl.Plan
}

// textbook is greedy-textbook's plan of p.
func textbook(t *testing.T, p *model.Problem) *model.Plan {
	plan, err := placeWith("greedy-textbook")(context.Background(), p)
	require.NoError(t, err)
	return plan
}

// TestStackDeclines: the stack takes plain single-pool problems only.
func TestStackDeclines(t *testing.T) {
	v := int64(0)
	plain := func() *model.Problem {
		return &model.Problem{Buffers: []model.Buffer{{ID: "a", Start: 0, End: 2, Size: 4}, {ID: "b", Start: 1, End: 3, Size: 4}}}
	}
	for _, c := range []struct {
		name    string
		change  func(p *model.Problem)
		decline bool
	}{
		{"plain", func(*model.Problem) {}, false},
		{"a pin", func(p *model.Problem) { p.Buffers[0].Pin = &v }, true},
		{"an alignment", func(p *model.Problem) { p.Buffers[1].Align = 4 }, true},
		{"a pool alignment", func(p *model.Problem) { p.Pools = []model.Pool{{Name: model.DefaultPool, Align: 8}} }, true},
		{"two pools", func(p *model.Problem) { p.Pools = []model.Pool{{Name: "fast", Capacity: 4}, {Name: "slow"}} }, true},
		{"an alias", func(p *model.Problem) { p.Buffers[1].Alias = &model.Alias{Parent: "a"} }, true},
		{"a gap", func(p *model.Problem) { p.Buffers[0].Gaps = []model.Gap{{Start: 1, End: 2}} }, true},
		{"an elastic buffer", func(p *model.Problem) { p.Buffers[0].MaxSize = 8 }, true},
		{"a pool list", func(p *model.Problem) { p.Buffers[0].Pools = []string{model.DefaultPool} }, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := plain()
			c.change(p)
			why := StackDeclines(p)
			if c.decline {
				assert.NotEmpty(t, why)
				st, err := Stack(context.Background(), p, 0, 0, bnb.Options{}, Work, placeWith("firstfit-peak"), func(*model.Plan) {
					t.Fatal("a declined problem got a plan")
				})
				require.NoError(t, err)
				assert.Equal(t, why, st["declined"])
			} else {
				assert.Empty(t, why)
			}
		})
	}
}

// TestStackPlansValid: on random plain problems (tiny ones, perfect
// packings, chains), every plan the stack offers passes the verifier, is
// below the ceiling (greedy-textbook's peak) and below every plan offered
// before it, and is never below max-live; on tiny ones, never below the
// optimum brute force finds. The stack lowers some of them.
func TestStackPlansValid(t *testing.T) {
	rng := rand.New(rand.NewPCG(34, 1))
	lowered, atOptimum, tiny := 0, 0, 0
	for k := 0; k < 240; k++ {
		var p *model.Problem
		opt := int64(-1)
		switch k % 3 {
		case 0:
			p = brute.Random(rng, 3+rng.IntN(6), brute.RandomOptions{MaxSize: 2 + rng.Int64N(20), ZeroSize: 0.1})
			opt, _ = brute.Optimum(p)
		case 1:
			p, _ = brute.PerfectPacking(rng, 10+rng.Int64N(30), 20+rng.Int64N(80), 10+rng.IntN(50))
		default:
			p = brute.Chain(rng, 40+rng.IntN(200))
		}
		ml := p.ComputeSweep().MaxLive
		ceiling := textbook(t, p).Peak(p)
		last := ceiling
		st, err := Stack(context.Background(), p, ml, ceiling, bnb.Options{}, Work/8, placeWith("firstfit-peak"), func(pl *model.Plan) {
			require.Empty(t, verify.Check(p, pl), "instance %d", k)
			pk := pl.Peak(p)
			require.Less(t, pk, last, "instance %d", k)
			require.GreaterOrEqual(t, pk, ml, "instance %d", k)
			if opt >= 0 {
				require.GreaterOrEqual(t, pk, opt, "instance %d", k)
			}
			last = pk
		})
		require.NoError(t, err, "instance %d", k)
		require.GreaterOrEqual(t, st["windows"], 1, "instance %d", k)
		if last < ceiling {
			lowered++
			assert.Equal(t, last, st["peak"], "instance %d", k)
		}
		if opt >= 0 {
			tiny++
			if last == opt {
				atOptimum++
			}
		}
	}
	t.Logf("lowered %d of 240; tiny at their optimum after the stack: %d of %d", lowered, atOptimum, tiny)
	assert.Positive(t, lowered)
}

// TestStackPanGu: on PanGu-α 2.6B (shared benchmarks) the textbook
// greedy's plan is one 41 943 040-byte buffer above max-live, and the stack
// reaches max-live.
func TestStackPanGu(t *testing.T) {
	const file = "../../shared/benchmarks/traces/mindspore-pangu_2.6B.csv"
	if _, err := os.Stat(file); err != nil {
		t.Skip("shared benchmarks absent: ", file)
	}
	p, err := formats.Load(file)
	require.NoError(t, err)
	ml := p.ComputeSweep().MaxLive
	ceiling := textbook(t, p).Peak(p)
	require.Equal(t, ml+41943040, ceiling)
	var best *model.Plan
	place := func(ctx context.Context, q *model.Problem) (*model.Plan, error) {
		a, err := placeWith("firstfit-peak")(ctx, q)
		if err != nil {
			return nil, err
		}
		b, err := placeWith("greedy-textbook")(ctx, q)
		if err != nil || b.Peak(q) >= a.Peak(q) {
			return a, err
		}
		return b, nil
	}
	st, err := Stack(context.Background(), p, ml, ceiling, bnb.Options{}, Work, place, func(pl *model.Plan) { best = pl })
	require.NoError(t, err)
	require.NotNil(t, best, "%v", st)
	require.Empty(t, verify.Check(p, best))
	assert.Equal(t, ml, best.Peak(p), "%v", st)
}
