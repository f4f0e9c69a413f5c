package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	devreport "github.com/optalloc/optalloc/internal/report"
)

func TestParseConfig(t *testing.T) {
	c, err := parseConfig("1000000, 2000000", "random,transformer,skips", "1,2", "10s,30s", 3)
	require.NoError(t, err)
	assert.Equal(t, []int{1000000, 2000000}, c.sizes)
	assert.Equal(t, []string{"random", "transformer", "skips"}, c.traces)
	assert.Equal(t, []int{1, 2}, c.threads)
	assert.Equal(t, []time.Duration{10 * time.Second, 30 * time.Second}, c.limits)
	for _, bad := range []struct{ sizes, traces, threads, limits string }{
		{"0", "random", "1", "10s"},
		{"1e6", "random", "1", "10s"},
		{"10", "chain", "1", "10s"},
		{"10", "random", "zero", "10s"},
		{"10", "random", "1", "-1s"},
	} {
		_, err := parseConfig(bad.sizes, bad.traces, bad.threads, bad.limits, 3)
		assert.Error(t, err, "%+v", bad)
	}
	_, err = parseConfig("10", "random", "1", "1s", 0)
	assert.Error(t, err)
}

// TestSkips cuts the skip-connection trace at exactly n buffers.
func TestSkips(t *testing.T) {
	for _, n := range []int{1, 100, 30000} {
		p := skips(n)
		require.Len(t, p.Buffers, n)
		require.NoError(t, p.Validate())
	}
}

// TestPrepareHere generates a trace and reports it and its reading as
// JSON, as the child process of prepareIn does.
func TestPrepareHere(t *testing.T) {
	dir := t.TempDir()
	var out strings.Builder
	require.NoError(t, prepareHere("skips,500,"+dir, 1, &out))
	var pr prepared
	require.NoError(t, json.Unmarshal([]byte(out.String()), &pr))
	assert.Equal(t, 500, pr.Buffers)
	assert.Equal(t, 500, pr.Rows)
	assert.Equal(t, filepath.Join(dir, "skips-500.csv"), pr.Path)
	assert.Positive(t, pr.MaxLive)
	assert.FileExists(t, pr.Path)
	for _, bad := range []string{"skips,500", "skips,x," + dir} {
		assert.Error(t, prepareHere(bad, 1, &out), bad)
	}
}

func TestMedian(t *testing.T) {
	assert.Equal(t, 0.0, median(nil))
	assert.Equal(t, 2.0, median([]float64{3, 1, 2}))
	assert.Equal(t, 2.5, median([]float64{4, 1, 3, 2}))
}

func TestParseSummary(t *testing.T) {
	var r planRun
	require.NoError(t, parseSummary([]byte(`{"peak": 120, "status": "feasible", "stats": {"first_plan_ms": 1500}}`), &r))
	assert.Equal(t, planRun{peak: 120, status: "feasible", firstPlan: 1.5}, r)
	r = planRun{peak: -1, firstPlan: -1}
	require.NoError(t, parseSummary([]byte(`{"peak": null, "status": "unknown", "stats": {}}`), &r))
	assert.Equal(t, planRun{peak: -1, status: "unknown", firstPlan: -1}, r)
	assert.Error(t, parseSummary([]byte("peak=1"), &r))
}

// TestCaseColumns checks the first-plan, gap and status columns when the
// runs agree and when they do not.
func TestCaseColumns(t *testing.T) {
	c := caseResult{input: input{maxLive: 100}, runs: []planRun{
		{firstPlan: 1, peak: 110, status: "feasible"},
		{firstPlan: 3, peak: 104, status: "feasible"},
		{firstPlan: -1, peak: -1, status: "unknown"},
	}}
	assert.Equal(t, "2.00 (none in 1 of 3)", c.firstPlan())
	assert.Equal(t, "7.00%", c.gap())
	assert.Equal(t, "feasible ×2, unknown ×1", c.status())
	c.runs = c.runs[2:]
	assert.Equal(t, "none", c.firstPlan())
	assert.Equal(t, "–", c.gap())
	assert.Equal(t, "unknown", c.status())
}

