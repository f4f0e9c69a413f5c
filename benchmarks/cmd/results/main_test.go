package main

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/optalloc/optalloc/corpus"
	"github.com/optalloc/optalloc/internal/report"
	"github.com/optalloc/optalloc/internal/tflmrun"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRunWritesReport(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "toy"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "toy", "five.csv"),
		[]byte("id,lower,upper,size\nb1,0,3,4\nb2,3,9,4\nb3,0,9,4\nb4,9,21,4\nb5,0,21,4\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "toy", "other.csv"), []byte("id,lower,upper,size\na,0,1,3\n"), 0o644))
	out := filepath.Join(dir, "results.md")
	err := run(context.Background(), dir, out, "", "heuristic,auto", "five",
		testMeta(2*time.Second, "test run", "-shared", dir, "-o", out))
	require.NoError(t, err)
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	md := string(data)
	assert.Contains(t, md, "### toy")
	assert.Contains(t, md, "| five.csv | 5 | 12 | 12 | **12** · 0.00% · optimal")
	assert.NotContains(t, md, "other.csv", "-match keeps five only")
	assert.Contains(t, md, runtime.Version())
	assert.Contains(t, md, "test run")
	assert.True(t, strings.Contains(md, "go run ./benchmarks/cmd/results -shared "+dir))

	assert.Error(t, run(context.Background(), dir, out, "", "nope", "", testMeta(time.Second, "")))
	assert.Error(t, run(context.Background(), filepath.Join(dir, "missing"), out, "", "", "", testMeta(time.Second, "")))

	// -readme splices the tables between the markers.
	readme := filepath.Join(dir, "README.md")
	require.NoError(t, os.WriteFile(readme, []byte("# toy\n<!-- results:begin -->\nstale\n<!-- results:end -->\nend\n"), 0o644))
	require.NoError(t, run(context.Background(), dir, "-", readme, "heuristic", "five", testMeta(time.Second, "")))
	data, err = os.ReadFile(readme)
	require.NoError(t, err)
	assert.NotContains(t, string(data), "stale")
	assert.Contains(t, string(data), "| five.csv | 5 | 12 | 12 | **12**")
	assert.True(t, strings.HasSuffix(string(data), "<!-- results:end -->\nend\n"))
	require.NoError(t, os.WriteFile(readme, []byte("# no markers\n"), 0o644))
	assert.ErrorContains(t, run(context.Background(), dir, "-", readme, "heuristic", "five", testMeta(time.Second, "")), "results:begin")
}

// testMeta is a report header for a run with args.
func testMeta(limit time.Duration, note string, args ...string) corpus.Meta {
	return corpus.Meta{Command: report.CommandLine("go run ./benchmarks/cmd/results", args), Date: time.Now(), Machine: report.Machine(), GoVersion: runtime.Version(),
		Revision: "test", TimeLimit: limit, Workers: 1, Note: note}
}

// TestModelsTable plans the shared TFLite models into the README's models
// table: every row has both arenas, optalloc's is never the larger one.
func TestModelsTable(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "..", "shared", "models")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("the shared models are absent (%v)", err)
	}
	paths, err := findModels(dir, nil)
	require.NoError(t, err)
	var tfl []string
	for _, p := range paths {
		if strings.HasSuffix(p, "hello_world_int8.tflite") || strings.HasSuffix(p, "person_detect_vela.tflite") {
			tfl = append(tfl, p)
		}
	}
	require.Len(t, tfl, 2)
	md, err := runModels(context.Background(), tfl, modelsConfig{limit: 5 * time.Second}, testMeta(5*time.Second, ""))
	require.NoError(t, err)
	assert.Contains(t, string(md), "| hello_world_int8.tflite | 10 / 6 / 0 | 4 | 32 | **32** | 32 | 0.00% | optimal |")
	assert.Contains(t, string(md), "| person_detect_vela.tflite | 6 / 2 / 0 | 4 | 74464 | **74464** | 74464 | 0.00% | optimal |")
	assert.NotContains(t, string(md), "TFLM head")
	_, err = findModels(t.TempDir(), nil)
	assert.ErrorContains(t, err, "no tflite")
}

// TestModelsTableOnTFLM: with tflm_run the TFLite rows show the heads
// TFLite Micro reports with its own planner and with optalloc's plan, the
// latter equal to the arena stated; a model the reference kernels cannot
// run shows "–".
func TestModelsTableOnTFLM(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "..", "shared")
	bin, ok := tflmrun.Find(filepath.Join(dir, "tflm", "tflm_run"))
	if !ok {
		t.Skip("tflm_run is absent (it sits beside the repository in CI)")
	}
	var paths []string
	for _, f := range []string{"keyword_scrambled_8bit.tflite", "trained_lstm_int8.tflite", "person_detect_vela.tflite"} {
		paths = append(paths, filepath.Join(dir, "models", "tflite", f))
	}
	md, err := runModels(context.Background(), paths, modelsConfig{limit: 5 * time.Second, tflm: bin}, testMeta(5*time.Second, ""))
	require.NoError(t, err)
	assert.Contains(t, string(md), "| keyword_scrambled_8bit.tflite | 54 / 31 / 7 | 16 + 14 | 672 | **672** | 672 | 0.00% | optimal |")
	assert.Contains(t, string(md), " 672 | 672 |\n")
	assert.Contains(t, string(md), "| trained_lstm_int8.tflite | 27 / 15 / 2 | 10 + 4 | 1536 | **1536** |")
	assert.Contains(t, string(md), " 1536 | 1536 |\n")
	assert.Contains(t, string(md), " – | – |\n", "the Vela model has no reference kernel for its NPU operator")
}
