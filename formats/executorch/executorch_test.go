package executorch

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/formats"
	"github.com/optalloc/optalloc/model"
)

func TestMalformedSpecsNameTheSpecAndField(t *testing.T) {
	const base = `{"id": "b", "size": 64, "lifetime": [0, 3]}`
	for _, tc := range []struct{ name, specs, want string }{
		{"a view larger than its base", base + `, {"id": "v", "size": 64, "lifetime": [0, 1], "storage_base": "b", "storage_base_offset": 16}`, `specs.json:3: spec "v": its 64 bytes at storage_base_offset 16 pass the end of its storage_base "b"`},
		{"a negative view offset", base + `, {"id": "v", "size": 16, "lifetime": [0, 1], "storage_base": "b", "storage_base_offset": -16}`, `spec "v": storage_base_offset -16 is negative`},
		{"an unknown base", `{"id": "v", "size": 16, "lifetime": [0, 1], "storage_base": "nope"}`, `spec "v": storage_base "nope" is not a spec`},
		{"a view of itself", `{"id": "v", "size": 16, "lifetime": [0, 1], "storage_base": "v"}`, `storage_base is the spec itself`},
		{"a cycle", `{"id": "v", "size": 16, "lifetime": [0, 1], "storage_base": "w"}, {"id": "w", "size": 16, "lifetime": [0, 1], "storage_base": "v"}`, `form a cycle`},
		{"mem_id 0", `{"id": "a", "size": 16, "lifetime": [0, 1], "mem_id": 0}`, `spec "a": mem_id must be between 1 and 255, not 0`},
		{"mem_id -1", `{"id": "a", "size": 16, "lifetime": [0, 1], "mem_id": -1}`, `mem_id must be between 1 and 255, not -1`},
		{"mem_id 10^8", `{"id": "a", "size": 16, "lifetime": [0, 1], "mem_id": 100000000}`, `mem_id must be between 1 and 255`},
		{"mem_id 2^70", `{"id": "a", "size": 16, "lifetime": [0, 1], "mem_id": 1180591620717411303424}`, `mem_id 1180591620717411303424 is out of range`},
		{"a float mem_id", `{"id": "a", "size": 16, "lifetime": [0, 1], "mem_id": 1.5}`, `mem_id must be an integer, not 1.5`},
		{"a lifetime reversed", `{"id": "a", "size": 16, "lifetime": [3, 1]}`, `spec "a": lifetime[1] 1 is before lifetime[0] 3`},
		{"a negative lifetime", `{"id": "a", "size": 16, "lifetime": [-2, 1]}`, `lifetime[0] -2 is negative`},
		{"a lifetime of three", `{"id": "a", "size": 16, "lifetime": [0, 1, 2]}`, `lifetime must be [first, last]`},
		{"a negative size", `{"id": "a", "size": -16, "lifetime": [0, 1]}`, `spec "a": size -16 is negative`},
		{"no size", `{"id": "a", "lifetime": [0, 1]}`, `spec "a": missing field "size"`},
		{"no id", `{"size": 4, "lifetime": [0, 1]}`, `spec 1: missing field "id"`},
		{"a duplicate id", `{"id": "a", "size": 4, "lifetime": [0, 1]}, {"id": "a", "size": 4, "lifetime": [0, 1]}`, `duplicate id (first on line 2)`},
		{"an unknown field", `{"id": "a", "size": 4, "lifetime": [0, 1], "nbytes": 4}`, `spec 1: unknown field "nbytes"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(strings.NewReader("{\"executorch\": {\"specs\": [\n"+strings.ReplaceAll(tc.specs, "}, {", "},\n{")+"]}}"), "specs.json")
			var ie *model.InputError
			require.True(t, errors.As(err, &ie), "%v", err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	for _, tc := range []struct{ name, body, want string }{
		{"alignment 0", `"alignment": 0, "specs": []`, "alignment must be between 1 and"},
		{"negative padding", `"extra_padding": -8, "specs": []`, "extra_padding -8 is negative"},
		{"negative input size", `"input_mem_buffer_sizes": [0, -64], "specs": []`, "input_mem_buffer_sizes[1] -64 is negative"},
		{"no specs", `"alignment": 16`, `missing field "specs"`},
		{"a plan without a spec's offset", `"bufsizes": [0, 4], "specs": [{"id": "a", "size": 4, "lifetime": [0, 1], "mem_obj_id": 0}]`, `spec "a": a plan (the file has bufsizes) gives every spec a mem_obj_id and a mem_offset`},
		{"a negative bufsize", `"bufsizes": [0, -4], "specs": []`, `bufsizes[1] -4 is negative`},
		{"another key", `"specs": [], "graph": 1`, `unknown field "graph"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(`{"executorch": {`+tc.body+`}}`), "specs.json")
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestWriteReadsBack(t *testing.T) {
	f, err := Read(strings.NewReader(`{"executorch": {"alignment": 8, "input_mem_buffer_sizes": [0, 16], "specs": [
		{"id": "b", "size": 60, "lifetime": [0, 3], "mem_id": null}, {"id": "v", "size": 8, "lifetime": [4, 5], "storage_base": "b", "storage_base_offset": 8}]}}`), "in.json")
	require.NoError(t, err)
	a := f.Arena()
	require.Len(t, a.Problem.Buffers, 1, "the view is not a buffer of its own")
	assert.Equal(t, model.Buffer{ID: "b", Start: 0, End: 6, Size: 64, Align: 8, Pools: []string{"mem1"}, Line: 2}, a.Problem.Buffers[0])
	var out bytes.Buffer
	pl := &Plan{Specs: []Placement{{1, 0, 16}, {1, 0, 24}}, BufSizes: []int64{0, 80}}
	require.NoError(t, Write(&out, f, pl))
	back, err := Read(&out, "out.json")
	require.NoError(t, err)
	back.Name = f.Name
	assert.Equal(t, pl, back.Plan, "the plan reads back")
	back.Plan = nil
	for i := range back.Specs {
		back.Specs[i].Line = f.Specs[i].Line
	}
	assert.Equal(t, f, back)
}

func TestRegisteredWithFormats(t *testing.T) {
	text := []byte(`{"executorch": {"specs": [{"id": "a", "size": 4, "lifetime": [0, 1], "mem_id": 2}]}}`)
	p, err := formats.LoadBytes(text, "<stdin>")
	require.NoError(t, err)
	assert.Equal(t, []string{"mem2"}, p.Buffers[0].Pools)
	path := filepath.Join(t.TempDir(), "specs.json")
	require.NoError(t, os.WriteFile(path, text, 0o644))
	p, err = formats.Load(path)
	require.NoError(t, err)
	assert.Equal(t, "a", p.Buffers[0].ID)
	assert.True(t, SniffFile(path))
	assert.False(t, Sniff([]byte(`{"buffers": [], "executorch": 1}`)), "only a first key executorch")
}

func FuzzRead(f *testing.F) {
	for _, s := range []string{
		`{"executorch": {"alignment": 16, "extra_padding": 8, "input_mem_buffer_sizes": [0, 64], "specs": [
		 {"id": "b", "size": 256, "lifetime": [2, 4], "mem_id": 2}, {"id": "v", "size": 64, "lifetime": [5, 7], "storage_base": "b", "storage_base_offset": 128}]}}`,
		`{"executorch": {"specs": []}}`, `{"executorch": {"specs": [{"id": "a", "size": 1, "lifetime": [0, 0], "mem_obj_id": 3, "mem_offset": 0}], "bufsizes": [0, 1]}}`,
		`{"executorch": {"specs": [{"id": "v", "size": 1, "lifetime": [0, 0], "storage_base": "v"}]}}`, `{"executorch": `, `{}`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Read(bytes.NewReader(data), "f.json")
		if err != nil {
			var ie *model.InputError
			if !errors.As(err, &ie) || file != nil {
				t.Fatalf("not an input error alone: %v", err)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("a message of more than one line: %q", err)
			}
			return
		}
		a := file.Arena()
		if err := a.Problem.Validate(); err != nil {
			t.Fatalf("a file read gives a problem the model rejects: %v", err)
		}
		pl := &Plan{Specs: make([]Placement, len(file.Specs)), BufSizes: []int64{0, 0}}
		for i := range pl.Specs {
			pl.Specs[i].MemID = a.MemID(i)
		}
		var out bytes.Buffer
		if err := Write(&out, file, pl); err != nil {
			t.Fatal(err)
		}
		if _, err := Read(&out, "back.json"); err != nil {
			t.Fatalf("a written file does not read back: %v\n%s", err, out.Bytes())
		}
	})
}
