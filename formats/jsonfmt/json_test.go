package jsonfmt

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/optalloc/optalloc/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadJSONAllFields(t *testing.T) {
	text := `{
 "buffers": [
  {"id": "p", "start": 0, "end": 4, "size": 64, "align": 16, "offset": 32, "pools": ["sram"], "kind": "input"},
  {"id": "c", "start": 1, "end": 3, "size": 16, "alias": {"parent": "p", "delta": 16}},
  {"id": "s", "start": 2, "end": 9, "size": 8, "max_size": 32, "kind": "scratch", "weight": 2.5,
   "latency_critical": true, "hint": 64, "gaps": [{"start": 3, "end": 5}, {"start": 6, "end": 7, "window": true, "lo": 0, "hi": 4}]}
 ],
 "pools": [{"name": "sram", "capacity": 1024, "align": 8}, {"name": "dram", "rank": 1}]
}`
	p, err := Read(strings.NewReader(text), "in.json")
	require.NoError(t, err)
	assert.Equal(t, []model.Pool{{Name: "sram", Capacity: 1024, Align: 8}, {Name: "dram", Rank: 1}}, p.Pools)
	require.Len(t, p.Buffers, 3)
	want := []model.Buffer{
		{ID: "p", End: 4, Size: 64, Align: 16, Pin: i64(32), Pools: []string{"sram"}, Kind: model.Input, Line: 3},
		{ID: "c", Start: 1, End: 3, Size: 16, Alias: &model.Alias{Parent: "p", Delta: 16}, Line: 4},
		{ID: "s", Start: 2, End: 9, Size: 8, MaxSize: 32, Kind: model.Scratch, Weight: 2.5, LatencyCritical: true, Hint: i64(64),
			Gaps: []model.Gap{{Start: 3, End: 5}, {Start: 6, End: 7, Window: true, Lo: 0, Hi: 4}}, Line: 5},
	}
	assert.Equal(t, want, p.Buffers)
}

func TestWriteJSONThenReadJSONRoundTrips(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 200; trial++ {
		p := randProblem(rng, 1+rng.IntN(30), genOptions{Gaps: true, Aligns: true, Pins: true, Hints: true,
			Aliases: true, Pools: true, Elastic: true, Zeros: true})
		p.Buffers[0].Kind = model.Weight
		p.Buffers[0].Weight = 1.5
		p.Buffers[0].LatencyCritical = true
		require.NoError(t, p.Validate())
		var out bytes.Buffer
		require.NoError(t, Write(&out, p))
		q, err := Read(&out, "rt.json")
		require.NoError(t, err, out.String())
		sameCore(t, p, q)
		assert.Equal(t, p.Pools, q.Pools)
		for i := range p.Buffers {
			w, g := p.Buffers[i], q.Buffers[i]
			assert.Equal(t, w.Alias, g.Alias)
			assert.Equal(t, w.MaxSize, g.MaxSize)
			assert.Equal(t, len(w.Pools), len(g.Pools))
			assert.Equal(t, [3]any{w.Kind, w.Weight, w.LatencyCritical}, [3]any{g.Kind, g.Weight, g.LatencyCritical})
		}
	}
}

