package formats_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/optalloc/optalloc/formats"
	_ "github.com/optalloc/optalloc/formats/events"
	_ "github.com/optalloc/optalloc/formats/tflite"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sharedModels is the shared model folder (../shared/models from the
// repository root); tests that need it skip when it is absent.
const sharedModels = "../../shared/models"

// TestLoadBytesSniffsWhatLoadChoosesBySuffix: standard input (LoadBytes)
// gives the same problem as the file read by its suffix (Load).
func TestLoadBytesSniffsWhatLoadChoosesBySuffix(t *testing.T) {
	dir := t.TempDir()
	events := filepath.Join(dir, "trace.events")
	require.NoError(t, os.WriteFile(events, []byte("# a heap log\n\nmalloc 0x10 64\nalloc b 32 align=16\nfree 0x10\nalloc 0x10 8\nfree b\n"), 0o644))
	for _, path := range []string{events, filepath.Join(sharedModels, "tflite", "hello_world_int8.tflite")} {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if os.IsNotExist(err) {
				t.Skipf("shared model absent: %v", err)
			}
			require.NoError(t, err)
			want, err := formats.Load(path)
			require.NoError(t, err)
			require.NotEmpty(t, want.Buffers)
			got, err := formats.LoadBytes(data, path)
			require.NoError(t, err)
			assert.Equal(t, want, got)
		})
	}
}

// TestLoadBytesKeepsTheOtherFormats: text that no sniffer claims is still
// JSON or CSV, and a CSV whose ids look like events is not a trace.
func TestLoadBytesKeepsTheOtherFormats(t *testing.T) {
	p, err := formats.LoadBytes([]byte("id,lower,upper,size\nalloc,0,1,4\n"), "<stdin>")
	require.NoError(t, err)
	assert.Equal(t, "alloc", p.Buffers[0].ID)
	p, err = formats.LoadBytes([]byte(`{"buffers": [{"id": "free", "start": 0, "end": 1, "size": 4}]}`), "<stdin>")
	require.NoError(t, err)
	assert.Equal(t, "free", p.Buffers[0].ID)
	_, err = formats.LoadBytes([]byte("free x\n"), "<stdin>")
	require.EqualError(t, err, "<stdin>:1: free of \"x\", which is not allocated")
}
