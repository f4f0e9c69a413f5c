package graph

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/model"
)

// TestBadGraphs: every bad graph gives one *model.InputError whose text is
// "file:line: what is wrong", pointing at the offending line.
func TestBadGraphs(t *testing.T) {
	const head = "{\"alignment\": 1,\n\"tensors\": [\n" // tensors start on line 3
	tests := []struct {
		name string
		src  string
		line int
		msg  string
	}{
		{"unknown tensor", head + `{"name": "x", "bytes": 4, "kind": "input"},
{"name": "y", "bytes": 4, "kind": "output"}],
"ops": [
{"name": "f", "type": "Relu", "inputs": ["nope"], "outputs": ["y"]}]}`, 6, `op "f": unknown tensor "nope"`},
		{"unknown output", head + `{"name": "x", "bytes": 4, "kind": "input"}],
"ops": [
{"name": "f", "type": "Relu", "inputs": ["x"], "outputs": ["y"]}]}`, 5, `output "y" is not a declared tensor`},
		{"used before produced", strings.Replace(head, `{"alignment": 1,`, `{"alignment": 1, "order": "given",`, 1) + `{"name": "x", "bytes": 4, "kind": "input"},
{"name": "a", "bytes": 4},
{"name": "y", "bytes": 4, "kind": "output"}],
"ops": [
{"name": "g", "type": "Relu", "inputs": ["a"], "outputs": ["y"]},
{"name": "f", "type": "Relu", "inputs": ["x"], "outputs": ["a"]}]}`, 7, `op "g" uses tensor "a" before it is produced by op "f" (line 8)`},
		{"cycle", head + `{"name": "a", "bytes": 4},
{"name": "b", "bytes": 4, "kind": "output"}],
"ops": [
{"name": "f", "type": "Relu", "inputs": ["b"], "outputs": ["a"]},
{"name": "g", "type": "Relu", "inputs": ["a"], "outputs": ["b"]}]}`, 6, `cycle: op "f" needs "b" from op "g" (line 7), which depends on op "f" through f → g`},
		{"self cycle", head + `{"name": "a", "bytes": 4, "kind": "output"}],
"ops": [
{"name": "f", "type": "Relu", "inputs": ["a"], "outputs": ["a"]}]}`, 5, `cycle: op "f" uses its own output "a"`},
		{"never produced", head + `{"name": "a", "bytes": 4},
{"name": "y", "bytes": 4, "kind": "output"}],
"ops": [
{"name": "f", "type": "Relu", "inputs": ["a"], "outputs": ["y"]}]}`, 6, `uses tensor "a", which no op produces`},
		{"duplicate tensor", head + `{"name": "x", "bytes": 4, "kind": "input"},
{"name": "x", "bytes": 8}],
"ops": [{"name": "f", "type": "R", "inputs": ["x"]}]}`, 4, `tensor "x" is defined twice (first on line 3)`},
		{"duplicate op", head + `{"name": "x", "bytes": 4, "kind": "input"},
{"name": "a", "bytes": 4}, {"name": "b", "bytes": 4}],
"ops": [
{"name": "f", "type": "Relu", "inputs": ["x"], "outputs": ["a"]},
{"name": "f", "type": "Relu", "inputs": ["x"], "outputs": ["b"]}]}`, 7, `op "f" is defined twice (first on line 6)`},
		{"produced twice", head + `{"name": "x", "bytes": 4, "kind": "input"},
{"name": "a", "bytes": 4}],
"ops": [
{"name": "f", "type": "Relu", "inputs": ["x"], "outputs": ["a"]},
{"name": "g", "type": "Relu", "inputs": ["x"], "outputs": ["a"]}]}`, 7, `tensor "a" is produced twice`},
		{"missing dtype", head + `{"name": "x", "shape": [2, 2], "kind": "input"}],
"ops": [{"name": "f", "type": "Relu", "inputs": ["x"]}]}`, 3, `tensor "x": missing dtype`},
		{"missing size", head + `{"name": "x", "kind": "input"}],
"ops": [{"name": "f", "type": "Relu", "inputs": ["x"]}]}`, 3, `tensor "x": missing size (give shape and dtype, or bytes)`},
		{"unknown dtype", head + `{"name": "x", "shape": [2], "dtype": "float31", "kind": "input"}],
"ops": [{"name": "f", "type": "Relu", "inputs": ["x"]}]}`, 3, `unknown dtype "float31"`},
		{"bytes disagree", head + `{"name": "x", "shape": [2], "dtype": "int8", "bytes": 3, "kind": "input"}],
"ops": [{"name": "f", "type": "Relu", "inputs": ["x"]}]}`, 3, `bytes 3 disagrees with shape [2] × int8 = 2`},
		{"bad kind", head + `{"name": "x", "bytes": 2, "kind": "state"}],
"ops": [{"name": "f", "type": "Relu", "inputs": ["x"]}]}`, 3, `unknown kind "state"`},
		{"concat shape mismatch", head + `{"name": "x", "shape": [1, 2], "dtype": "float32", "kind": "input"},
{"name": "a", "shape": [1, 2], "dtype": "float32"},
{"name": "b", "shape": [2, 2], "dtype": "float32"},
{"name": "c", "shape": [1, 4], "dtype": "float32", "kind": "output"}],
"ops": [
{"name": "f", "type": "Relu", "inputs": ["x"], "outputs": ["a"]},
{"name": "g", "type": "Relu", "inputs": ["x"], "outputs": ["b"]},
{"name": "cat", "type": "Concat", "axis": 1, "inputs": ["a", "b"], "outputs": ["c"]}]}`, 10, `shape mismatch: "b" has shape [2 2], "c" has [1 4] (dimension 0 differs, axis is 1)`},
		{"concat sum mismatch", head + `{"name": "x", "shape": [1, 2], "dtype": "float32", "kind": "input"},
{"name": "a", "shape": [1, 2], "dtype": "float32"},
{"name": "c", "shape": [1, 5], "dtype": "float32", "kind": "output"}],
"ops": [
{"name": "f", "type": "Relu", "inputs": ["x"], "outputs": ["a"]},
{"name": "cat", "type": "Concat", "axis": 1, "inputs": ["a", "a"], "outputs": ["c"]}]}`, 8, `the parts add up to 4 along axis 1 but "c" has 5`},
		{"concat dtype mismatch", head + `{"name": "x", "shape": [1, 2], "dtype": "float32", "kind": "input"},
{"name": "a", "shape": [1, 2], "dtype": "int32"},
{"name": "c", "shape": [1, 4], "dtype": "float32", "kind": "output"}],
"ops": [
{"name": "f", "type": "Cast", "inputs": ["x"], "outputs": ["a"]},
{"name": "cat", "type": "Concat", "axis": 1, "inputs": ["a", "a"], "outputs": ["c"]}]}`, 8, `"c" is float32 but "a" is int32`},
		{"concat without axis", head + `{"name": "x", "shape": [1, 2], "dtype": "float32", "kind": "input"},
{"name": "c", "shape": [1, 4], "dtype": "float32", "kind": "output"}],
"ops": [
{"name": "cat", "type": "Concat", "inputs": ["x", "x"], "outputs": ["c"]}]}`, 6, `needs an axis`},
		{"axis out of range", head + `{"name": "x", "shape": [1, 2], "dtype": "float32", "kind": "input"},
{"name": "c", "shape": [1, 4], "dtype": "float32", "kind": "output"}],
"ops": [
{"name": "cat", "type": "Concat", "axis": 2, "inputs": ["x", "x"], "outputs": ["c"]}]}`, 6, `axis 2 is out of range for rank 2`},
		{"reshape size change", head + `{"name": "x", "shape": [1, 2], "dtype": "float32", "kind": "input"},
{"name": "r", "shape": [3], "dtype": "float32", "kind": "output"}],
"ops": [
{"name": "rs", "type": "Reshape", "inputs": ["x"], "outputs": ["r"]}]}`, 6, `changes the size`},
		{"split mismatch", head + `{"name": "x", "shape": [4, 2], "dtype": "float32", "kind": "input"},
{"name": "a", "shape": [1, 2], "dtype": "float32", "kind": "output"},
{"name": "b", "shape": [2, 2], "dtype": "float32", "kind": "output"}],
"ops": [
{"name": "sp", "type": "Split", "axis": 0, "inputs": ["x"], "outputs": ["a", "b"]}]}`, 7, `the parts add up to 3 along axis 0 but "x" has 4`},
		{"slice out of bounds", head + `{"name": "x", "shape": [4, 2], "dtype": "float32", "kind": "input"},
{"name": "a", "shape": [2, 2], "dtype": "float32", "kind": "output"}],
"ops": [
{"name": "sl", "type": "Slice", "begin": [3, 0], "inputs": ["x"], "outputs": ["a"]}]}`, 6, `does not fit in input shape [4 2]`},
		{"scratch without size", head + `{"name": "x", "bytes": 4, "kind": "input"}],
"ops": [
{"name": "f", "type": "Conv", "inputs": ["x"], "scratch": [{"name": "im2col"}]}]}`, 5, `scratch im2col: missing size`},
		{"scratch max below min", head + `{"name": "x", "bytes": 4, "kind": "input"}],
"ops": [
{"name": "f", "type": "Conv", "inputs": ["x"], "scratch": [{"min_size": 8, "max_size": 4}]}]}`, 5, `max_size 4 is below min_size 8`},
		{"output never produced", head + `{"name": "x", "bytes": 4, "kind": "input"},
{"name": "y", "bytes": 4, "kind": "output"}],
"ops": [
{"name": "f", "type": "Relu", "inputs": ["x"]}]}`, 4, `graph output "y" is never produced`},
		{"op produces an input", head + `{"name": "x", "bytes": 4, "kind": "input"}],
"ops": [
{"name": "f", "type": "Relu", "outputs": ["x"]}]}`, 5, `op "f" produces "x", which is a graph input`},
		{"unknown field", head + `{"name": "x", "bytes": 4, "kind": "input", "sahpe": [1]}],
"ops": []}`, 3, `unknown field "sahpe"`},
		{"bad JSON", head + `{"name": "x", "bytes": 4,, "kind": "input"}],
"ops": []}`, 3, `tensor 1:`},
		{"unknown model in schedule", `{"schedule": [["a"], ["c"]],
"models": [
{"name": "a", "tensors": [{"name": "x", "bytes": 4, "kind": "input"}], "ops": [{"name": "f", "type": "R", "inputs": ["x"]}]},
{"name": "b", "tensors": [{"name": "x", "bytes": 4, "kind": "input"}], "ops": [{"name": "f", "type": "R", "inputs": ["x"]}]}]}`, 1, `schedule: unknown model "c"`},
		{"model not scheduled", `{"models": [
{"name": "a", "tensors": [{"name": "x", "bytes": 4, "kind": "input"}], "ops": [{"name": "f", "type": "R", "inputs": ["x"]}]},
{"name": "b", "tensors": [{"name": "x", "bytes": 4, "kind": "input"}], "ops": [{"name": "f", "type": "R", "inputs": ["x"]}]}],
"schedule": [["a"]]}`, 4, `schedule: model "b" is not scheduled`},
		{"duplicate model", `{"models": [
{"name": "a", "tensors": [{"name": "x", "bytes": 4, "kind": "input"}], "ops": [{"name": "f", "type": "R", "inputs": ["x"]}]},
{"name": "a", "tensors": [{"name": "x", "bytes": 4, "kind": "input"}], "ops": [{"name": "f", "type": "R", "inputs": ["x"]}]}]}`, 3, `model "a" is defined twice (first on line 2)`},
		{"error names its model", `{"models": [
{"name": "a", "tensors": [{"name": "x", "bytes": 4, "kind": "input"}], "ops": [{"name": "f", "type": "R", "inputs": ["x"]}]},
{"name": "b", "tensors": [{"name": "x", "bytes": 4, "kind": "input"}],
 "ops": [{"name": "f", "type": "R", "inputs": ["y"]}]}]}`, 4, `model "b": op "f": unknown tensor "y"`},
		{"bad schedule", `{"schedule": "parallel", "tensors": [], "ops": []}`, 1, `schedule "parallel": want "serial", "concurrent"`},
		{"empty", `{}`, 0, `no models`},
		{"huge alignment", `{"alignment": 4611686018427387904, "tensors": [], "ops": []}`, 0, `alignment 4611686018427387904 must be between 1 and 2^30`},
		{"huge scratch", head + `{"name": "x", "bytes": 4, "kind": "input"}],
"ops": [{"name": "f", "type": "R", "inputs": ["x"], "scratch": [{"size": 9223372036854775807}]}]}`, 4, `9223372036854775807 bytes is too large`},
		{"not an object", `[1]`, 1, `expected a JSON object`},
		{"weight data not base64", head + `{"name": "w", "bytes": 2, "kind": "weight", "data": "!!"}],
"ops": [{"name": "f", "type": "R", "inputs": ["w"]}]}`, 3, `weight "w": data is not base64`},
		{"hash on activation", head + `{"name": "x", "bytes": 4, "kind": "input"}, {"name": "a", "bytes": 4, "hash": "h"}],
"ops": [{"name": "f", "type": "R", "inputs": ["x"], "outputs": ["a"]}]}`, 3, `hash and data are only for weights`},
		{"scratch with both sizes", head + `{"name": "x", "bytes": 4, "kind": "input"}],
"ops": [{"name": "f", "type": "R", "inputs": ["x"], "scratch": [{"name": "t", "size": 4, "max_size": 8}]}]}`, 4, `op "f" (R): scratch t: give size (fixed) or min_size/max_size (variable), not both`},
		{"negative scratch", head + `{"name": "x", "bytes": 4, "kind": "input"}],
"ops": [{"name": "f", "type": "R", "inputs": ["x"], "scratch": [{"size": -4}]}]}`, 4, `op "f" (R): scratch scratch: size -4 is negative`},
		{"negative min_size", head + `{"name": "x", "bytes": 4, "kind": "input"}],
"ops": [{"name": "f", "type": "R", "inputs": ["x"], "scratch": [{"size": 4}, {"min_size": -1}]}]}`, 4, `op "f" (R): scratch scratch1: min_size -1 is negative`},
		{"output listed twice", head + `{"name": "x", "bytes": 4, "kind": "input"}, {"name": "a", "bytes": 4}],
"ops": [{"name": "f", "type": "R", "inputs": ["x"], "outputs": ["a", "a"]}]}`, 4, `op "f" lists output "a" twice`},
		{"output listed twice in a long list", head + `{"name": "x", "bytes": 4, "kind": "input"}, {"name": "a", "bytes": 4}],
"ops": [{"name": "f", "type": "R", "inputs": ["x"], "outputs": ["a"` + strings.Repeat(`, "a"`, 17) + `]}]}`, 4, `op "f" lists output "a" twice`},
		{"duplicate key in a tensor", head + `{"name": "x", "bytes": 4, "kind": "input", "bytes": "4"}],
"ops": [{"name": "f", "type": "R", "inputs": ["x"]}]}`, 3, `tensor 1: field bytes: expected int64, got JSON string`},
		{"trailing data", head + `{"name": "x", "bytes": 4, "kind": "input"}],
"ops": [{"name": "f", "type": "R", "inputs": ["x"]}]}
{}`, 5, `unexpected data after the top-level object`}, // the line the object ends on, as encoding/json reports it,
		{"scratch id collides", head + `{"name": "x", "bytes": 4, "kind": "input"}, {"name": "f:scratch", "bytes": 4}],
"ops": [{"name": "f", "type": "R", "inputs": ["x"], "outputs": ["f:scratch"], "scratch": [{"size": 4}]}]}`, 4, `buffer id "f:scratch" is used twice (also line 3)`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := Read(strings.NewReader(tc.src), "bad.graph.json")
			require.Error(t, err)
			var ie *model.InputError
			require.True(t, errors.As(err, &ie), "want *model.InputError, got %T: %v", err, err)
			assert.Equal(t, tc.line, ie.Line, "%v", err)
			assert.Contains(t, err.Error(), tc.msg)
			assert.NotContains(t, err.Error(), "\n", "one line")
			if tc.line > 0 {
				assert.True(t, strings.HasPrefix(err.Error(), "bad.graph.json:"), err.Error())
			}
		})
	}
}
