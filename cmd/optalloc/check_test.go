package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/corpus"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/solve"
)

func readBaselineT(t *testing.T, path string) *baselineFile {
	t.Helper()
	b, err := readBaseline(path)
	require.NoError(t, err)
	return b
}

func writeBaselineT(t *testing.T, path string, b *baselineFile) {
	t.Helper()
	data, err := json.Marshal(b)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, data, 0o644))
}

func TestCheckGateOnShared(t *testing.T) {
	inputs := threeShared(t)
	dir := t.TempDir()
	base := filepath.Join(dir, "base.json")

	code, out, stderr := toolRun(t, append([]string{"check", "--write-baseline", base}, inputs...)...)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "3 new")
	b := readBaselineT(t, base)
	require.Len(t, b.Instances, 3)
	assert.Equal(t, Version, b.Version)
	assert.Equal(t, defaultCheckMethod(), b.Method)
	for _, in := range inputs {
		e, ok := b.Instances[baselineKey(base, in)]
		require.True(t, ok, in)
		assert.Positive(t, e.Peak)
		assert.Equal(t, Version, e.Version)
		assert.NotEmpty(t, e.Status)
	}

	// A fresh baseline passes.
	code, out, stderr = toolRun(t, append([]string{"check", "--baseline", base}, inputs...)...)
	require.Equal(t, 0, code, stderr+out)
	assert.Contains(t, out, "check passed: 3 instances (3 ok)")

	// Halve one peak in the baseline: the check fails on that instance only.
	victim := baselineKey(base, inputs[1])
	e := b.Instances[victim]
	e.Peak /= 2
	b.Instances[victim] = e
	writeBaselineT(t, base, b)
	code, out, stderr = toolRun(t, append([]string{"check", "--baseline", base, "--tolerance", "5"}, inputs...)...)
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "FAIL worse    "+inputs[1]+": peak")
	assert.Contains(t, out, "tolerance 5%")
	assert.Contains(t, stderr, "1 of 3 instances regressed")

	// The same, as JSON.
	code, out, _ = toolRun(t, append([]string{"check", "--baseline", base, "--json"}, inputs...)...)
	assert.Equal(t, 1, code)
	var r checkJSON
	require.NoError(t, json.Unmarshal([]byte(out), &r))
	assert.False(t, r.Passed)
	assert.Equal(t, map[string]int{"ok": 2, "worse": 1}, r.Counts)
	require.Len(t, r.Instances, 3)
	w := r.Instances[1]
	assert.Equal(t, "worse", w.Verdict)
	require.NotNil(t, w.BaselinePeak)
	require.NotNil(t, w.ChangePercent)
	assert.InDelta(t, float64(w.Peak-*w.BaselinePeak)/float64(*w.BaselinePeak)*100, *w.ChangePercent, 1e-9)
	assert.GreaterOrEqual(t, *w.ChangePercent, 99.0)

	// A tolerance above the change lets it pass.
	code, _, stderr = toolRun(t, append([]string{"check", "--baseline", base, "--tolerance", "150"}, inputs...)...)
	assert.Equal(t, 0, code, stderr)
}

func TestCheckUsage(t *testing.T) {
	dir := t.TempDir()
	in := writeRandomCSV(t, dir, 5, 10)
	bad := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte("{"), 0o644))
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no baseline", []string{"check", in}, "--baseline"},
		{"missing baseline", []string{"check", "--baseline", filepath.Join(dir, "none.json"), in}, "none.json"},
		{"broken baseline", []string{"check", "--baseline", bad, in}, "bad.json"},
		{"negative tolerance", []string{"check", "--write-baseline", filepath.Join(dir, "x.json"), "--tolerance", "-1", in}, "tolerance"},
		{"unknown method", []string{"check", "--write-baseline", filepath.Join(dir, "x.json"), "--method", "zzz", in}, "zzz"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := toolRun(t, tc.args...)
			assert.Equal(t, 2, code)
			assert.Contains(t, stderr, tc.want)
		})
	}
}

func TestCheckUsesBaselineMethod(t *testing.T) {
	dir := t.TempDir()
	in := writeRandomCSV(t, dir, 6, 20)
	base := filepath.Join(dir, "b.json")
	code, _, stderr := toolRun(t, "check", "--write-baseline", base, "--method", "auto", "--time-limit", "1s", in)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, "auto", readBaselineT(t, base).Method)
	code, out, stderr := toolRun(t, "check", "--baseline", base, "--json", "--time-limit", "1s", in)
	require.Equal(t, 0, code, stderr)
	var r checkJSON
	require.NoError(t, json.Unmarshal([]byte(out), &r))
	assert.Equal(t, "auto", r.Method)
	assert.True(t, r.Passed)
}

