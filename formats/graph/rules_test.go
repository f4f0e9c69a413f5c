package graph

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/model"
)

func build(t *testing.T, src string) (*model.Problem, *Report) {
	t.Helper()
	p, r, err := Read(strings.NewReader(src), "t.graph.json")
	require.NoError(t, err)
	require.NoError(t, p.Validate())
	return p, r
}

func bufOf(t *testing.T, p *model.Problem, id string) model.Buffer {
	t.Helper()
	i, ok := p.Index()[id]
	require.True(t, ok, "no buffer %q", id)
	return p.Buffers[i]
}

type life struct {
	id         string
	start, end int64
	size       int64
}

func TestLiveness(t *testing.T) {
	// x -> op0 -> a -> op1 -> b ; op2(a, b) -> c ; d is dead; w weight.
	const g = `{"alignment": 1, %s "tensors": [
	  {"name": "x", "shape": [1, 4], "dtype": "float32", "kind": "input"},
	  {"name": "y", "shape": [2], "dtype": "int8", "kind": "input"},
	  {"name": "w", "shape": [4], "dtype": "float16", "kind": "weight"},
	  {"name": "a", "shape": [1, 4], "dtype": "float32"},
	  {"name": "b", "bytes": 10},
	  {"name": "d", "shape": [3], "dtype": "int64"},
	  {"name": "c", "shape": [5], "dtype": "float32", "kind": "output"},
	  {"name": "unused", "shape": [5], "dtype": "float32"}],
	 "ops": [
	  {"name": "op0", "type": "Mul", "inputs": ["x", "w"], "outputs": ["a", "d"]},
	  {"name": "op1", "type": "Relu", "inputs": ["a", "y"], "outputs": ["b"]},
	  {"name": "op2", "type": "Add", "inputs": ["a", "b"], "outputs": ["c"]},
	  {"name": "op3", "type": "Neg", "inputs": ["c"], "outputs": []}]}`
	tests := []struct {
		name     string
		liveness string
		want     []life
	}{
		{"defaults", ``, []life{
			{"x", 0, 1, 16}, {"y", 0, 2, 2}, {"w", 0, 4, 8}, {"a", 0, 3, 16}, {"b", 1, 3, 10},
			{"d", 0, 1, 24}, {"c", 2, 4, 20}}},
		{"inputs from first use", `"liveness": {"inputs_from_start": false},`, []life{
			{"x", 0, 1, 16}, {"y", 1, 2, 2}, {"c", 2, 4, 20}}},
		{"outputs freed after last use", `"liveness": {"outputs_to_end": false},`, []life{
			{"c", 2, 4, 20}, {"y", 0, 2, 2}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, _ := build(t, strings.Replace(g, "%s", tc.liveness, 1))
			for _, w := range tc.want {
				b := bufOf(t, p, w.id)
				assert.Equal(t, [3]int64{w.start, w.end, w.size}, [3]int64{b.Start, b.End, b.Size}, w.id)
			}
			assert.NotContains(t, p.Index(), "unused", "a tensor nobody produces or reads gets no buffer")
		})
	}
}

func TestOutputNotReadLivesToItsModelsEnd(t *testing.T) {
	p, _ := build(t, `{"alignment": 1, "tensors": [
	  {"name": "x", "bytes": 4, "kind": "input"}, {"name": "o", "bytes": 4, "kind": "output"},
	  {"name": "a", "bytes": 4}, {"name": "b", "bytes": 4}],
	 "ops": [{"name": "f", "type": "F", "inputs": ["x"], "outputs": ["o"]},
	  {"name": "g", "type": "G", "inputs": ["x"], "outputs": ["a"]},
	  {"name": "h", "type": "H", "inputs": ["a"], "outputs": ["b"]}]}`)
	o := bufOf(t, p, "o")
	assert.Equal(t, [2]int64{0, 3}, [2]int64{o.Start, o.End})
	p, _ = build(t, `{"alignment": 1, "liveness": {"outputs_to_end": false}, "tensors": [
	  {"name": "x", "bytes": 4, "kind": "input"}, {"name": "o", "bytes": 4, "kind": "output"},
	  {"name": "a", "bytes": 4}],
	 "ops": [{"name": "f", "type": "F", "inputs": ["x"], "outputs": ["o"]},
	  {"name": "g", "type": "G", "inputs": ["x"], "outputs": ["a"]}]}`)
	o = bufOf(t, p, "o")
	assert.Equal(t, [2]int64{0, 1}, [2]int64{o.Start, o.End})
}

func TestSizeRounding(t *testing.T) {
	tests := []struct {
		align int64
		shape string
		want  int64
	}{
		{1, `"shape": [3], "dtype": "float32"`, 12},
		{64, `"shape": [3], "dtype": "float32"`, 64},
		{8, `"bytes": 100`, 104},
		{16, `"shape": [2, 8], "dtype": "bfloat16"`, 32},
		{0, `"shape": [65], "dtype": "uint8"`, 128}, // default alignment 64
	}
	for _, tc := range tests {
		src := `{"alignment": ` + strconv.FormatInt(tc.align, 10) + `, "tensors": [{"name": "x", ` + tc.shape + `, "kind": "input"},
		  {"name": "y", "bytes": 1, "kind": "output"}],
		  "ops": [{"name": "f", "type": "F", "inputs": ["x"], "outputs": ["y"]}]}`
		p, _ := build(t, src)
		b := bufOf(t, p, "x")
		assert.Equal(t, tc.want, b.Size, tc.shape)
		if tc.align == 0 {
			tc.align = DefaultAlignment
		}
		if tc.align > 1 {
			assert.Equal(t, tc.align, b.Align)
		}
	}
}
