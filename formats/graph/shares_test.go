package graph

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/heuristics"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/verify"
)

// TestSharedScratch: scratch buffers of one op linked by "shares" take the
// bytes of the largest: a chain, largest first, each at delta 0 in the one
// before; a buffer outside the group keeps bytes of its own.
func TestSharedScratch(t *testing.T) {
	src := `{"alignment": 1, "tensors": [{"name": "x", "bytes": 4, "kind": "input"}, {"name": "y", "bytes": 4, "kind": "output"}],
	 "ops": [{"name": "conv", "type": "Conv", "inputs": ["x"], "outputs": ["y"],
	   "scratch": [{"name": "im2col", "size": 100}, {"name": "gemm", "size": 300, "shares": "im2col"},
	     {"name": "acc", "size": 50, "shares": "gemm"}, {"name": "own", "size": 7}]}]}`
	p, _ := build(t, src)
	assert.Nil(t, bufOf(t, p, "conv:gemm").Alias)
	assert.Equal(t, &model.Alias{Parent: "conv:gemm"}, bufOf(t, p, "conv:im2col").Alias)
	assert.Equal(t, &model.Alias{Parent: "conv:im2col"}, bufOf(t, p, "conv:acc").Alias)
	assert.Nil(t, bufOf(t, p, "conv:own").Alias)
	// x, y and scratch at step 0: 4 + 4 + 300 + 7, not 4 + 4 + 457
	assert.Equal(t, int64(315), p.ComputeSweep().MaxLive)
	pl, _ := heuristics.ByName("greedy-size")
	plan, err := pl.Plan(context.Background(), p)
	require.NoError(t, err)
	require.Empty(t, verify.Check(p, plan))
	assert.Equal(t, int64(315), plan.Peak(p))
	off := map[string]int64{}
	for i, b := range p.Buffers {
		off[b.ID] = plan.Placements[i].Offset
	}
	assert.Equal(t, off["conv:gemm"], off["conv:im2col"])
	assert.Equal(t, off["conv:gemm"], off["conv:acc"])

	// unnamed scratch is shared by its default name; several models
	two := `{"alignment": 1, "models": [{"name": "m", "tensors": [{"name": "x", "bytes": 4, "kind": "input"}, {"name": "y", "bytes": 4, "kind": "output"}],
	 "ops": [{"name": "f", "type": "F", "inputs": ["x"], "outputs": ["y"], "scratch": [{"size": 10}, {"size": 20, "shares": "scratch0"}]}]},
	 {"name": "n", "tensors": [{"name": "x", "bytes": 4, "kind": "input"}, {"name": "y", "bytes": 4, "kind": "output"}],
	 "ops": [{"name": "f", "type": "F", "inputs": ["x"], "outputs": ["y"]}]}]}`
	p, _ = build(t, two)
	assert.Equal(t, &model.Alias{Parent: "m/f:scratch1"}, bufOf(t, p, "m/f:scratch0").Alias)
}

func TestSharedScratchErrors(t *testing.T) {
	op := func(scratch string) string {
		return "{\"alignment\": 1, \"tensors\": [{\"name\": \"x\", \"bytes\": 4, \"kind\": \"input\"}, {\"name\": \"y\", \"bytes\": 4, \"kind\": \"output\"}],\n" +
			"\"ops\": [\n{\"name\": \"f\", \"type\": \"F\", \"inputs\": [\"x\"], \"outputs\": [\"y\"], \"scratch\": [" + scratch + "]}]}"
	}
	for _, c := range []struct{ scratch, msg string }{
		{`{"name": "a", "size": 4, "shares": "b"}`, `op "f" (F): scratch a shares "b", which is not a scratch buffer of this op`},
		{`{"name": "a", "size": 4, "shares": "a"}`, `scratch a shares itself`},
		{`{"name": "a", "min_size": 4, "max_size": 8}, {"name": "b", "size": 4, "shares": "a"}`, `scratch a: shared scratch needs fixed sizes`},
	} {
		_, _, err := Read(strings.NewReader(op(c.scratch)), "t.graph.json")
		require.Error(t, err, c.scratch)
		var ie *model.InputError
		require.True(t, errors.As(err, &ie), "%T", err)
		assert.Equal(t, "t.graph.json:3: "+strings.SplitN(err.Error(), ": ", 2)[1], err.Error())
		assert.Contains(t, err.Error(), c.msg)
		assert.NotContains(t, err.Error(), "\n")
	}
}

// TestCodeStoredOnce: code tensors are constants like weights: resident
// over the whole timeline, stored once across models when their hash (or
// data) is the same, never merged with a weight of the same hash, and no
// op may produce one.
func TestCodeStoredOnce(t *testing.T) {
	model1 := func(name, hash string) string {
		return `{"name": "` + name + `", "tensors": [{"name": "x", "bytes": 40, "kind": "input"},
		 {"name": "cmd", "bytes": 64, "kind": "code", "hash": "` + hash + `"},
		 {"name": "w", "bytes": 64, "kind": "weight", "hash": "npu-stream-1"},
		 {"name": "y", "bytes": 10, "kind": "output"}],
		 "ops": [{"name": "npu", "type": "ethos-u", "inputs": ["x", "cmd", "w"], "outputs": ["y"]}]}`
	}
	src := `{"alignment": 1, "models": [` + model1("a", "npu-stream-1") + `,` + model1("b", "npu-stream-1") + `]}`
	p, r := build(t, src)
	code := bufOf(t, p, "a/cmd")
	assert.Equal(t, model.Code, code.Kind)
	assert.Equal(t, [2]int64{0, 2}, [2]int64{code.Start, code.End}, "resident over both models")
	_, dup := p.Index()["b/cmd"]
	assert.False(t, dup, "b's identical code is a's")
	assert.Equal(t, model.Weight, bufOf(t, p, "a/w").Kind, "a weight of the same hash stays apart")
	assert.Len(t, r.SharedWeights, 2)
	assert.Equal(t, int64(128), r.WeightBytesSaved)
	assert.Equal(t, int64(128), r.WeightBytes, "one code stream and one weight stored")
	// reloaded and different: each model's code lives while it runs
	p, _ = build(t, reloading(`{"alignment": 1, "models": [`+model1("m1", "s1")+`,`+model1("m2", "s2")+`]}`))
	c1, c2 := bufOf(t, p, "m1/cmd"), bufOf(t, p, "m2/cmd")
	assert.Equal(t, [4]int64{0, 1, 1, 2}, [4]int64{c1.Start, c1.End, c2.Start, c2.End})

	bad := "{\"alignment\": 1, \"tensors\": [{\"name\": \"x\", \"bytes\": 4, \"kind\": \"input\"},\n{\"name\": \"c\", \"bytes\": 4, \"kind\": \"code\"}],\n" +
		"\"ops\": [{\"name\": \"f\", \"type\": \"F\", \"inputs\": [\"x\"], \"outputs\": [\"c\"]}]}"
	_, _, err := Read(strings.NewReader(bad), "t.graph.json")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `produces "c", which is a graph code`)
}
