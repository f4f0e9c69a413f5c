package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCheckBaselineHostile (issue 36 D10): a baseline with two keys for
// one file gave a verdict that changed from run to run; it is refused
// naming both. A baseline entry without a plan (peak 0) made a later run
// that finds one fail as worse; it is better.
func TestCheckBaselineHostile(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "tiny-cnn.csv")
	data, err := os.ReadFile("../../examples/tiny-cnn.csv")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(in, data, 0o644))

	dup := filepath.Join(dir, "dup.json")
	require.NoError(t, os.WriteFile(dup, []byte(`{"optalloc_version": "x", "method": "greedy-size", "paths": "relative to the baseline",
 "instances": {"tiny-cnn.csv": {"peak": 1018880, "status": "optimal"}, "./tiny-cnn.csv": {"peak": 500000, "status": "optimal"}}}`), 0o644))
	for range 3 {
		code, _, stderr := cli(t, "", "check", in, "--baseline", dup)
		assert.Equal(t, 2, code)
		assert.Contains(t, stderr, `instances "./tiny-cnn.csv" and "tiny-cnn.csv" name the same file`)
	}

	// The crafted baseline of ../shared/hostile/check, used by path.
	hostile := filepath.Join(sharedHostile, "check")
	if _, err := os.Stat(filepath.Join(hostile, "dupkeys.json")); err == nil {
		code, _, stderr := cli(t, "", "check", filepath.Join(hostile, "tiny-cnn.csv"), "--baseline", filepath.Join(hostile, "dupkeys.json"))
		assert.Equal(t, 2, code)
		assert.Contains(t, stderr, "name the same file")
	}

	none := filepath.Join(dir, "none.json")
	require.NoError(t, os.WriteFile(none, []byte(`{"optalloc_version": "x", "method": "greedy-size", "paths": "relative to the baseline",
 "instances": {"tiny-cnn.csv": {"peak": 0, "status": "unknown"}}}`), 0o644))
	code, stdout, stderr := cli(t, "", "check", in, "--baseline", none)
	assert.Equal(t, 0, code, stdout+stderr)
	assert.Contains(t, stdout, "where the baseline had no plan")
}

// TestCheckRecordsInputFlags (D19): a baseline records --dim (and the
// TFLite scratch flags); checking with other ones warns that the problems
// may differ.
func TestCheckRecordsInputFlags(t *testing.T) {
	in := needTFLite(t, "keyword_scrambled_8bit.tflite")
	base := filepath.Join(t.TempDir(), "base.json")
	code, _, stderr := cli(t, "", "check", in, "--no-scratch", "--write-baseline", base)
	require.Equal(t, 0, code, stderr)
	data, err := os.ReadFile(base)
	require.NoError(t, err)
	assert.Contains(t, string(data), `"input_flags": [`)
	assert.Contains(t, string(data), `"--no-scratch"`)
	code, _, stderr = cli(t, "", "check", in, "--baseline", base)
	assert.Equal(t, 1, code, "with the scratch buffers the arena is larger: worse")
	assert.Contains(t, stderr, `the baseline was made with the input flags ["--no-scratch"], checking with []`)
}

// TestHostileONNXNamesAndInitializers (D19): an operator type with a
// carriage return broke the one-line error; two initializers of one name
// kept the last silently.
func TestHostileONNXNamesAndInitializers(t *testing.T) {
	code, _, stderr := cli(t, "", "plan", hostileFile(t, "onnx", "optype_cr.onnx"))
	assert.Equal(t, 2, code)
	assert.Equal(t, 1, strings.Count(stderr, "\n"), stderr)
	assert.NotContains(t, stderr, "\r")
	assert.Contains(t, stderr, `\x0d`)
	code, _, stderr = cli(t, "", "plan", hostileFile(t, "onnx", "dup_init.onnx"))
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, `initializer "w" is given twice`)
}

// TestRepeatedDimRefused (D19): a --dim given twice with two values kept
// the last silently; it is refused, naming both.
func TestRepeatedDimRefused(t *testing.T) {
	src := sileroPath
	if _, err := os.Stat(src); err != nil {
		t.Skip("the shared ONNX model is absent")
	}
	code, _, stderr := cli(t, "", "plan", src, "--dim", "input:0=1", "--dim", "input:1=576", "--dim", "input:1=512", "--dim", "state:1=1", "--dim", "sr=16000")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "--dim input:1 is given twice (576 and 512)")
	code, _, stderr = cli(t, "", "plan", src, "--dim", "input:0=1", "--dim", "input:1=576", "--dim", "input:1=576", "--dim", "state:1=1", "--dim", "sr=16000")
	assert.Equal(t, 0, code, "the same value twice is harmless: %s", stderr)
}
