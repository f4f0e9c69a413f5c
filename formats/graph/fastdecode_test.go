package graph

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sameAsSlow checks that fastDecode either declines src or returns what
// the encoding/json path returns (which must then succeed).
func sameAsSlow(t *testing.T, src string) (accepted bool) {
	t.Helper()
	data := []byte(src)
	fast, ok := fastDecode(data)
	slow, err := decodeSlow(data, "x.graph.json")
	if !ok {
		return false
	}
	require.NoError(t, err, "the fast path accepted what encoding/json rejects:\n%s", src)
	require.Equal(t, slow, fast, "%s", src)
	return true
}

// TestFastDecodeMatchesSlow: on the golden graphs (examples, random graphs
// of every feature) and on random files written compactly, indented and
// by Write, the fast path accepts and gives the File encoding/json gives.
func TestFastDecodeMatchesSlow(t *testing.T) {
	for _, g := range goldenGraphs(t) {
		assert.True(t, sameAsSlow(t, g.src), g.name)
	}
	for seed := range uint64(200) {
		f := randomFile(rand.New(rand.NewPCG(seed, 3)))
		compact, err := json.Marshal(f)
		require.NoError(t, err)
		indented, err := json.MarshalIndent(f, "", "\t")
		require.NoError(t, err)
		var written bytes.Buffer
		require.NoError(t, Write(&written, f))
		for _, src := range [][]byte{compact, indented, written.Bytes()} {
			assert.True(t, sameAsSlow(t, string(src)), "seed %d", seed)
		}
	}
}

// randomFile fills every field of the format with random values (not a
// valid graph: Decode does not check graphs).
func randomFile(rng *rand.Rand) *File {
	str := func() string { // json.Marshal escapes the last four
		return []string{"", "x", "conv1/out", "héllo", "中文", "a b", "Relu", "a<b&c", "q\"b\\s", "l\n\t", "\u2028😀"}[rng.IntN(11)]
	}
	i64 := func() int64 {
		return []int64{0, 1, -1, 64, 1 << 40, 9223372036854775807, -9223372036854775808}[rng.IntN(7)]
	}
	ptr := func() *int64 {
		if rng.IntN(2) == 0 {
			return nil
		}
		v := i64()
		return &v
	}
	bptr := func() *bool {
		if rng.IntN(2) == 0 {
			return nil
		}
		v := rng.IntN(2) == 0
		return &v
	}
	ints := func() []int64 {
		if rng.IntN(3) == 0 {
			return nil
		}
		out := []int64{}
		for range rng.IntN(4) {
			out = append(out, i64())
		}
		return out
	}
	strs := func() []string {
		if rng.IntN(3) == 0 {
			return nil
		}
		out := []string{}
		for range rng.IntN(4) {
			out = append(out, str())
		}
		return out
	}
	tensors := func() []Tensor {
		out := []Tensor{} // a model's "tensors": null is an error
		for range rng.IntN(5) {
			out = append(out, Tensor{Name: str(), Shape: ints(), DType: str(), Bytes: ptr(), Kind: str(), Hash: str(), Data: str()})
		}
		return out
	}
	ops := func() []Op {
		out := []Op{}
		for range rng.IntN(5) {
			o := Op{Name: str(), Type: str(), Inputs: strs(), Outputs: strs(), Begin: ints(), LatencyCritical: rng.IntN(2) == 0}
			if rng.IntN(2) == 0 {
				a := int(i64())
				o.Axis = &a
			}
			if rng.IntN(2) == 0 {
				o.Scratch = []Scratch{}
				for range rng.IntN(3) {
					o.Scratch = append(o.Scratch, Scratch{Name: str(), Size: ptr(), MinSize: ptr(), MaxSize: ptr(), LatencyCritical: bptr(), Shares: str()})
				}
			}
			out = append(out, o)
		}
		return out
	}
	f := &File{Name: str(), Alignment: i64(), Order: str(), Format: str(), Comment: str()}
	if rng.IntN(2) == 0 {
		f.Liveness = &Liveness{InputsFromStart: bptr(), OutputsToEnd: bptr()}
	}
	if rng.IntN(2) == 0 {
		f.InPlace = &InPlace{Reshape: bptr(), Concat: bptr(), Split: bptr(), Slice: bptr()}
	}
	switch rng.IntN(4) {
	case 1:
		f.Schedule = &Schedule{Mode: []string{"serial", "concurrent"}[rng.IntN(2)]}
	case 2:
		f.Schedule = &Schedule{Stages: [][]string{}}
		for range rng.IntN(3) {
			f.Schedule.Stages = append(f.Schedule.Stages, append([]string{}, strs()...))
		}
	}
	if rng.IntN(2) == 0 {
		for range 1 + rng.IntN(3) {
			f.Models = append(f.Models, Model{Name: str(), Comment: str(), Tensors: tensors(), Ops: ops(), ReloadWeights: rng.IntN(2) == 0})
		}
	} else {
		f.Tensors, f.Ops = tensors(), ops()
	}
	return f
}

