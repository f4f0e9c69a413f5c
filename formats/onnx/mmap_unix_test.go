//go:build unix

package onnx

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTruncatedWhileMapped (issue 36 D12): a model file truncated while it
// is mapped made the reader's next access fault with SIGBUS, which killed
// the process; it is now an error naming the file.
func TestTruncatedWhileMapped(t *testing.T) {
	src := filepath.Join("..", "..", "..", "shared", "models", "onnx", "silero_vad_v5.onnx")
	data, err := os.ReadFile(src)
	if err != nil {
		t.Skip("the shared ONNX model is absent")
	}
	path := filepath.Join(t.TempDir(), "model.onnx")
	require.NoError(t, os.WriteFile(path, data, 0o644))
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	mapped, release, err := load(f)
	require.NoError(t, err)
	defer release()
	require.NoError(t, os.Truncate(path, 0)) // another process truncates it
	_, err = decodeMapped(mapped, path)
	require.Error(t, err)
	assert.Contains(t, err.Error(), path+": the file changed while it was read")
}
