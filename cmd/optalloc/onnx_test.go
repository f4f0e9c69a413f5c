package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/formats"
	"github.com/optalloc/optalloc/model"
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

func init() {
	formats.Register(".panicky", func(io.Reader, string) (*model.Problem, error) { panic("index out of range [3] with length 2") })
}

// TestReaderPanicIsOneLine: a reader that panics (a bug) ends the command
// with one line and exit 1, not a goroutine's stack trace.
func TestReaderPanicIsOneLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.panicky")
	require.NoError(t, os.WriteFile(path, []byte("x"), 0o644))
	code, stdout, stderr := cli(t, "", "bounds", path)
	assert.Equal(t, 1, code)
	assert.Empty(t, stdout)
	assert.Equal(t, "optalloc bounds: reading "+path+" failed: index out of range [3] with length 2 (a bug in optalloc; please report it with the file)\n", stderr)
}

// TestHostileONNXFiles: every crafted ONNX file of issue 36 about shapes
// (D3, D4, D5, D15) gives exit 2, one line naming the file, and writes
// nothing (they used to panic, run unbounded, say "a bug" or plan
// undersized tensors with exit 0).
func TestHostileONNXFiles(t *testing.T) {
	dir := filepath.Join(sharedHostile, "onnx")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("hostile inputs not found at %s", dir)
	}
	for _, name := range []string{"input_noshape", "lying_vi", "tile_wrap", "concat_wrap", "convT_wrap", "pool_dil_wrap", "d2s_div0",
		"d2s_odd", "s2d_big", "flatten_ovf", "range_max", "range_nan", "range_dim", "split_2e8", "split_huge", "sum_overflow", "id_latin1"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name+".onnx")
			out := filepath.Join(t.TempDir(), "plan.csv")
			args := []string{"plan", path, "-o", out, "--time-limit", "2s"}
			if name == "range_dim" {
				args = append(args, "--dim", "n=9223372036854775807")
			}
			code, stdout, stderr := cli(t, "", args...)
			assert.Equal(t, 2, code, stderr)
			assert.Empty(t, stdout)
			assert.True(t, strings.HasPrefix(stderr, path+": "), stderr)
			assert.Equal(t, 1, strings.Count(stderr, "\n"), stderr)
			assert.NoFileExists(t, out)
		})
	}
}