// TestJudge covers every verdict with fabricated runs, including the ones
// real planners should never produce (invalid plans, errors).
func TestJudge(t *testing.T) {
	p := &model.Problem{Buffers: []model.Buffer{{ID: "a", Start: 0, End: 1, Size: 4}}}
	plan := model.NewPlan(p)
	base := &baselineFile{Instances: map[string]baselineEntry{
		"x.csv":    {Peak: 100, Status: solve.Feasible},
		"none.csv": {Peak: 0, Status: solve.Unknown},
	}}
	mk := func(name string, run corpus.MethodRun) *corpus.Result {
		return &corpus.Result{Name: name, Runs: []corpus.MethodRun{run}}
	}
	ok := func(peak int64) corpus.MethodRun {
		return corpus.MethodRun{Peak: peak, Status: solve.Feasible, Plan: plan, Valid: true}
	}
	for _, tc := range []struct {
		name    string
		r       *corpus.Result
		tol     float64
		verdict string
	}{
		{"equal", mk("x.csv", ok(100)), 0, verdictOK},
		{"better", mk("x.csv", ok(90)), 0, verdictBetter},
		{"worse", mk("x.csv", ok(101)), 0, verdictWorse},
		{"within tolerance", mk("x.csv", ok(101)), 1, verdictOK},
		{"just beyond tolerance", mk("x.csv", ok(102)), 1.5, verdictWorse},
		{"new", mk("y.csv", ok(5)), 0, verdictNew},
		{"cleaned path", mk("./x.csv", ok(100)), 0, verdictOK},
		{"invalid", mk("x.csv", corpus.MethodRun{Peak: 50, Plan: plan, Violation: "overlap"}), 0, verdictInvalid},
		{"error", mk("x.csv", corpus.MethodRun{Err: errors.New("boom")}), 0, verdictError},
		{"plan lost", mk("x.csv", corpus.MethodRun{Status: solve.Unknown}), 0, verdictWorse},
		{"still no plan", mk("none.csv", corpus.MethodRun{Status: solve.Unknown}), 0, verdictOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ci := judge(tc.r, base, tc.tol)
			assert.Equal(t, tc.verdict, ci.Verdict, ci.Message)
			assert.NotEmpty(t, ci.Message)
		})
	}
}

func TestCheckFailureWritesNoBaseline(t *testing.T) {
	dir := t.TempDir()
	in := writeRandomCSV(t, dir, 8, 20)
	base, fresh := filepath.Join(dir, "b.json"), filepath.Join(dir, "new.json")
	code, _, stderr := toolRun(t, "check", "--write-baseline", base, in)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "wrote the baseline")
	b := readBaselineT(t, base)
	e := b.Instances[baselineKey(base, in)]
	e.Peak /= 2
	b.Instances[baselineKey(base, in)] = e
	writeBaselineT(t, base, b)
	code, _, stderr = toolRun(t, "check", "--baseline", base, "--write-baseline", fresh, in)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "the baseline was not written")
	assert.NoFileExists(t, fresh)
	// Unwritable: bad usage before any solve.
	code, _, stderr = toolRun(t, "check", "--write-baseline", filepath.Join(dir, "no", "such", "b.json"), in)
	assert.Equal(t, 2, code, stderr)
}

// TestWriteBaselineIntoAMissingFolder (issue 35, item 6): docs/tools.md's
// check … --write-baseline ci/x.json in a fresh clone, where ci/ does not
// exist, says in one line which folder to create, before solving (outputs
// never create folders); the docs now run mkdir -p ci first.
func TestWriteBaselineIntoAMissingFolder(t *testing.T) {
	dir := t.TempDir()
	ci := filepath.Join(dir, "ci")
	out := filepath.Join(ci, "x.json")
	code, stdout, stderr := cli(t, "", "check", "../../examples/tiny-cnn.csv", "--write-baseline", out)
	assert.Equal(t, 2, code)
	assert.Empty(t, stdout)
	assert.Equal(t, "optalloc check: cannot write "+out+": the folder "+ci+" does not exist (create it first: mkdir -p "+ci+")\n", stderr)
	require.NoError(t, os.Mkdir(ci, 0o755))
	code, _, stderr = cli(t, "", "check", "../../examples/tiny-cnn.csv", "--write-baseline", out)
	require.Equal(t, 0, code, stderr)
	assert.FileExists(t, out)
}
