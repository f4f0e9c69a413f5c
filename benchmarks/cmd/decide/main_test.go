package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	devreport "github.com/optalloc/optalloc/internal/report"
)

func TestMedian(t *testing.T) {
	opt := func(s sample) float64 { return s.opt }
	for _, tc := range []struct {
		in   []float64
		want float64
	}{
		{nil, 0},
		{[]float64{2}, 2},
		{[]float64{3, 1, 2}, 2},
		{[]float64{4, 1, 3, 2}, 2.5},
		{[]float64{0.5, 9, 0.4}, 0.5},
	} {
		var ss []sample
		for _, v := range tc.in {
			ss = append(ss, sample{opt: v})
		}
		assert.InDelta(t, tc.want, median(ss, opt), 1e-12, "%v", tc.in)
	}
}

func TestRatioAndThousands(t *testing.T) {
	for _, tc := range []struct {
		o, m float64
		want string
	}{
		{0.5, 10, "**0.050**"},
		{1, 10, "**0.100**"},
		{2.74, 6, "0.457"},
		{1, 0, "–"},
	} {
		assert.Equal(t, tc.want, ratio(tc.o, tc.m), "%v/%v", tc.o, tc.m)
	}
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1 000", 272239: "272 239", 1234567: "1 234 567"} {
		assert.Equal(t, want, thousands(n))
	}
}

func testTable() *table {
	return &table{
		when: time.Date(2026, 11, 28, 9, 30, 0, 0, time.UTC), machine: "linux/amd64, 2 CPUs", revision: "commit abc1234",
		load0: "1.50", load1: "", runs: 3, note: "Nothing else ran.", command: "go run ./benchmarks/cmd/decide -minimalloc mm",
		rows: []row{
			{name: "A", samples: []sample{{0.40, 7.0, 100}, {0.30, 7.4, 100}, {0.50, 7.6, 100}}},
			{name: "I", samples: []sample{{3.0, 6.0, 272239}, {2.0, 5.0, 272239}, {4.0, 6.5, 272239}}},
		},
	}
}

// TestMarkdown checks the header and every cell of a small table.
func TestMarkdown(t *testing.T) {
	md := string(testTable().markdown())
	lines := strings.Split(strings.TrimSpace(md), "\n")
	require.Len(t, lines, 7)
	assert.Contains(t, lines[0], "Measured 2026-11-28 09:30 UTC on linux/amd64, 2 CPUs, optalloc commit abc1234")
	assert.Contains(t, lines[0], "1-minute load 1.50 at the start, unknown at the end.")
	assert.Contains(t, lines[0], "Nothing else ran.")
	assert.Contains(t, lines[0], "medians of 3 interleaved runs")
	assert.Contains(t, lines[0], "`go run ./benchmarks/cmd/decide -minimalloc mm`")
	assert.Equal(t, "", lines[1])
	assert.Equal(t, "| instance | optalloc CPU (s) | MiniMalloc CPU (s) | ratio | nodes |", lines[2])
	assert.Equal(t, "| A | 0.400 | 7.40 | **0.054** | 100 |", lines[4])
	assert.Equal(t, "| I | 3.000 | 6.00 | 0.500 | 272 239 |", lines[5])
	assert.Equal(t, "| all | 3.40 | 13.4 | 0.254 | |", lines[6])
}

// TestWriteBetweenMarkers splices the table into a README between the
// markers and leaves the rest alone; without the markers nothing is
// written.
func TestWriteBetweenMarkers(t *testing.T) {
	dir := t.TempDir()
	readme := filepath.Join(dir, "README.md")
	before := "# title\n\ntext\n" + begin + "\nold table\n" + end + "\nafter\n"
	require.NoError(t, os.WriteFile(readme, []byte(before), 0o644))
	md := testTable().markdown()
	require.NoError(t, devreport.Write(md, "-", readme, begin, end))
	got, err := os.ReadFile(readme)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(got), "# title\n\ntext\n"+begin+"\nMeasured "))
	assert.True(t, strings.HasSuffix(string(got), "| all | 3.40 | 13.4 | 0.254 | |\n"+end+"\nafter\n"))
	assert.NotContains(t, string(got), "old table")
	// The second write gives the same file (nothing accumulates).
	require.NoError(t, devreport.Write(md, "-", readme, begin, end))
	again, err := os.ReadFile(readme)
	require.NoError(t, err)
	assert.Equal(t, string(got), string(again))

	bare := filepath.Join(dir, "bare.md")
	require.NoError(t, os.WriteFile(bare, []byte("no markers\n"), 0o644))
	require.Error(t, devreport.Write(md, "-", bare, begin, end))
	kept, err := os.ReadFile(bare)
	require.NoError(t, err)
	assert.Equal(t, "no markers\n", string(kept))
}

