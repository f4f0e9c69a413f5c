//go:build linux

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Issue 42 (hostile round 4): the CLI's cases.

// TestScratchListIsAnInput: the list given to --scratch is an input, so
// an output naming it (plan -o, check --write-baseline) is refused with
// exit 2 and the list is left as it was (before, both replaced it, exit 0).
func TestScratchListIsAnInput(t *testing.T) {
	in := needTFLite(t, "keyword_scrambled_8bit.tflite")
	dir := t.TempDir()
	list := filepath.Join(dir, "list.csv")
	want := []byte("id,lower,upper,size\n")
	require.NoError(t, os.WriteFile(list, want, 0o644))
	link := filepath.Join(dir, "link.csv")
	require.NoError(t, os.Symlink("list.csv", link))
	tests := []struct {
		name string
		args []string
	}{
		{"plan -o", []string{"plan", in, "--scratch", list, "-o", list}},
		{"plan -o a link", []string{"plan", in, "--scratch", list, "-o", link}},
		{"check --write-baseline", []string{"check", in, "--scratch", list, "--write-baseline", list}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := cli(t, "", tc.args...)
			assert.Equal(t, 2, code, stderr)
			assert.Contains(t, stderr, "is the input")
			got, err := os.ReadFile(list)
			require.NoError(t, err)
			assert.Equal(t, want, got)
		})
	}
}

// TestTwoWritersToStdout: -o naming standard output beside --json (both
// written to one stream before) is refused like -o - --json.
func TestTwoWritersToStdout(t *testing.T) {
	for _, o := range []string{"-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"} {
		code, stdout, stderr := cli(t, "", "plan", tinyCNN, "-o", o, "--json", "-q")
		assert.Equal(t, 2, code, "%s: %s", o, stderr)
		assert.Contains(t, stderr, "both write to stdout", o)
		assert.Empty(t, stdout, o)
	}
}

// TestVerifyPlanAsProblem: verify PLAN PLAN reads the plan CSV's own
// problem (its alias columns included: a valid alias plan was rejected as
// overlapping), and swapped arguments get a hint instead of a bare parser
// error.
func TestVerifyPlanAsProblem(t *testing.T) {
	dir := t.TempDir()
	plan := planFile(t, dir)
	code, stdout, stderr := cli(t, "", "verify", plan, plan)
	assert.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "valid: 12 buffers")
	code, _, stderr = cli(t, "", "verify", plan, tinyCNN)
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "are the arguments swapped?")
	alias := "../../../shared/hostile/r4/plans/alias_plan.csv"
	if _, err := os.Stat(alias); err == nil {
		code, stdout, stderr = cli(t, "", "verify", alias, alias)
		assert.Equal(t, 0, code, stdout+stderr)
	}
}

// TestVizWarnsOnAWrongStatedPeak: a JSON plan whose stated peak is not its
// placements' is drawn with a warning (verify flags it; viz was silent).
func TestVizWarnsOnAWrongStatedPeak(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "p.json")
	require.NoError(t, os.WriteFile(in, []byte(`{"peak": 100, "placements": [{"id": "x", "offset": 0, "size": 4096, "start": 0, "end": 4}]}`), 0o644))
	code, _, stderr := cli(t, "", "viz", in, "--svg", filepath.Join(dir, "p.svg"))
	assert.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "wrong-peak: the plan states peak 100; its placements reach 4096")
}

// TestClosedPipeOneRule: whatever goes to standard output (the plan with
// -o -, the JSON report with --json), a write the closed pipe refuses ends
// the command with exit 1 and "broken pipe"; output the pipe accepted
// before its reader left was delivered (exit 0). plan --json | head exited
// 0 and plan -o - | head 1 only because the JSON fit in the pipe.
func TestClosedPipeOneRule(t *testing.T) {
	for _, args := range [][]string{
		{"plan", tinyCNN, "-o", "-", "-q"},
		{"plan", tinyCNN, "--json", "-q"},
	} {
		cmd := exec.Command(os.Args[0], args...)
		cmd.Env = append(os.Environ(), cliChildEnv+"=1")
		r, w, err := os.Pipe()
		require.NoError(t, err)
		require.NoError(t, r.Close()) // the reader is gone before anything is written
		cmd.Stdout = w
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err = cmd.Run()
		w.Close()
		var ee *exec.ExitError
		require.ErrorAs(t, err, &ee, "%v: %s", args, stderr.String())
		assert.Equal(t, 1, ee.ExitCode(), "%v: %s", args, stderr.String())
		assert.Contains(t, stderr.String(), "broken pipe", args)
	}
}

// TestWorkBudgetFlags: check solves under a work budget by default and
// records it in the baseline; plan --work gives the same plan run after
// run; a negative budget is refused.
func TestWorkBudgetFlags(t *testing.T) {
	dir := t.TempDir()
	base := filepath.Join(dir, "b.json")
	code, _, stderr := cli(t, "", "check", tinyCNN, "--method", "auto", "--write-baseline", base, "-q")
	require.Equal(t, 0, code, stderr)
	data, err := os.ReadFile(base)
	require.NoError(t, err)
	assert.Contains(t, string(data), `"work": 1000000`)
	var first string
	for range 3 {
		code, out, stderr := cli(t, "", "plan", "../../examples/resnet18.graph.json", "--work", "20000", "-o", "-", "-q")
		require.Equal(t, 0, code, stderr)
		if first == "" {
			first = out
		}
		assert.Equal(t, first, out)
	}
	code, _, stderr = cli(t, "", "plan", tinyCNN, "--work", "-1")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "--work must not be negative")
}

// TestVersionNamesTheCommit: `optalloc version` adds the commit Go's build
// information records (it printed 0.1.0-dev alone).
func TestVersionNamesTheCommit(t *testing.T) {
	info := &debug.BuildInfo{Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "b1a5be3c0ffee0123456789"}, {Key: "vcs.modified", Value: "true"}}}
	assert.Equal(t, " (commit b1a5be3c0ffe+modified)", buildCommit(info, true))
	assert.Equal(t, "", buildCommit(&debug.BuildInfo{}, true), "no VCS information (go build -buildvcs=false)")
	assert.Equal(t, "", buildCommit(nil, false))
	code, out, _ := cli(t, "", "version")
	assert.Equal(t, 0, code)
	assert.True(t, strings.HasPrefix(out, "optalloc "+Version), out)
}

// TestVizGapAgainstTheLowerBound: viz measures the picture's gap against
// the solve's starting lower bound, as plan does (two 1-byte buffers
// aligned to 64 live together: max-live 2, bound 65; the optimal plan
// showed a gap of 3150% against max-live), and says when --hide-weights
// has no kinds to go by.
func TestVizGapAgainstTheLowerBound(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "p.csv")
	require.NoError(t, os.WriteFile(in, []byte("id,lower,upper,size,alignment,offset\na,0,2,1,64,0\nb,0,2,1,64,64\n"), 0o644))
	svg := filepath.Join(dir, "p.svg")
	code, _, stderr := cli(t, "", "viz", in, "--svg", svg, "--hide-weights")
	require.Equal(t, 0, code, stderr)
	data, err := os.ReadFile(svg)
	require.NoError(t, err)
	assert.Contains(t, string(data), "lower bound 65")
	assert.Contains(t, string(data), "gap 0.00%")
	assert.Contains(t, stderr, "--hide-weights hides nothing")
}
