package corpus

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/benchmarks"
	"github.com/optalloc/optalloc/device"
	"github.com/optalloc/optalloc/formats"
	"github.com/optalloc/optalloc/heuristics"
	"github.com/optalloc/optalloc/model"
)

func TestRunMarksBestAndVerifies(t *testing.T) {
	names := heuristics.Names()
	require.NotEmpty(t, names)
	methods := append(names[:min(3, len(names))], "heuristic")
	p1, opt, _ := benchmarks.PerfectPacking(1, 30, 500, 25)
	insts := []Instance{{Name: "random", Problem: benchmarks.Random(1, benchmarks.RandomOptions{Buffers: 60})}, {Name: "perfect", Problem: p1}}
	var calls int
	res := Run(context.Background(), insts, Config{Methods: methods, TimeLimit: 5 * time.Second, Workers: 2,
		OnRun: func(string, MethodRun) { calls++ }})
	assert.Equal(t, len(insts)*len(methods), calls)
	require.Len(t, res, 2)
	for k, r := range res {
		assert.Equal(t, insts[k].Name, r.Name)
		require.Len(t, r.Runs, len(methods))
		best := int64(0)
		for i, run := range r.Runs {
			require.NoError(t, run.Err)
			require.True(t, run.Valid, run.Violation)
			assert.Equal(t, methods[i], run.Method)
			assert.GreaterOrEqual(t, run.Peak, r.LowerBound)
			if best == 0 || run.Peak < best {
				best = run.Peak
			}
		}
		assert.Equal(t, best, r.BestPeak)
		for _, m := range r.Best {
			assert.Contains(t, methods, m)
		}
		// "heuristic" runs every planner: never worse than any single one.
		assert.Equal(t, best, r.Runs[len(methods)-1].Peak)
	}
	assert.Equal(t, opt, res[1].MaxLive)

	// A cancelled context stops the remaining solves.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, r := range Run(ctx, insts, Config{Methods: methods}) {
		for _, run := range r.Runs {
			assert.ErrorIs(t, run.Err, context.Canceled)
		}
	}
	assert.Error(t, CheckMethods([]string{"auto", "no-such-method"}))
	assert.NoError(t, CheckMethods(AllMethods()))
}

func TestCorpusAndMarkdown(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []struct{ path, text string }{
		{"a/x.csv", "id,lower,upper,size\n1,0,2,4\n2,1,3,4\n"},
		{"a/y.csv", "id,lower,upper,size\n1,0,2,8\n"},
		{"b/z.csv", "id,lower,upper,size\n1,0,2,4\n2,1,3,4\n"},
		{"b/z.plan.csv", "id,lower,upper,size,offset\n1,0,2,4,0\n2,1,3,4,6\n"},
	} {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, filepath.Dir(f.path)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, f.path), []byte(f.text), 0o644))
	}
	files, err := FindCorpus(dir)
	require.NoError(t, err)
	require.Len(t, files, 3)
	assert.Equal(t, []string{"a", "a", "b"}, []string{files[0].Group, files[1].Group, files[2].Group})
	assert.Empty(t, files[0].Reference)
	require.NotEmpty(t, files[2].Reference)
	ref, err := ReferencePeak(files[2].Reference)
	require.NoError(t, err)
	assert.Equal(t, int64(10), ref)

	var insts []Instance
	for _, f := range files {
		p, err := formats.Load(f.Path)
		require.NoError(t, err)
		insts = append(insts, Instance{Name: f.Path, Problem: p})
	}
	methods := []string{"heuristic"}
	res := Run(context.Background(), insts, Config{Methods: methods, Workers: 1})
	rows := []Row{{Group: "a", Result: res[0]}, {Group: "a", Result: res[1]}, {Group: "b", Result: res[2], Reference: ref}}
	var buf bytes.Buffer
	meta := Meta{Command: "go run ./benchmarks/cmd/results -shared X", Date: time.Date(2026, 11, 22, 1, 2, 0, 0, time.UTC),
		Machine: "linux/amd64, 2 CPUs", GoVersion: "go1.26", Revision: "commit abc", TimeLimit: time.Second, Workers: 1}
	require.NoError(t, WriteMarkdown(&buf, meta, methods, rows))
	md := buf.String()
	for _, want := range []string{"2026-11-22 01:02 UTC", "linux/amd64, 2 CPUs", "go1.26", "`go run ./benchmarks/cmd/results -shared X`",
		"### a\n", "### b\n", "| x.csv | 2 | 8 | 8 | **8** · 0.00% · optimal", "| z.csv | 2 | 8 | 8 | **8** · 0.00% · optimal", "| 10 (25.00%) |",
		"| heuristic | 3 | 3 | 0.00% | 0.00% |"} {
		assert.Contains(t, md, want)
	}
	assert.Equal(t, 1, strings.Count(md, "reference plan"), "only group b has a reference column")
}