func TestCheckPlan(t *testing.T) {
	peak := func(v int64) *int64 { return &v }
	for _, tc := range []struct {
		po planOutput
		ok bool
	}{
		{planOutput{Status: "optimal", Peak: peak(1048576)}, true},
		{planOutput{Status: "feasible", Peak: peak(1000000)}, true},
		{planOutput{Status: "feasible", Peak: peak(1048577)}, false},
		{planOutput{Status: "unknown"}, false},
		{planOutput{Status: "infeasible"}, false},
		{planOutput{Status: "optimal"}, false},
	} {
		assert.Equal(t, tc.ok, checkPlan(tc.po) == nil, "%+v", tc.po)
	}
}

// TestCheckConfig: a missing or unusable binary, or a missing instance, is
// a usage error (exit 2) found before anything runs.
func TestCheckConfig(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "minimalloc")
	require.NoError(t, os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755))
	plain := filepath.Join(dir, "plain")
	require.NoError(t, os.WriteFile(plain, []byte("x"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "A.1048576.csv"), []byte("id,lower,upper,size\n"), 0o644))
	good := config{minimalloc: bin, dir: dir, names: []string{"A"}, runs: 3, limit: time.Minute}
	require.NoError(t, good.check())
	for name, mod := range map[string]func(*config){
		"no binary":       func(c *config) { c.minimalloc = "" },
		"absent binary":   func(c *config) { c.minimalloc = filepath.Join(dir, "nothere") },
		"directory":       func(c *config) { c.minimalloc = dir },
		"not executable":  func(c *config) { c.minimalloc = plain },
		"absent optalloc": func(c *config) { c.optalloc = filepath.Join(dir, "nothere") },
		"no runs":         func(c *config) { c.runs = 0 },
		"no limit":        func(c *config) { c.limit = 0 },
		"absent instance": func(c *config) { c.names = []string{"A", "B"} },
	} {
		c := good
		mod(&c)
		err := c.check()
		require.Error(t, err, name)
		assert.True(t, errors.Is(err, errUsage), name)
	}
}

// TestMissingMiniMallocExits2 runs the command (this test binary as main)
// with a MiniMalloc path that does not exist: one line, exit status 2.
func TestMissingMiniMallocExits2(t *testing.T) {
	if os.Getenv("DECIDE_RUN_MAIN") == "1" {
		os.Args = append([]string{"decide"}, strings.Fields(os.Getenv("DECIDE_ARGS"))...)
		main()
		return
	}
	dir := t.TempDir()
	readme := filepath.Join(dir, "README.md")
	require.NoError(t, os.WriteFile(readme, []byte(begin+"\n"+end+"\n"), 0o644))
	cmd := exec.Command(os.Args[0], "-test.run=^TestMissingMiniMallocExits2$")
	cmd.Env = append(os.Environ(), "DECIDE_RUN_MAIN=1",
		"DECIDE_ARGS=-minimalloc "+filepath.Join(dir, "absent")+" -shared "+dir+" -readme "+readme)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, string(out))
	assert.Equal(t, 2, ee.ExitCode())
	assert.Contains(t, string(out), "decide: MiniMalloc binary "+filepath.Join(dir, "absent")+" is absent")
	kept, err := os.ReadFile(readme)
	require.NoError(t, err)
	assert.Equal(t, begin+"\n"+end+"\n", string(kept))
}
