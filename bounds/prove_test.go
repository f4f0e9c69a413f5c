package bounds

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/model"
)

// TestProveBoundGapsBySAT: the branch-and-bound declines a problem with a
// partial gap (its model is conservative there); the SAT prover must still
// run to the end and prove the bound above max-live.
func TestProveBoundGapsBySAT(t *testing.T) {
	p := &model.Problem{Buffers: []model.Buffer{
		{ID: "a", Start: 1, End: 3, Size: 4, Gaps: []model.Gap{{Start: 1, End: 3, Window: true, Lo: 1, Hi: 3}}},
		{ID: "c", Start: 1, End: 4, Size: 4},
	}}
	require.Equal(t, int64(6), p.ComputeSweep().MaxLive)
	b, err := Prove(context.Background(), p, Options{TimeLimit: 20 * time.Second})
	require.NoError(t, err)
	assert.Equal(t, int64(7), b.LowerBound)
	assert.Equal(t, "sat", b.Method)
}
