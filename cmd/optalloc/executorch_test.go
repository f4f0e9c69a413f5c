package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	etfmt "github.com/optalloc/optalloc/formats/executorch"
)

const etSpecs = `{"executorch": {"alignment": 16, "extra_padding": 8, "input_mem_buffer_sizes": [0, 64],
 "specs": [
  {"id": "big", "size": 64, "lifetime": [0, 0]},
  {"id": "h1", "size": 40, "lifetime": [1, 1]},
  {"id": "h2", "size": 24, "lifetime": [1, 1]},
  {"id": "x", "size": 40, "lifetime": [2, 2]},
  {"id": "y", "size": 40, "lifetime": [2, 2]},
  {"id": "base", "size": 256, "lifetime": [2, 4], "mem_id": 2},
  {"id": "v", "size": 64, "lifetime": [5, 7], "storage_base": "base", "storage_base_offset": 128},
  {"id": "o", "size": 256, "lifetime": [5, 6], "mem_id": 2}
 ]}}
`

// TestPlanExecuTorchSpecs: a specs file is planned with ExecuTorch's rules
// (its runtime's figures printed), written back in its own shape through
// the door's writer rules, and malformed specs are bad input (exit 2).
func TestPlanExecuTorchSpecs(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "specs.json")
	require.NoError(t, os.WriteFile(in, []byte(etSpecs), 0o644))
	out := filepath.Join(dir, "out.json")
	code, _, stderr := cli(t, "", "plan", in, "-o", out, "--threads", "1")
	require.Equal(t, 0, code, stderr)
	// mem_id 1: 64 from input_mem_buffer_sizes + 96 (x and y, 48 bytes each
	// once realigned, live together) + 8 of padding; ExecuTorch's greedy
	// puts y in big's object and opens a second one of 48 for x: 112.
	// mem_id 2: base is live over v's lifetime, so o goes above it: 512.
	assert.Contains(t, stderr, "executorch: bufsizes=[0,168,520] total=688 (8 specs, 2 mem_ids, extra_padding=8); ExecuTorch's greedy: bufsizes=[0,184,520] total=704")
	f, err := etfmt.ReadFile(out)
	require.NoError(t, err, "the plan reads back as specs")
	assert.Len(t, f.Specs, 8)
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Contains(t, string(data), `"bufsizes":[0,168,520]`)
	assert.Contains(t, string(data), `{"id":"v","size":64,"lifetime":[5,7],"mem_id":2,"storage_base":"base","storage_base_offset":128,"mem_obj_id":0,"mem_offset":128}`)

	// verify checks ExecuTorch's rules on the written plan, and finds a
	// view moved out of its base.
	code, stdout, stderr := cli(t, "", "verify", out)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, "valid: 8 specs, bufsizes=[0,168,520] total=688 (ExecuTorch's rules)\n", stdout)
	moved := filepath.Join(dir, "moved.json")
	require.NoError(t, os.WriteFile(moved, []byte(strings.Replace(string(data), `"mem_offset":128}`, `"mem_offset":112}`, 1)), 0o644))
	code, stdout, _ = cli(t, "", "verify", moved)
	assert.Equal(t, 1, code)
	assert.Contains(t, stdout, `spec "v": a view of "base" must be at mem_id 2, mem_obj_id 0, mem_offset 128`)

	// The same from standard input, and a CSV of the arenas.
	code, _, stderr2 := cli(t, etSpecs, "plan", "-", "-o", filepath.Join(dir, "out.csv"), "--threads", "1")
	require.Equal(t, 0, code, stderr2)
	assert.Contains(t, stderr2, "bufsizes=[0,168,520]")

	// The door's rules: never onto the input.
	before, _ := os.ReadFile(in)
	code, _, stderr = cli(t, "", "plan", in, "-o", in)
	assert.Equal(t, 2, code, stderr)
	assert.Contains(t, stderr, "is the input")
	after, _ := os.ReadFile(in)
	assert.Equal(t, before, after)

	// The runtime comes with the file: --target names a TFLite device.
	code, _, stderr = cli(t, "", "plan", in, "--target", "executorch")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "ExecuTorch's rules need no flag")

	// A malformed spec: one line naming the file, line, spec and field.
	bad := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(strings.Replace(etSpecs, `"storage_base_offset": 128`, `"storage_base_offset": 224`, 1)), 0o644))
	code, _, stderr = cli(t, "", "plan", bad, "-o", filepath.Join(dir, "bad-out.json"))
	assert.Equal(t, 2, code)
	assert.Equal(t, bad+`:9: spec "v": its 64 bytes at storage_base_offset 224 pass the end of its storage_base "base" (256 bytes)`+"\n", stderr)
	assert.NoFileExists(t, filepath.Join(dir, "bad-out.json"))
}