func TestSpliceReadme(t *testing.T) {
	readme := []byte("# x\n\nintro\n" + BeginMarker + "\nold table\n" + EndMarker + "\nafter\n")
	out, err := SpliceReadme(readme, []byte("\nnew table\n\n"))
	require.NoError(t, err)
	assert.Equal(t, "# x\n\nintro\n"+BeginMarker+"\nnew table\n"+EndMarker+"\nafter\n", string(out))
	again, err := SpliceReadme(out, []byte("new table"))
	require.NoError(t, err)
	assert.Equal(t, out, again, "idempotent")
	_, err = SpliceReadme([]byte("no markers"), []byte("t"))
	assert.Error(t, err)
	_, err = SpliceReadme([]byte(EndMarker+"\n"+BeginMarker), []byte("t"))
	assert.Error(t, err)
}

func TestHardLimitReportsOverrun(t *testing.T) {
	// A 1ns hard limit cannot be met: the run is reported, not awaited.
	p := benchmarks.Random(2, benchmarks.RandomOptions{Buffers: 2000})
	res := Run(context.Background(), []Instance{{Name: "r", Problem: p}}, Config{Methods: []string{"heuristic"}, HardLimit: time.Nanosecond})
	require.Len(t, res[0].Runs, 1)
	assert.ErrorIs(t, res[0].Runs[0].Err, ErrOverrun)
	assert.Zero(t, res[0].BestPeak)
}

// TestOnlineBuffersAreTheDevices: with Online set (TFLite Micro's kernel
// scratch), every method's plan is the device's — its online buffers where
// the runtime puts them around the rest — and its peak that arena; auto
// is never above TFLite Micro's own planner.
func TestOnlineBuffersAreTheDevices(t *testing.T) {
	// One time step where the runtime's greedy cannot fit what a plan
	// fits: tensors leave gaps of 96 and 64 bytes for scratch of 64, 48
	// and 48 (device/tflm_test.go's firstFitTrap, with the tensors free).
	p := &model.Problem{Buffers: []model.Buffer{
		{ID: "a", Start: 1, End: 2, Size: 16, Align: 16}, {ID: "b", Start: 1, End: 2, Size: 16, Align: 16},
		{ID: "c", Start: 0, End: 3, Size: 16, Align: 16}, {ID: "d", Start: 0, End: 2, Size: 32, Align: 16},
		{ID: "s0", Start: 1, End: 2, Size: 64, Align: 16, Kind: model.Scratch},
		{ID: "s1", Start: 1, End: 2, Size: 48, Align: 16, Kind: model.Scratch},
		{ID: "s2", Start: 2, End: 3, Size: 48, Align: 16, Kind: model.Scratch},
	}}
	online := []bool{false, false, false, false, true, true, true}
	methods := []string{"tflm-greedy", "greedy-size", "freelist", "auto"}
	res := Run(context.Background(), []Instance{{Name: "arena", Problem: p, Online: online}}, Config{Methods: methods, TimeLimit: 2 * time.Second, Workers: 1})
	require.Len(t, res, 1)
	for _, run := range res[0].Runs {
		require.True(t, run.HasPlan() && run.Valid, "%s: %v %s", run.Method, run.Err, run.Violation)
		replay, err := device.Simulate(context.Background(), p, online, run.Plan)
		require.NoError(t, err)
		assert.Equal(t, run.Plan.Placements, replay.Placements, "%s: not the device's plan", run.Method)
		assert.Equal(t, run.Plan.Peak(p), run.Peak, run.Method)
	}
	assert.LessOrEqual(t, res[0].Runs[3].Peak, res[0].Runs[0].Peak, "auto above TFLite Micro's own planner")
}
