package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/formats/tflite"
)

// sharedHostile holds the crafted inputs of issue 36 (../shared/hostile).
const sharedHostile = "../../../shared/hostile"

// hostileFile returns a crafted input of ../shared/hostile, skipping the
// test when it is absent.
func hostileFile(t *testing.T, parts ...string) string {
	t.Helper()
	path := filepath.Join(append([]string{sharedHostile}, parts...)...)
	if _, err := os.Stat(path); err != nil {
		t.Skipf("%s is absent (it sits beside the repository in CI)", path)
	}
	return path
}

// hostileTFLite returns a crafted model of ../shared/hostile/tflite.
func hostileTFLite(t *testing.T, name string) string { return hostileFile(t, "tflite", name) }

// TestWritePathNeverPanics (D1): models whose fields the reader never
// needed panicked the writer. Each now gives a planned model that reads
// back, or one line and exit 2 with nothing written.
func TestWritePathNeverPanics(t *testing.T) {
	for _, name := range []string{"writer_panic_1.tflite", "writer_panic_2.tflite", "writer_panic_3.tflite", "writer_panic_4.tflite", "quant_len_256M.tflite"} {
		t.Run(name, func(t *testing.T) {
			in := hostileTFLite(t, name)
			out := filepath.Join(t.TempDir(), "out.tflite")
			code, _, stderr := cli(t, "", "plan", in, "-o", out, "--time-limit", "2s")
			assert.NotContains(t, stderr, "panic:")
			assert.NotContains(t, stderr, "goroutine ")
			switch code {
			case 0:
				_, err := tflite.ReadFile(out)
				assert.NoError(t, err)
			case 2:
				assert.Equal(t, 1, strings.Count(strings.TrimSpace(stderr), "\n")+1, stderr)
				assert.True(t, strings.HasPrefix(stderr, in+":"), stderr)
				assert.NoFileExists(t, out)
			default:
				t.Fatalf("exit %d: %s", code, stderr)
			}
		})
	}
}

// TestWriteKeepsWeights (D6): the metadata entry's buffer is also a
// constant tensor's: the plan goes into a buffer of its own and every
// weight reads back unchanged.
func TestWriteKeepsWeights(t *testing.T) {
	in := hostileTFLite(t, "shared_meta_weight.tflite")
	out := filepath.Join(t.TempDir(), "out.tflite")
	code, _, stderr := cli(t, "", "plan", in, "-o", out)
	require.Equal(t, 0, code, stderr)
	// formats/tflite's TestWriterHostileModels compares the weights.
	code, stdout, stderr := cli(t, "", "verify", out)
	assert.Equal(t, 0, code, stdout+stderr)
}

// TestTwoOfflineEntries (D7): TFLite Micro checks every
// OfflineMemoryAllocation entry and uses the last; verify checks the last
// (whose three overlaps the first hid) and says there were two, and plan
// writes its plan into the last.
func TestTwoOfflineEntries(t *testing.T) {
	in := hostileTFLite(t, "two_plans_small.tflite")
	code, stdout, _ := cli(t, "", "verify", in)
	assert.Equal(t, 1, code)
	assert.Contains(t, stdout, "2 OfflineMemoryAllocation entries: TFLite Micro checks each and uses the last")
	assert.Equal(t, 3, strings.Count(stdout, "overlap:"))
	out := filepath.Join(t.TempDir(), "out.tflite")
	code, _, stderr := cli(t, "", "plan", in, "-o", out)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "had 2 OfflineMemoryAllocation entries; the last")
	code, stdout, stderr = cli(t, "", "verify", out)
	assert.Equal(t, 0, code, stdout+stderr)
	assert.Contains(t, stdout, "offline part: valid")
}

// TestWriteCarriesUnknownFields (D17): a root-table field newer than
// optalloc's schema survives (formats/tflite's TestWriterHostileModels
// reads it back), and the original file follows the new root table byte
// for byte.
func TestWriteCarriesUnknownFields(t *testing.T) {
	in := hostileTFLite(t, "unknown_field.tflite")
	out := filepath.Join(t.TempDir(), "out.tflite")
	code, _, stderr := cli(t, "", "plan", in, "-o", out)
	require.Equal(t, 0, code, stderr)
	orig, err := os.ReadFile(in)
	require.NoError(t, err)
	got, err := os.ReadFile(out)
	require.NoError(t, err)
	require.Greater(t, len(got), len(orig))
	assert.Equal(t, orig, got[len(got)-len(orig):], "the original is not carried byte for byte")
	_, err = tflite.Decode(got, out)
	require.NoError(t, err)
}

// TestBlocksLayoutIntoTFLite (D13): --layout blocks with -o OUT.tflite wrote
// a CSV into the .tflite; it is refused before planning.
func TestBlocksLayoutIntoTFLite(t *testing.T) {
	in := needTFLite(t, "hello_world_int8.tflite")
	out := filepath.Join(t.TempDir(), "out.tflite")
	code, _, stderr := cli(t, "", "plan", in, "--layout", "blocks", "-o", out)
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "leave out --layout blocks")
	assert.NoFileExists(t, out)
}