// TestOutputReadme replaces the text between the markers and refuses a
// file without them, leaving it as it was.
func TestOutputReadme(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "README.md")
	require.NoError(t, os.WriteFile(path, []byte("# x\n"+begin+"\nold\n"+end+"\ntail\n"), 0o644))
	require.NoError(t, devreport.Write([]byte("| new |\n"), "-", path, begin, end))
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "# x\n"+begin+"\n| new |\n"+end+"\ntail\n", string(got))

	bare := filepath.Join(dir, "bare.md")
	require.NoError(t, os.WriteFile(bare, []byte("no markers\n"), 0o644))
	err = devreport.Write([]byte("x"), "-", bare, begin, end)
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), bare+": "))
	got, err = os.ReadFile(bare)
	require.NoError(t, err)
	assert.Equal(t, "no markers\n", string(got))

	out := filepath.Join(dir, "scale.md")
	require.NoError(t, devreport.Write([]byte("table\n"), out, "", begin, end))
	got, err = os.ReadFile(out)
	require.NoError(t, err)
	assert.Equal(t, "table\n", string(got))
}

// TestMarkdownRows: the thread counts of one trace, size and time limit
// share a row, their figures side by side; a gap or status they share is
// written once; the CSV reads are one line.
func TestMarkdownRows(t *testing.T) {
	in := input{trace: "random", buffers: 1000, maxLive: 100}
	r := report{cfg: config{reps: 1, command: "scale"},
		cases: []caseResult{
			{input: in, threads: 1, limit: time.Second, runs: []planRun{{firstPlan: 1, wall: 2, cpu: 2, rssMiB: 10, peak: 110, status: "feasible"}}},
			{input: in, threads: 2, limit: time.Second, runs: []planRun{{firstPlan: 0.5, wall: 1.5, cpu: 2.5, rssMiB: 12, peak: 110, status: "feasible"}}},
			{input: in, threads: 1, limit: 2 * time.Second, runs: []planRun{{firstPlan: 1, wall: 2, cpu: 2, rssMiB: 10, peak: 105, status: "feasible"}}},
		},
		reads: []readResult{{input: "a.csv", rows: 2_000_000, seconds: 1}, {input: "b.csv", rows: 1_000_000, seconds: 1}},
	}
	md := string(r.markdown())
	assert.Contains(t, md, "| random | 1000 | 1s | 1 / 2 | 1.00 / 0.50 | 2.00 / 1.50 | 2.00 / 2.50 | 10 / 12 | 10.00% | feasible |\n")
	assert.Contains(t, md, "| random | 1000 | 2s | 1 | 1.00 | 2.00 | 2.00 | 10 | 5.00% | feasible |\n")
	assert.Contains(t, md, "CSV reading (`formats.Load`, medians of 1): a.csv 2.00 M rows/s (1.000 s), b.csv 1.00 M rows/s (1.000 s).\n")
}

// TestSummaryRows: the README's compact table has one row per trace and
// size, for the first time limit only, the thread counts' wall times side
// by side and a gap or status they share written once.
func TestSummaryRows(t *testing.T) {
	in := input{trace: "random", buffers: 1000, maxLive: 100}
	skips := input{trace: "skips", buffers: 1000, maxLive: 200}
	r := report{cfg: config{reps: 3, limits: []time.Duration{time.Second, 2 * time.Second}, threads: []int{1, 2}},
		cases: []caseResult{
			{input: in, threads: 1, limit: time.Second, runs: []planRun{{wall: 2, peak: 110, status: "feasible"}}},
			{input: in, threads: 2, limit: time.Second, runs: []planRun{{wall: 1.5, peak: 110, status: "feasible"}}},
			{input: in, threads: 1, limit: 2 * time.Second, runs: []planRun{{wall: 9, peak: 105, status: "feasible"}}},
			{input: skips, threads: 1, limit: time.Second, runs: []planRun{{wall: 3, peak: 200, status: "optimal"}}},
			{input: skips, threads: 2, limit: time.Second, runs: []planRun{{wall: 4, peak: 210, status: "feasible"}}},
		},
	}
	md := string(r.summary("docs/results.md"))
	assert.Contains(t, md, "medians of 3 runs of `optalloc plan FILE --time-limit 1s --threads T` (the whole table: docs/results.md).\n")
	assert.Contains(t, md, "| trace | buffers | peak vs max-live | wall (s), threads 1 / 2 | status |\n")
	assert.Contains(t, md, "| random | 1000 | 10.00% | 2.00 / 1.50 | feasible |\n")
	assert.Contains(t, md, "| skips | 1000 | 0.00% / 5.00% | 3.00 / 4.00 | optimal / feasible |\n")
	assert.NotContains(t, md, "9.00", "the second time limit is not in the summary")
	assert.NotContains(t, string(r.summary("")), "the whole table")
}