func TestReadJSONHostileInput(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{"empty file", "", "in.json:1: expected a JSON object"},
		{"array", `[{"id":"a"}]`, "in.json:1: expected a JSON object"},
		{"empty object", `{}`, "in.json:1: no buffers"},
		{"empty buffers", `{"buffers": []}`, "in.json:1: no buffers"},
		{"buffers not an array", `{"buffers": {"id": "a"}}`, "in.json:1: buffers must be an array"},
		{"unknown top field", `{"bufers": []}`, `in.json:1: unknown field "bufers"`},
		{"unknown buffer field", "{\"buffers\": [\n{\"id\": \"a\", \"start\": 0, \"end\": 1, \"size\": 1, \"sise\": 2}]}", `in.json:2: buffer 1: unknown field "sise"`},
		{"string size", "{\"buffers\": [\n{\"id\": \"a\", \"start\": 0, \"end\": 1, \"size\": \"8\"}]}", "in.json:2: buffer 1: field size: expected an integer in the int64 range, got JSON string"},
		{"size beyond int64", `{"buffers": [{"id": "a", "start": 0, "end": 1, "size": 9223372036854775808}]}`, "in.json:1: buffer 1: field size: expected an integer in the int64 range"},
		{"float size", `{"buffers": [{"id": "a", "start": 0, "end": 1, "size": 1.5}]}`, "in.json:1: buffer 1: field size"},
		{"negative size", "{\"buffers\": [\n {\"id\": \"a\", \"start\": 0, \"end\": 1, \"size\": 1},\n {\"id\": \"b\", \"start\": 0, \"end\": 1, \"size\": -1}]}", `in.json:3: buffer "b": size -1 is negative`},
		{"duplicate id", "{\"buffers\": [\n {\"id\": \"a\", \"start\": 0, \"end\": 1, \"size\": 1},\n {\"id\": \"a\", \"start\": 0, \"end\": 1, \"size\": 1}]}", `in.json:3: buffer "a": duplicate id (first defined on line 2)`},
		{"alias cycle", "{\"buffers\": [\n {\"id\": \"a\", \"start\": 0, \"end\": 1, \"size\": 1, \"alias\": {\"parent\": \"b\"}},\n {\"id\": \"b\", \"start\": 0, \"end\": 1, \"size\": 1, \"alias\": {\"parent\": \"a\"}}]}", "is a cycle"},
		{"zero align", `{"buffers": [{"id": "a", "start": 0, "end": 1, "size": 1, "align": 0}]}`, `in.json:1: buffer "a": alignment 0 must be positive`},
		{"sizes overflow", "{\"buffers\": [\n {\"id\": \"a\", \"start\": 0, \"end\": 1, \"size\": 9223372036854775807},\n {\"id\": \"b\", \"start\": 0, \"end\": 1, \"size\": 1}]}", `in.json:3: buffer "b": the sizes`},
		{"truncated", `{"buffers": [{"id": "a", "start": 0, "end": 1, "size": 1}`, "in.json:1: unexpected end of file"},
		{"truncated inside a buffer", "{\"buffers\": [\n{\"id\": \"a\", \"start\": 0, \"end\"", "in.json:2: buffer 1: unexpected end of file"},
		{"buffer not an object", "{\"buffers\": [\n{\"id\": \"a\", \"start\": 0, \"end\": 1, \"size\": 1},\n7]}", "in.json:3: buffer 2: expected an object, got JSON number"},
		{"trailing garbage", `{"buffers": [{"id": "a", "start": 0, "end": 1, "size": 1}]} x`, "in.json:1: invalid character"},
		{"unknown pool", `{"pools": [{"name": "sram"}], "buffers": [{"id": "a", "start": 0, "end": 1, "size": 1, "pools": ["dram"]}]}`, `buffer "a": unknown pool "dram"`},
		{"bad pool field", `{"pools": [{"name": "sram", "cap": 3}], "buffers": [{"id": "a", "start": 0, "end": 1, "size": 1}]}`, `pools: pool 1: unknown field "cap"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Read(strings.NewReader(tc.text), "in.json")
			require.Error(t, err)
			assert.Nil(t, p)
			var ie *model.InputError
			require.True(t, errors.As(err, &ie), "want *InputError, got %T", err)
			msg := err.Error()
			assert.Contains(t, msg, tc.want)
			assert.True(t, strings.HasPrefix(msg, "in.json"), msg)
			assert.NotContains(t, msg, "\n")
		})
	}
}

func TestReadJSONPoolsAfterBuffers(t *testing.T) {
	p, err := Read(strings.NewReader(`{"buffers": [{"id": "a", "start": 0, "end": 1, "size": 1, "pools": ["dram"]}], "pools": [{"name": "dram"}]}`), "x.json")
	require.NoError(t, err)
	assert.Equal(t, []model.Pool{{Name: "dram"}}, p.Pools)
}
