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

func TestPlanBlocksWritesVerifiedPlanAndSchedule(t *testing.T) {
	dir := t.TempDir()
	plan, sched := filepath.Join(dir, "b.csv"), filepath.Join(dir, "s.json")
	in := "../../examples/two-models-shared-weights.graph.json"
	code, _, stderr := cli(t, "", "plan", in, "--layout", "blocks", "-o", plan, "--schedule", sched, "--time-limit", "2s")
	require.Equal(t, 0, code, stderr)
	assert.Regexp(t, `total_bytes=\d+ lower_bound=\d+ gap=\S+% blocks=\d+ min_blocks=\d+ status=(optimal|feasible) method=\S+ time=`, stderr)
	code, stdout, stderr := cli(t, "", "verify", in, plan, "--layout", "blocks")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "valid: 245 buffers")
	data, err := os.ReadFile(sched)
	require.NoError(t, err)
	var s map[string]any
	require.NoError(t, json.Unmarshal(data, &s))
	assert.Contains(t, s, "steps")
	assert.Contains(t, s, "models", "qualified ids give a per-model view")
}

func TestPlanBlocksMaxBlocksInfeasible(t *testing.T) {
	out := filepath.Join(t.TempDir(), "b.csv")
	code, stdout, stderr := cli(t, "", "plan", "../../examples/tiny-cnn.csv", "--layout", "blocks", "--max-blocks", "2", "-o", out)
	assert.Equal(t, 1, code)
	assert.Empty(t, stdout)
	assert.Contains(t, stderr, "status=infeasible")
	assert.Contains(t, stderr, "3 buffers are alive at once")
	_, err := os.Stat(out)
	assert.True(t, os.IsNotExist(err))
}

func TestBlocksUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"plan", "../../examples/tiny-cnn.csv", "--layout", "cubes"},
		{"plan", "../../examples/tiny-cnn.csv", "--layout", "blocks", "--method", "greedy-size"},
		{"plan", "../../examples/tiny-cnn.csv", "--layout", "blocks", "--capacity", "100"},
		{"compare", "../../examples/tiny-cnn.csv", "--layout", "blocks", "--methods", "skyline"},
	} {
		code, _, stderr := cli(t, "", args...)
		assert.Equal(t, 2, code, "%v: %s", args, stderr)
	}
}

func TestCompareAndCheckBlocks(t *testing.T) {
	code, stdout, stderr := cli(t, "", "compare", "--layout", "blocks", "../../examples/tiny-cnn.csv", "../../examples/resnet18.graph.json", "--time-limit", "1s", "--quiet")
	require.Equal(t, 0, code, stderr)
	rows := 0
	for _, l := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(l, "| ../../examples/") {
			rows++
		}
	}
	assert.Equal(t, 2, rows, stdout)
	base := filepath.Join(t.TempDir(), "base.json")
	code, _, stderr = cli(t, "", "check", "--layout", "blocks", "../../examples/tiny-cnn.csv", "--write-baseline", base, "--quiet")
	require.Equal(t, 0, code, stderr)
	code, _, stderr = cli(t, "", "check", "--layout", "blocks", "../../examples/tiny-cnn.csv", "--baseline", base, "--quiet")
	assert.Equal(t, 0, code, stderr)
}
