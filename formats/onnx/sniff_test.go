package onnx

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/formats"
)

// TestSniff: the models of libonnx-testdata and Silero are recognised; the
// other formats' typical starts are not.
func TestSniff(t *testing.T) {
	models, _ := filepath.Glob("/usr/share/libonnx-testdata/data/node/*/model.onnx")
	models = append(models, "../../../shared/models/onnx/silero_vad_v5.onnx")
	seen := 0
	for _, path := range models {
		data, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		seen++
		require.True(t, Sniff(data), path)
	}
	if seen == 0 {
		t.Log("no ONNX model found (libonnx-testdata not installed, no shared folder); only the negative cases ran")
	}
	for _, s := range []string{"", "\x08", "\x08\x07", "\x08\x00\x12", "\x08\x80\x01\x12", "\x08\x07\x07",
		"id,lower,upper,size\n", "{\"buffers\": []}", "lower,upper,size\n0,1,2\n", "\x1c\x00\x00\x00TFL3"} {
		assert.False(t, Sniff([]byte(s)), "%q", s)
	}
	// formats.LoadBytes goes to the ONNX reader: its error is ONNX's
	_, err := formats.LoadBytes([]byte("\x08\x07\x12\x03abc\x3a\x01"), "<stdin>")
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "header")
}
