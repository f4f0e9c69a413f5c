package heuristics

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/verify"
)

// TestPortfolioOnPlan: every reported plan is valid and lower than the
// one before, and the returned plan is no higher than the last reported.
func TestPortfolioOnPlan(t *testing.T) {
	p := transformerTrace(400, 3)
	for _, threads := range []int{1, 2} {
		var peaks []int64
		plan, _, err := Portfolio(context.Background(), p, PortfolioOptions{Threads: threads,
			OnPlan: func(pl *model.Plan, name string) {
				require.Empty(t, verify.Check(p, pl), name)
				peaks = append(peaks, pl.Peak(p))
			}})
		require.NoError(t, err)
		require.NotEmpty(t, peaks)
		for i := 1; i < len(peaks); i++ {
			assert.Less(t, peaks[i], peaks[i-1])
		}
		assert.LessOrEqual(t, plan.Peak(p), peaks[len(peaks)-1])
	}
}

// TestTooDense counts pairs of buffers alive together against denseLimit.
func TestTooDense(t *testing.T) {
	for _, tc := range []struct {
		n     int
		dense bool
	}{{14000, false}, {15000, true}} { // n²/2 pairs: 9.8·10⁷, 1.125·10⁸
		p := &model.Problem{Buffers: make([]model.Buffer, tc.n)}
		for i := range p.Buffers {
			p.Buffers[i] = model.Buffer{ID: fmt.Sprint(i), Start: int64(i % 7), End: 10, Size: 1}
		}
		assert.Equal(t, tc.dense, tooDense(p), "%d buffers", tc.n)
	}
}
