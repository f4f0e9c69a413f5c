package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const sileroPath = "../../../shared/models/onnx/silero_vad_v5.onnx"

var sileroDims = []string{"--dim", "input:0=1", "--dim", "input:1=576", "--dim", "state:1=1", "--dim", "sr=16000"}

// TestONNXCommands: plan, verify, bounds and compare read Silero VAD with
// --dim; without it, or with a bad one, the error is one line, exit 2.
func TestONNXCommands(t *testing.T) {
	if _, err := os.Stat(sileroPath); err != nil {
		t.Skipf("shared ONNX model not found at %s (it sits beside the repository in CI)", sileroPath)
	}
	plan := filepath.Join(t.TempDir(), "plan.json")
	code, _, stderr := cli(t, "", append([]string{"plan", sileroPath, "-o", plan, "--time-limit", "2s"}, sileroDims...)...)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "peak=")
	code, stdout, stderr := cli(t, "", append([]string{"verify", sileroPath, plan}, sileroDims...)...)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "valid: 68 buffers")
	code, stdout, stderr = cli(t, "", append([]string{"bounds", sileroPath}, sileroDims...)...)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "buffers=68")

	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "dimensions without a size: input:0, input:1, state:1 (give each with --dim NAME=VALUE"},
		{[]string{"--dim", "batch"}, `--dim "batch": want NAME=VALUE`},
		{append([]string{"--dim", "nosuch=2"}, sileroDims...), `--dim nosuch: the model has no symbolic dimension "nosuch"`},
	} {
		code, stdout, stderr := cli(t, "", append([]string{"plan", sileroPath}, tc.args...)...)
		assert.Equal(t, 2, code)
		assert.Empty(t, stdout)
		assert.Contains(t, stderr, tc.want)
		assert.Equal(t, 1, strings.Count(stderr, "\n"), stderr)
	}
}

// TestONNXOnStdin: a model piped to "-" is recognised (onnx.Sniff) and
// planned with --dim exactly as the file is; without --dim the error
// names the missing dimensions, as for the file.
func TestONNXOnStdin(t *testing.T) {
	data, err := os.ReadFile(sileroPath)
	if err != nil {
		t.Skipf("shared ONNX model not found at %s (it sits beside the repository in CI)", sileroPath)
	}
	dir := t.TempDir()
	fromFile, fromStdin := filepath.Join(dir, "file.csv"), filepath.Join(dir, "stdin.csv")
	code, _, stderr := cli(t, "", append([]string{"plan", sileroPath, "-o", fromFile, "--time-limit", "2s"}, sileroDims...)...)
	require.Equal(t, 0, code, stderr)
	code, _, stderr = cli(t, string(data), append([]string{"plan", "-", "-o", fromStdin, "--time-limit", "2s"}, sileroDims...)...)
	require.Equal(t, 0, code, stderr)
	a, err := os.ReadFile(fromFile)
	require.NoError(t, err)
	b, err := os.ReadFile(fromStdin)
	require.NoError(t, err)
	assert.Equal(t, string(a), string(b))

	code, stdout, stderr := cli(t, string(data), "bounds", "-")
	assert.Equal(t, 2, code)
	assert.Empty(t, stdout)
	assert.Equal(t, "<stdin>: the graph inputs have dimensions without a size: input:0, input:1, state:1 (give each with --dim NAME=VALUE; an unnamed dimension is INPUT:AXIS)\n", stderr)
}
