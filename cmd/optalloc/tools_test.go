package main

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/formats"
	"github.com/optalloc/optalloc/model"
)

// Helpers shared by the tests of compare, check, viz and progress.

// toolRun runs the CLI in-process and returns its exit code and streams.
func toolRun(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

// sharedDir returns ../shared/benchmarks relative to the repo root, or skips.
func sharedDir(t *testing.T) string {
	t.Helper()
	d := filepath.Join("..", "..", "..", "shared", "benchmarks")
	if _, err := os.Stat(filepath.Join(d, "minimalloc", "input.12.csv")); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("shared benchmark data missing at %s (CI must have it): %v", d, err)
		}
		t.Skipf("shared benchmark data not found at %s: skipping", d)
	}
	return d
}

// writeRandomCSV writes a random problem of n buffers and returns its path.
func writeRandomCSV(t *testing.T, dir string, seed uint64, n int) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	var b strings.Builder
	b.WriteString("id,lower,upper,size\n")
	for i := 0; i < n; i++ {
		s := rng.Int64N(int64(2 * n))
		fmt.Fprintf(&b, "b%d,%d,%d,%d\n", i, s, s+1+rng.Int64N(int64(n)), 1+rng.Int64N(1000))
	}
	path := filepath.Join(dir, fmt.Sprintf("rand%d.csv", seed))
	require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
	return path
}

func loadCSV(t *testing.T, path string) *model.Problem {
	t.Helper()
	p, err := formats.Load(path)
	require.NoError(t, err)
	return p
}
