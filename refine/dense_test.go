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
)

// TestTooDense: TooDense says what Refine's first step finds: a chain of
// 5 000 ops, which the refinement lowers, is not too dense; PanGu-α 2.6B
// from freelist's plan, where Refine stops at once with "too dense", is;
// no attempts or a pin at the peak is not.
func TestTooDense(t *testing.T) {
	plan := func(t *testing.T, p *model.Problem) *model.Plan {
		pl, ok := heuristics.ByName("freelist")
		require.True(t, ok)
		plan, err := pl.Plan(context.Background(), p)
		require.NoError(t, err)
		return plan
	}
	chain := brute.Chain(rand.New(rand.NewPCG(2, 1)), 5000)
	pin := int64(0)
	pinned := &model.Problem{Buffers: []model.Buffer{{ID: "a", End: 2, Size: 8, Pin: &pin}, {ID: "b", Start: 1, End: 3, Size: 4}}}
	tests := []struct {
		name  string
		p     *model.Problem
		b     Budget
		dense bool
	}{
		{"chain of 5 000 ops", chain, DefaultBudget, false},
		{"no attempts", chain, Budget{Work: Work}, false},
		{"a pin at the peak", pinned, DefaultBudget, false},
		{"no buffers", &model.Problem{}, DefaultBudget, false},
	}
	const pangu = "../../shared/benchmarks/traces/mindspore-pangu_2.6B.csv"
	if _, err := os.Stat(pangu); err == nil {
		p, err := formats.Load(pangu)
		require.NoError(t, err)
		tests = append(tests, struct {
			name  string
			p     *model.Problem
			b     Budget
			dense bool
		}{"PanGu-α 2.6B", p, DefaultBudget, true})
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pl := &model.Plan{}
			if len(tc.p.Buffers) > 0 {
				pl = plan(t, tc.p)
			}
			assert.Equal(t, tc.dense, TooDense(tc.p, pl, tc.b))
			if len(tc.p.Buffers) == 0 || len(tc.b.Attempts) == 0 {
				return
			}
			st, err := Refine(context.Background(), tc.p, pl, tc.p.ComputeSweep().MaxLive, bnb.Options{}, Budget{Work: tc.b.Work, Attempts: tc.b.Attempts[:1]}, func(*model.Plan) {})
			require.NoError(t, err)
			assert.Equal(t, tc.dense, st["stopped"] == "the windows at the peak are too dense to search", "%v", st)
		})
	}
}
