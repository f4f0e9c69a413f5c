package main

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

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
	err := run(context.Background(), dir, out, "", 2*time.Second, "heuristic,auto", 1, "five", "test run",
		[]string{"-shared", dir, "-o", out})
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

	assert.Error(t, run(context.Background(), dir, out, "", time.Second, "nope", 1, "", "", nil))
	assert.Error(t, run(context.Background(), filepath.Join(dir, "missing"), out, "", time.Second, "", 1, "", "", nil))

	// -readme splices the tables between the markers.
	readme := filepath.Join(dir, "README.md")
	require.NoError(t, os.WriteFile(readme, []byte("# toy\n<!-- results:begin -->\nstale\n<!-- results:end -->\nend\n"), 0o644))
	require.NoError(t, run(context.Background(), dir, "-", readme, time.Second, "heuristic", 1, "five", "", nil))
	data, err = os.ReadFile(readme)
	require.NoError(t, err)
	assert.NotContains(t, string(data), "stale")
	assert.Contains(t, string(data), "| five.csv | 5 | 12 | 12 | **12**")
	assert.True(t, strings.HasSuffix(string(data), "<!-- results:end -->\nend\n"))
	require.NoError(t, os.WriteFile(readme, []byte("# no markers\n"), 0o644))
	assert.ErrorContains(t, run(context.Background(), dir, "-", readme, time.Second, "heuristic", 1, "five", "", nil), "results:begin")
}
