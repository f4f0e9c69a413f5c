package optalloc

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	etfmt "github.com/optalloc/optalloc/formats/executorch"
	"github.com/optalloc/optalloc/solve"
)

// TestExecuTorchThroughTheDoor: a specs file (from a file or from memory)
// carries ExecuTorch's runtime; Plan plans it with its rules and Write
// writes the specs with their placements to .json, the generic formats
// to the other suffixes, never onto the input.
func TestExecuTorchThroughTheDoor(t *testing.T) {
	text := []byte(`{"executorch": {"alignment": 16, "input_mem_buffer_sizes": [0, 32], "specs": [
		{"id": "a", "size": 64, "lifetime": [0, 0]}, {"id": "b", "size": 32, "lifetime": [1, 1]},
		{"id": "c", "size": 32, "lifetime": [1, 1]}, {"id": "v", "size": 16, "lifetime": [2, 3], "storage_base": "a", "storage_base_offset": 16}]}}`)
	dir := t.TempDir()
	path := filepath.Join(dir, "specs.json")
	require.NoError(t, os.WriteFile(path, text, 0o644))
	fromFile, err := Load(path, LoadOptions{})
	require.NoError(t, err)
	fromBytes, err := LoadBytes("mem", text, LoadOptions{})
	require.NoError(t, err)
	for _, in := range []*Input{fromFile, fromBytes} {
		require.NotNil(t, in.Runtime())
		assert.Equal(t, "executorch", in.Runtime().Name())
		assert.Len(t, in.Problem.Buffers, 3, "the view is not a buffer of its own")
	}
	res, err := Plan(context.Background(), fromFile, Options{Options: solve.Options{TimeLimit: time.Second, Threads: 1}})
	require.NoError(t, err)
	require.NotNil(t, res.Plan)
	out := filepath.Join(dir, "out.json")
	require.NoError(t, fromFile.Write(out, res.Plan))
	f, err := etfmt.ReadFile(out)
	require.NoError(t, err)
	require.NotNil(t, f.Plan)
	assert.Equal(t, []int64{0, 32 + 64 + 64}, f.Plan.BufSizes, "a is live over its view v's lifetime: b and c cannot reuse its bytes")
	assert.Equal(t, f.Plan.Specs[0].MemOffset+16, f.Plan.Specs[3].MemOffset)
	require.NoError(t, fromFile.Write(filepath.Join(dir, "out.csv"), res.Plan))
	err = fromFile.Write(path, res.Plan)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "is the input")
	_, err = Load(path, LoadOptions{ScratchList: "x.csv"})
	require.Error(t, err, "TFLite options on specs")
}