// TestFastDecodeDeclines: forms the fast path leaves to encoding/json, so
// that their results and messages stay encoding/json's.
func TestFastDecodeDeclines(t *testing.T) {
	const ok = `{"tensors": [{"name": "x", "bytes": 4, "kind": "input"}], "ops": [{"name": "f", "type": "R", "inputs": ["x"]}]}`
	require.True(t, sameAsSlow(t, ok))
	for _, tc := range []struct{ name, from, to string }{
		{"lone high surrogate", `"name": "x"`, `"name": "\ud83dx"`},
		{"lone low surrogate", `"name": "x"`, `"name": "\ude00"`},
		{"surrogates reversed", `"name": "x"`, `"name": "\ude00\ud83d"`},
		{"high surrogate and a letter", `"name": "x"`, `"name": "\ud83d\u0041"`},
		{"unknown escape", `"name": "x"`, `"name": "\x41"`},
		{"escaped apostrophe", `"name": "x"`, `"name": "\'"`},
		{"short unicode escape", `"name": "x"`, `"name": "\u41"`},
		{"bad hex digit", `"name": "x"`, `"name": "\u00g1"`},
		{"escape at the end", `"name": "x"`, `"name": "x\`},
		{"invalid UTF-8 beside an escape", `"name": "x"`, "\"name\": \"\xff\\n\""},
		{"key in other case", `"name": "x"`, `"Name": "x"`},
		{"duplicate key", `"bytes": 4`, `"bytes": 4, "bytes": 8`},
		{"duplicate top-level key", `"ops": [`, `"tensors": [], "ops": [`},
		{"null", `"bytes": 4`, `"bytes": null`},
		{"null element", `"tensors": [`, `"tensors": [null, `},
		{"fraction", `"bytes": 4`, `"bytes": 4.0`},
		{"exponent", `"bytes": 4`, `"bytes": 4e0`},
		{"leading zero", `"bytes": 4`, `"bytes": 04`},
		{"overflow", `"bytes": 4`, `"bytes": 9223372036854775808`},
		{"plus sign", `"bytes": 4`, `"bytes": +4`},
		{"string for a number", `"bytes": 4`, `"bytes": "4"`},
		{"number for a string", `"name": "x"`, `"name": 4`},
		{"unknown field", `"bytes": 4`, `"bytes": 4, "size": 4`},
		{"invalid UTF-8", `"name": "x"`, "\"name\": \"x\xff\""},
		{"control character", `"name": "x"`, "\"name\": \"x\ty\""},
		{"trailing comma", `"kind": "input"}`, `"kind": "input",}`},
		{"missing comma", `"bytes": 4, "kind"`, `"bytes": 4 "kind"`},
		{"trailing data", `"inputs": ["x"]}]}`, `"inputs": ["x"]}]} {}`},
		{"truncated", `"inputs": ["x"]}]}`, `"inputs": ["x"]}]`},
		{"unknown schedule", `{"tensors"`, `{"schedule": "parallel", "tensors"`},
		{"schedule of numbers", `{"tensors"`, `{"schedule": [[1]], "tensors"`},
		{"bad boolean", `"type": "R"`, `"type": "R", "latency_critical": tru`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := strings.Replace(ok, tc.from, tc.to, 1)
			require.NotEqual(t, ok, src)
			_, accepted := fastDecode([]byte(src))
			assert.False(t, accepted, src)
			got, gerr := Decode(strings.NewReader(src), "x.graph.json")
			want, werr := decodeSlow([]byte(src), "x.graph.json")
			assert.Equal(t, want, got)
			assert.Equal(t, fmt.Sprint(werr), fmt.Sprint(gerr))
		})
	}
}

// TestFastDecodeEscapes: escaped strings are decoded like encoding/json
// decodes them, in keys and in values.
func TestFastDecodeEscapes(t *testing.T) {
	for _, name := range []string{`\u0078`, `a\"b`, `a\\b`, `a\/b`, `\b\f\n\r\t`, `\u00e9t\u00C9`,
		`\ud83d\ude00 smile`, `\u0000`, `\u2028`, `caf\u00e9 café`, `a\u003cb\u0026c`} {
		src := `{"tensors": [{"n\u0061me": "` + name + `", "bytes": 4, "kind": "input"}], "ops": [{"name": "f", "type": "R", "inputs": ["` + name + `"]}]}`
		assert.True(t, sameAsSlow(t, src), src)
	}
}

// FuzzFastDecode: whatever fastDecode accepts, encoding/json accepts and
// decodes to the same File.
func FuzzFastDecode(f *testing.F) {
	f.Add(`{"tensors": [{"name": "x", "bytes": 4, "kind": "input"}], "ops": [{"name": "f", "type": "R", "inputs": ["x"]}]}`)
	f.Add(`{"alignment": 8, "liveness": {"inputs_from_start": false}, "in_place": {"slice": true},
	 "schedule": [["a"], []], "models": [{"name": "a", "reload_weights": true, "tensors": [{"name": "w", "shape": [2, -0], "dtype": "int8", "kind": "weight", "hash": "h", "data": "AAA="}],
	 "ops": [{"name": "f", "type": "R", "inputs": [], "outputs": ["w"], "axis": -1, "begin": [0], "latency_critical": false,
	  "scratch": [{"name": "s", "size": 3, "min_size": 1, "max_size": 2, "latency_critical": true, "shares": "t"}]}]}]}`)
	f.Add(`{"schedule": "concurrent", "format": "optalloc-graph/1", "comment": "é", "name": "n", "order": "given", "models": []}`)
	f.Add(`{"tensors": [{"n\u0061me": "\ud83d\ude00\"\\\/\b\f\n\r\t\u00e9", "bytes": 4}], "ops": []}`)
	f.Fuzz(func(t *testing.T, src string) {
		sameAsSlow(t, src)
	})
}

// TestCount: count finds the objects of an array, whatever its strings
// hold, so that the lists are allocated once at their size.
func TestCount(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want int
	}{
		{`[]`, 0},
		{` [{}]`, 1},
		{`[{"a": "x\"{"}, {"b": "\\"}, {"c": [{}, {}]}]`, 3},
		{`[{"a": "\\\"}{"}, {}] [{}]`, 2},
		{`[1, 2, "{"]`, 0},
		{`{"a": [{}]}`, 0},
		{`[{`, 1},
	} {
		d := &fastDecoder{data: []byte(tc.src)}
		assert.Equal(t, tc.want, d.count(), tc.src)
	}
	for _, g := range goldenGraphs(t) {
		f, ok := fastDecode([]byte(g.src))
		require.True(t, ok, g.name)
		for _, m := range append([]Model{{Tensors: f.Tensors, Ops: f.Ops}}, f.Models...) {
			assert.Equal(t, len(m.Tensors), cap(m.Tensors), g.name)
			assert.Equal(t, len(m.Ops), cap(m.Ops), g.name)
		}
	}
}
