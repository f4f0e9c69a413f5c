package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A baseline must match its instances however their paths are spelled, and
// report the entries this run did not cover.
func TestCheckBaselineMatchesAnySpelling(t *testing.T) {
	dir := t.TempDir()
	base := filepath.Join(dir, "ci", "base.json")
	require.NoError(t, os.Mkdir(filepath.Join(dir, "ci"), 0o755))
	absIn, err := filepath.Abs(tinyCNN)
	require.NoError(t, err)
	link := filepath.Join(dir, "link.csv")
	require.NoError(t, os.Symlink(absIn, link))

	// Recorded with an absolute path.
	code, _, stderr := cli(t, "", "check", absIn, "--write-baseline", base, "-q")
	require.Equal(t, 0, code, stderr)
	b := readBaselineT(t, base)
	require.Len(t, b.Instances, 1)
	for k := range b.Instances {
		assert.False(t, filepath.IsAbs(k), "keys are relative to the baseline: %s", k)
		assert.True(t, strings.HasPrefix(k, "../"), k)
	}

	// Make the baseline's peak 13.2% smaller: every spelling must fail.
	for k, e := range b.Instances {
		e.Peak = int64(float64(e.Peak) / 1.132)
		b.Instances[k] = e
	}
	writeBaselineT(t, base, b)
	for _, in := range []string{tinyCNN, absIn, "../optalloc/" + tinyCNN, link} {
		code, out, stderr := cli(t, "", "check", in, "--baseline", base, "-q")
		assert.Equal(t, 1, code, "%s: %s%s", in, out, stderr)
		assert.Contains(t, out, "FAIL worse", in)
	}

	// A baseline keyed by absolute paths (as older versions wrote them).
	old := filepath.Join(dir, "old.json")
	data, err := json.Marshal(map[string]any{"optalloc_version": "0", "method": "greedy-size",
		"instances": map[string]any{absIn: map[string]any{"peak": 1, "status": "feasible"}}})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(old, data, 0o644))
	code, out, _ := cli(t, "", "check", tinyCNN, "--baseline", old, "-q")
	assert.Equal(t, 1, code, out)
	assert.Contains(t, out, "FAIL worse")
}

func TestCheckReportsMissingBaselineEntries(t *testing.T) {
	dir := t.TempDir()
	base := filepath.Join(dir, "base.json")
	code, _, stderr := cli(t, "", "check", tinyCNN, "--write-baseline", base, "-q")
	require.Equal(t, 0, code, stderr)
	b := readBaselineT(t, base)
	b.Instances["gone.csv"] = baselineEntry{Peak: 10, Status: "optimal"}
	writeBaselineT(t, base, b)
	code, out, stderr := cli(t, "", "check", tinyCNN, "--baseline", base, "-q")
	assert.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "missing")
	assert.Contains(t, out, "gone.csv")
	code, out, _ = cli(t, "", "check", tinyCNN, "--baseline", base, "-q", "--json")
	assert.Equal(t, 0, code)
	var j checkJSON
	require.NoError(t, json.Unmarshal([]byte(out), &j))
	assert.Equal(t, 1, j.Counts["missing"])
	assert.Equal(t, []string{"gone.csv"}, j.Missing)
}
