package blocks_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/blocks"
	"github.com/optalloc/optalloc/formats/graph"
)

// Two serial models from a .graph.json, sharing one weight (same hash):
// the block pool is shared, the weight is stored once, and one pool costs
// less than one pool per model (Report.Separate holds each model alone).
const twoModels = `{"name": "pair", "alignment": 1, "schedule": "serial", "models": [
 {"name": "enc", "tensors": [
   {"name": "x", "bytes": 4000, "kind": "input"},
   {"name": "w", "bytes": 500, "kind": "weight", "hash": "sha256:same"},
   {"name": "h", "bytes": 3000},
   {"name": "y", "bytes": 1000, "kind": "output"}],
  "ops": [
   {"name": "mm", "type": "MatMul", "inputs": ["x", "w"], "outputs": ["h"]},
   {"name": "act", "type": "Tanh", "inputs": ["h"], "outputs": ["y"]}]},
 {"name": "dec", "tensors": [
   {"name": "x", "bytes": 2000, "kind": "input"},
   {"name": "w", "bytes": 500, "kind": "weight", "hash": "sha256:same"},
   {"name": "h", "bytes": 3500},
   {"name": "y", "bytes": 800, "kind": "output"}],
  "ops": [
   {"name": "mm", "type": "MatMul", "inputs": ["x", "w"], "outputs": ["h"]},
   {"name": "act", "type": "Tanh", "inputs": ["h"], "outputs": ["y"]}]}]}`

func TestTwoModelGraphSharesOnePool(t *testing.T) {
	p, rep, err := graph.Read(strings.NewReader(twoModels), "pair.graph.json")
	require.NoError(t, err)
	require.NotEmpty(t, rep.SharedWeights, "the weight with the same hash is stored once")
	opts := blocks.Options{TimeLimit: time.Second}
	shared, err := blocks.Solve(context.Background(), p, opts)
	require.NoError(t, err)
	require.Equal(t, blocks.Optimal, shared.Status)
	var separate int64
	require.Len(t, rep.Separate, 2)
	for _, sp := range rep.Separate {
		r, err := blocks.Solve(context.Background(), sp, opts)
		require.NoError(t, err)
		separate += r.TotalBytes
	}
	t.Logf("one pool %d bytes in %d blocks; two pools %d bytes", shared.TotalBytes, shared.BlocksUsed, separate)
	assert.Less(t, shared.TotalBytes, separate)

	s, err := blocks.NewSchedule(p, shared.Plan)
	require.NoError(t, err)
	require.Len(t, s.Models, 2)
	assert.Equal(t, "enc", s.Models[0].Model)
	assert.Equal(t, "dec", s.Models[1].Model)
	assert.NotEmpty(t, s.Models[1].Reused, "dec reuses enc's blocks")
	assert.Empty(t, s.Verify(p, shared.Plan))
	weights := 0
	for _, b := range p.Buffers {
		if b.Kind == "weight" {
			weights++
		}
	}
	assert.Equal(t, 1, weights, "one weight buffer for both models")
}
