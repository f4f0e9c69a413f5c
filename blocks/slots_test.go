package blocks

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/verify"
)

func TestEqualSlots(t *testing.T) {
	// three buffers live together at step 1; sizes 10, 30, 20
	p := &model.Problem{Buffers: []model.Buffer{
		{ID: "a", Start: 0, End: 2, Size: 10},
		{ID: "b", Start: 1, End: 3, Size: 30},
		{ID: "c", Start: 1, End: 4, Size: 20},
		{ID: "d", Start: 3, End: 5, Size: 5},
	}}
	res, err := Solve(context.Background(), p, Options{Method: "equal_slots"})
	require.NoError(t, err)
	require.NotNil(t, res.Plan)
	assert.Equal(t, 3, res.BlocksUsed, "the fewest slots: three buffers live at step 1")
	for _, b := range res.Plan.Blocks {
		assert.Equal(t, int64(30), b.Size, "every slot holds the largest buffer")
	}
	assert.Equal(t, int64(90), res.TotalBytes)
	assert.Empty(t, verify.BlockCheck(p, res.Plan.Sizes(), res.Plan.Assign))
	auto, err := Solve(context.Background(), p, Options{})
	require.NoError(t, err)
	assert.Less(t, auto.TotalBytes, res.TotalBytes, "auto never picks equal slots (another objective)")
}

func TestInUse(t *testing.T) {
	p := &model.Problem{Buffers: []model.Buffer{
		{ID: "a", Start: 0, End: 2, Size: 10},
		{ID: "b", Start: 1, End: 3, Size: 30},
		{ID: "c", Start: 3, End: 4, Size: 20},
		{ID: "z", Start: 1, End: 2, Size: 0}, // no block
		{ID: "e", Start: 6, End: 7, Size: 8},
	}}
	bp := &BlockPlan{Blocks: []Block{{0, 30}, {1, 30}}, Assign: []int{0, 1, 0, -1, 1}}
	require.Empty(t, verify.BlockCheck(p, bp.Sizes(), bp.Assign))
	assert.Equal(t, []StepCount{{0, 1, 1}, {1, 2, 2}, {2, 4, 1}, {4, 6, 0}, {6, 7, 1}}, bp.InUse(p))
	assert.Empty(t, (&BlockPlan{Assign: []int{-1}}).InUse(&model.Problem{Buffers: []model.Buffer{{ID: "z", End: 1}}}))
}
