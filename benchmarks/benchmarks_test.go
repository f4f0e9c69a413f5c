package benchmarks

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

	"github.com/optalloc/optalloc/formats"
	"github.com/optalloc/optalloc/formats/graph"
	"github.com/optalloc/optalloc/heuristics"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/verify"
)

func TestRandomDeterministicAndValid(t *testing.T) {
	for _, opt := range []RandomOptions{{}, {Buffers: 300, Horizon: 50, MaxLifetime: 5, MinSize: 1, MaxSize: 10, Align: 4}} {
		a, b := Random(7, opt), Random(7, opt)
		require.Equal(t, a, b, "same seed, same problem")
		require.NoError(t, a.Validate())
		assert.NotEqual(t, a.Buffers, Random(8, opt).Buffers)
		n := max(opt.Buffers, 100)
		require.Len(t, a.Buffers, n)
		for _, x := range a.Buffers {
			if opt.Align > 1 {
				assert.Zero(t, x.Size%opt.Align)
			}
			if opt.MaxLifetime > 0 {
				assert.LessOrEqual(t, x.End-x.Start, opt.MaxLifetime)
			}
		}
	}
}

// TestChain: the same seed gives the same chain; n ops give n tensors and a
// scratch buffer every seventh op; every tensor lives until its last
// reader, at most five ops on.
func TestChain(t *testing.T) {
	a, b := Chain(3, 700), Chain(3, 700)
	require.Equal(t, a, b)
	require.NoError(t, a.Validate())
	assert.NotEqual(t, a.Buffers, Chain(4, 700).Buffers)
	require.Len(t, a.Buffers, 700+99)
	for _, x := range a.Buffers {
		if x.Kind == model.Scratch {
			assert.Equal(t, int64(1), x.End-x.Start, x.ID)
			continue
		}
		assert.GreaterOrEqual(t, x.End-x.Start, int64(2), x.ID)
		assert.LessOrEqual(t, x.End-x.Start, int64(6), x.ID)
	}
}

// TestChainGraph: the same seed gives the same graph; it builds, most of
// its Reshapes become zero-copy views (alias members), and its Relus with
// scratch get elastic buffers.
func TestChainGraph(t *testing.T) {
	f := ChainGraph(5, 400)
	require.Equal(t, f, ChainGraph(5, 400))
	p, rep, err := graph.Build(f, "chain")
	require.NoError(t, err)
	require.NoError(t, p.Validate())
	aliases, elastic := 0, 0
	for _, b := range p.Buffers {
		if b.Alias != nil {
			aliases++
		}
		if b.Elastic() {
			elastic++
		}
	}
	// 99 Reshapes (ops 4, 8, ..., 396); the front end declines a view
	// where its rules do not allow one, but makes most of them.
	assert.Greater(t, aliases, 80)
	assert.LessOrEqual(t, aliases, 99)
	assert.Positive(t, elastic)
	assert.NotNil(t, rep)
}

// TestBranchGraph: the same seed gives the same graph, and it builds: one
// buffer per tensor plus a scratch buffer per Relu.
func TestBranchGraph(t *testing.T) {
	f := BranchGraph(2, 50)
	require.Equal(t, f, BranchGraph(2, 50))
	p, _, err := graph.Build(f, "branches")
	require.NoError(t, err)
	require.NoError(t, p.Validate())
	relus, sums := 0, 0
	for _, op := range f.Ops {
		switch op.Type {
		case "Relu":
			relus++
		case "Sum":
			sums++
			assert.GreaterOrEqual(t, len(op.Inputs), 2)
			assert.LessOrEqual(t, len(op.Inputs), 4)
		}
	}
	assert.Equal(t, 50, sums)
	assert.Len(t, p.Buffers, len(f.Tensors)+relus)
}

func TestPerfectPackingOptimumIsReached(t *testing.T) {
	for seed := uint64(0); seed < 20; seed++ {
		p, opt, offs := PerfectPacking(seed, 50, 1000, 40)
		require.NoError(t, p.Validate())
		assert.Equal(t, int64(1000), opt)
		assert.Equal(t, opt, p.ComputeSweep().MaxLive, "max-live is the height: a lower bound")
		pl := model.NewPlan(p)
		for i, o := range offs {
			pl.Placements[i].Offset = o
		}
		require.Empty(t, verify.Check(p, pl), "the cut layout is a valid plan")
		assert.Equal(t, opt, pl.Peak(p), "and it reaches the bound: optimal")
	}
}

func TestTransformerTrace(t *testing.T) {
	fwd := Transformer(TransformerOptions{Layers: 3})
	require.NoError(t, fwd.Validate())
	assert.Len(t, fwd.Buffers, 1+3*16)
	train := Transformer(TransformerOptions{Layers: 3, Backward: true})
	require.NoError(t, train.Validate())
	assert.Len(t, train.Buffers, 1+3*16+1+3*18)
	assert.Greater(t, train.ComputeSweep().MaxLive, fwd.ComputeSweep().MaxLive, "saved activations raise max-live")
	kinds := map[model.Kind]int{}
	for _, b := range train.Buffers {
		kinds[b.Kind]++
		assert.Greater(t, b.End, b.Start, b.ID)
	}
	assert.Positive(t, kinds[model.Scratch])
	assert.Positive(t, kinds[model.Activation])
	// Exact lengths, deterministic jitter.
	for _, n := range []int{1, 17, 1000, 100000} {
		p := Transformer(TransformerOptions{Buffers: n, Backward: n%2 == 0, Jitter: 0.2, Seed: 3})
		require.Len(t, p.Buffers, n)
		require.NoError(t, p.Validate())
	}
	assert.Equal(t, Transformer(TransformerOptions{Buffers: 500, Jitter: 0.3, Seed: 9}), Transformer(TransformerOptions{Buffers: 500, Jitter: 0.3, Seed: 9}))
}

// TestTransformerMillion generates the 1M-buffer trace; set OPTALLOC_LONG=1.
func TestTransformerMillion(t *testing.T) {
	if os.Getenv("OPTALLOC_LONG") == "" {
		t.Skip("set OPTALLOC_LONG=1 to generate a 1M-buffer trace")
	}
	p := Transformer(TransformerOptions{Buffers: 1_000_000, Backward: true})
	require.Len(t, p.Buffers, 1_000_000)
	require.NoError(t, p.Validate())
}

func TestRunMarksBestAndVerifies(t *testing.T) {
	names := heuristics.Names()
	require.NotEmpty(t, names)
	methods := append(names[:min(3, len(names))], "heuristic")
	p1, opt, _ := PerfectPacking(1, 30, 500, 25)
	insts := []Instance{{Name: "random", Problem: Random(1, RandomOptions{Buffers: 60})}, {Name: "perfect", Problem: p1}}
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
	p := Random(2, RandomOptions{Buffers: 2000})
	res := Run(context.Background(), []Instance{{Name: "r", Problem: p}}, Config{Methods: []string{"heuristic"}, HardLimit: time.Nanosecond})
	require.Len(t, res[0].Runs, 1)
	assert.ErrorIs(t, res[0].Runs[0].Err, ErrOverrun)
	assert.Zero(t, res[0].BestPeak)
}
