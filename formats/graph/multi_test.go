package graph

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/heuristics"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/verify"
)

// twoOps is a model "name": x (input) -> f -> a -> g -> y (output), with a
// weight w read by f whose content is given by hash.
func twoOps(name, hash string, xb, ab int) string {
	return fmt.Sprintf(`{"name": %q, "tensors": [
	 {"name": "x", "bytes": %d, "kind": "input"},
	 {"name": "w", "bytes": 100, "kind": "weight", "hash": %q},
	 {"name": "a", "bytes": %d},
	 {"name": "y", "bytes": 10, "kind": "output"}],
	 "ops": [{"name": "f", "type": "F", "inputs": ["x", "w"], "outputs": ["a"]},
	  {"name": "g", "type": "G", "inputs": ["a"], "outputs": ["y"]}]}`, name, xb, hash, ab)
}

// reloading marks every model of a "models" list source as reloading its
// weights before each run.
func reloading(src string) string {
	return strings.ReplaceAll(src, `{"name": "m`, `{"reload_weights": true, "name": "m`)
}

func TestSerialModelsConcatenateTimelines(t *testing.T) {
	src := `{"alignment": 1, "schedule": "serial", "models": [` + twoOps("m1", "h1", 40, 30) + `,` + twoOps("m2", "h2", 20, 50) + `]}`
	tests := []struct {
		name    string
		src     string
		weights [2]int64 // lifetimes of m1/w and m2/w ends
		maxLive int64
	}{
		// resident (default): both weights live over the whole timeline;
		// at step 0: m1's x + w + a and m2's w = 270
		{"resident", src, [2]int64{4, 4}, 270},
		// reloaded: each weight lives while its model runs; the models
		// time-share everything: 170 at step 0 as at step 2
		{"reloaded", reloading(src), [2]int64{2, 4}, 170},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, r := build(t, tc.src)
			want := []life{
				{"m1/x", 0, 1, 40}, {"m1/a", 0, 2, 30}, {"m1/y", 1, 2, 10},
				{"m2/x", 2, 3, 20}, {"m2/a", 2, 4, 50}, {"m2/y", 3, 4, 10},
				{"m1/w", 0, tc.weights[0], 100}, {"m2/w", 4 - tc.weights[0], tc.weights[1], 100},
			}
			for _, w := range want {
				b := bufOf(t, p, w.id)
				assert.Equal(t, [3]int64{w.start, w.end, w.size}, [3]int64{b.Start, b.End, b.Size}, w.id)
				assert.Empty(t, b.Gaps)
			}
			require.Len(t, r.Models, 2)
			assert.Equal(t, [2]int64{0, 2}, [2]int64{r.Models[0].Start, r.Models[0].End})
			assert.Equal(t, [2]int64{2, 4}, [2]int64{r.Models[1].Start, r.Models[1].End})
			// Alone: m1 peaks at step 0 with x+w+a = 170, m2 at step 2: 170.
			assert.Equal(t, int64(170), r.Models[0].MaxLive)
			assert.Equal(t, int64(170), r.Models[1].MaxLive)
			assert.Equal(t, tc.maxLive, r.MaxLive)
			simulate(t, p, mustDecode(t, tc.src), r)
		})
	}
}

// TestReloadProblemInReport: with resident weights the report carries the
// problem with every model reloading, and its bound is the lower one.
func TestReloadProblemInReport(t *testing.T) {
	src := `{"alignment": 1, "models": [` + twoOps("m1", "h1", 40, 30) + `,` + twoOps("m2", "h2", 20, 50) + `]}`
	_, r := build(t, src)
	require.NotNil(t, r.Reload)
	assert.Equal(t, int64(170), r.Reload.ComputeSweep().MaxLive)
	require.NoError(t, r.PlanReload(func(q *model.Problem) (int64, error) {
		pl, _ := heuristics.ByName("greedy-size")
		plan, err := pl.Plan(context.Background(), q)
		if err != nil {
			return 0, err
		}
		return plan.Peak(q), nil
	}))
	assert.Equal(t, int64(170), r.ReloadPeak)
	var sb strings.Builder
	r.SetSharedPeak(270)
	require.NoError(t, r.WriteText(&sb))
	assert.Contains(t, sb.String(), "resident across stages (default): planned peak 270 B")
	assert.Contains(t, sb.String(), "reloaded before each run")
	assert.Contains(t, sb.String(), "planned peak 170 B")
	_, r = build(t, reloading(src))
	assert.Nil(t, r.Reload, "every model reloads already")
	_, r = build(t, `{"alignment": 1, "models": [`+twoOps("m1", "h1", 40, 30)+`]}`)
	assert.Nil(t, r.Reload, "one stage: nothing to reload")
}

func TestConcurrentModelsNeverShareMemory(t *testing.T) {
	src := `{"alignment": 1, "schedule": "concurrent", "models": [` + twoOps("m1", "h1", 40, 30) + `,` + twoOps("m2", "h2", 20, 50) + `]}`
	p, r := build(t, src)
	// Two 2-step models: a 4-step product timeline. m1 (first, most
	// buffers; ties keep file order) is the outer coordinate: its step t is
	// global [2t, 2t+2); m2 is inner: its step t is global {t, 2+t}.
	want := []struct {
		id         string
		start, end int64
		gaps       []model.Gap
	}{
		{"m1/x", 0, 2, nil}, {"m1/a", 0, 4, nil}, {"m1/y", 2, 4, nil}, {"m1/w", 0, 4, nil},
		{"m2/x", 0, 3, []model.Gap{{Start: 1, End: 2}}}, {"m2/a", 0, 4, nil}, {"m2/y", 1, 4, []model.Gap{{Start: 2, End: 3}}}, {"m2/w", 0, 4, nil},
	}
	for _, w := range want {
		b := bufOf(t, p, w.id)
		assert.Equal(t, [2]int64{w.start, w.end}, [2]int64{b.Start, b.End}, w.id)
		assert.Equal(t, w.gaps, b.Gaps, w.id)
	}
	// Every buffer of m1 meets every buffer of m2 in the product timeline.
	occ := func(b model.Buffer) map[int64]bool {
		s := map[int64]bool{}
		for t := b.Start; t < b.End; t++ {
			s[t] = true
		}
		for _, g := range b.Gaps {
			for t := g.Start; t < g.End; t++ {
				delete(s, t)
			}
		}
		return s
	}
	for _, b1 := range p.Buffers {
		for _, b2 := range p.Buffers {
			if strings.HasPrefix(b1.ID, "m1/") && strings.HasPrefix(b2.ID, "m2/") {
				meet := false
				for t := range occ(b1) {
					meet = meet || occ(b2)[t]
				}
				assert.True(t, meet, "%s and %s must conflict", b1.ID, b2.ID)
			}
		}
	}
	// Inside m2, x [0,1) and y [1,2) never meet: the product keeps the reuse.
	yOcc := occ(bufOf(t, p, "m2/y"))
	for step := range occ(bufOf(t, p, "m2/x")) {
		assert.False(t, yOcc[step])
	}
	assert.Equal(t, r.Models[0].MaxLive+r.Models[1].MaxLive, r.MaxLive, "concurrent: the bound is the sum")
	assert.Equal(t, [][]string{{"m1", "m2"}}, r.Stages)
	pl, _ := heuristics.ByName("greedy-size")
	plan, err := pl.Plan(context.Background(), p)
	require.NoError(t, err)
	require.Empty(t, verify.Check(p, plan))
}

func TestWeightsSharedAcrossModels(t *testing.T) {
	src := `{"alignment": 1, "models": [` + twoOps("m1", "same", 40, 30) + `,` + twoOps("m2", "same", 20, 50) + `,` + twoOps("m3", "other", 20, 50) + `]}`
	p, r := build(t, src)
	w := bufOf(t, p, "m1/w")
	assert.Equal(t, [2]int64{0, 6}, [2]int64{w.Start, w.End}, "a resident weight spans the whole timeline")
	pr, _ := build(t, reloading(src))
	w = bufOf(t, pr, "m1/w")
	assert.Equal(t, [2]int64{0, 4}, [2]int64{w.Start, w.End}, "a reloaded shared weight spans all its users")
	assert.NotContains(t, p.Index(), "m2/w")
	assert.Contains(t, p.Index(), "m3/w")
	require.Len(t, r.SharedWeights, 1)
	assert.Equal(t, WeightShare{Kept: "m1/w", Also: []string{"m2/w"}, Bytes: 100}, r.SharedWeights[0])
	assert.Equal(t, int64(100), r.WeightBytesSaved)
	assert.Equal(t, int64(3*180), r.NaiveBytes, "naive counts each model's own weights")
	assert.Equal(t, int64(200), r.WeightBytes, "stored: one copy per content")
	simulate(t, p, mustDecode(t, src), r)

	// Identical bytes share like identical hashes; different bytes do not.
	data := func(name, b64 string) string {
		return fmt.Sprintf(`{"name": %q, "tensors": [{"name": "x", "bytes": 4, "kind": "input"},
		 {"name": "w", "bytes": 3, "kind": "weight", "data": %q}, {"name": "y", "bytes": 4, "kind": "output"}],
		 "ops": [{"name": "f", "type": "F", "inputs": ["x", "w"], "outputs": ["y"]}]}`, name, b64)
	}
	p, r = build(t, `{"models": [`+data("a", "AQID")+`,`+data("b", "AQID")+`,`+data("c", "AQIE")+`]}`)
	assert.NotContains(t, p.Index(), "b/w")
	assert.Contains(t, p.Index(), "c/w")
	assert.Len(t, r.SharedWeights, 1)
}

func TestReportSavingAgainstSeparateArenas(t *testing.T) {
	src := `{"alignment": 1, "models": [` + twoOps("m1", "same", 40, 30) + `,` + twoOps("m2", "same", 20, 50) + `]}`
	p, r := build(t, src)
	require.Len(t, r.Separate, 2)
	assert.Contains(t, r.Separate[0].Index(), "m1/w")
	assert.Contains(t, r.Separate[1].Index(), "m2/w", "alone, each model stores its own weights")
	peak := func(q *model.Problem) (int64, error) {
		pl, _ := heuristics.ByName("greedy-size")
		plan, err := pl.Plan(context.Background(), q)
		if err != nil {
			return 0, err
		}
		return plan.Peak(q), nil
	}
	require.NoError(t, r.PlanSeparately(peak))
	sep, planned := r.SeparateArenas()
	assert.True(t, planned)
	assert.Equal(t, int64(170+170), sep)
	shared, err := peak(p)
	require.NoError(t, err)
	r.SetSharedPeak(shared)
	assert.Equal(t, int64(170), shared)
	var out bytes.Buffer
	require.NoError(t, r.WriteText(&out))
	assert.Contains(t, out.String(), "one arena per model (planned): 340 B; shared (planned): 170 B; saving 170 B")
	assert.Contains(t, out.String(), "m1/w (100 B) also serves m2/w")
}

func TestScratch(t *testing.T) {
	src := `{"alignment": 8, "tensors": [{"name": "x", "bytes": 4, "kind": "input"}, {"name": "y", "bytes": 4, "kind": "output"},
	 {"name": "z", "bytes": 4, "kind": "output"}],
	 "ops": [{"name": "conv", "type": "Conv", "inputs": ["x"], "outputs": ["y"], "latency_critical": true,
	   "scratch": [{"name": "im2col", "min_size": 10, "max_size": 100}, {"size": 3}, {"min_size": 5, "latency_critical": false}]},
	  {"name": "pool", "type": "Pool", "inputs": ["x"], "outputs": ["z"], "scratch": [{"size": 17}]}]}`
	p, r := build(t, src)
	tests := []struct {
		id         string
		start, end int64
		size, max  int64
		latency    bool
	}{
		{"conv:im2col", 0, 1, 16, 96, true},
		{"conv:scratch1", 0, 1, 8, 0, true},
		{"conv:scratch2", 0, 1, 8, 0, false}, // MaxSize set below
		{"pool:scratch", 1, 2, 24, 0, false},
	}
	for _, tc := range tests {
		b := bufOf(t, p, tc.id)
		assert.Equal(t, model.Scratch, b.Kind)
		assert.Equal(t, [3]int64{tc.start, tc.end, tc.size}, [3]int64{b.Start, b.End, b.Size}, tc.id)
		assert.Equal(t, tc.latency, b.LatencyCritical, tc.id)
		assert.Equal(t, int64(8), b.Align)
		if tc.max > 0 {
			assert.Equal(t, tc.max, b.MaxSize, tc.id)
		}
	}
	// A variable scratch without a maximum may grow up to the naive total.
	open := bufOf(t, p, "conv:scratch2")
	assert.True(t, open.Elastic())
	var total int64
	for _, b := range p.Buffers {
		if b.ID != "conv:scratch2" {
			total += max(b.Size, b.MaxSize)
		}
	}
	assert.Equal(t, alignDown(total+open.Size, 8), open.MaxSize)
	assert.Len(t, r.Scratch, 4)
}

// TestRandomGraphs: random graphs of views and ops build, plan, verify and
// execute correctly (property test; fixed seeds, deterministic).
func TestRandomGraphs(t *testing.T) {
	rules := map[string]int{}
	for seed := range uint64(500) {
		src := randomGraph(rand.New(rand.NewPCG(seed, 7)))
		f := mustDecode(t, src)
		p, r, err := Build(f, fmt.Sprintf("seed%d", seed))
		require.NoError(t, err, src)
		p2, _, err := Build(mustDecode(t, src), "again")
		require.NoError(t, err)
		assert.Equal(t, len(p.Buffers), len(p2.Buffers))
		for i := range p.Buffers {
			p2.Buffers[i].Line = p.Buffers[i].Line
		}
		assert.Equal(t, p.Buffers, p2.Buffers, "deterministic")
		pl, _ := heuristics.ByName("greedy-size")
		plan, err := pl.Plan(context.Background(), p)
		require.NoError(t, err)
		require.Empty(t, verify.Check(p, plan), "seed %d:\n%s", seed, src)
		require.NoError(t, runPlan(p, plan, f, r), "seed %d:\n%s", seed, src)
		for _, a := range r.Aliases {
			rules[a.Rule]++
		}
		rules["skipped"] += len(r.Skipped)
	}
	for _, rule := range []string{"reshape", "concat", "split", "slice", "skipped"} {
		assert.Positive(t, rules[rule], "the random graphs must exercise %s", rule)
	}
	t.Logf("aliases made and skipped over 500 graphs: %v", rules)
}

// randomGraph makes a model of [rows, 4] float32 tensors with Relu, Add,
// Concat (axis 0 or 1), Split (axis 0 or 1), Reshape and Slice ops.
func randomGraph(rng *rand.Rand) string {
	type tv struct {
		name string
		rows int
	}
	var tensors, ops []string
	var pool []tv
	n := 0
	newT := func(rows int, kind string) tv {
		n++
		t := tv{fmt.Sprintf("t%d", n), rows}
		tensors = append(tensors, fmt.Sprintf(`{"name": %q, "shape": [%d, 4], "dtype": "float32", "kind": %q}`, t.name, rows, kind))
		return t
	}
	for range 2 {
		pool = append(pool, newT(1+rng.IntN(3), "input"))
	}
	pick := func() tv { return pool[rng.IntN(len(pool))] }
	for k := range 12 + rng.IntN(10) {
		name := fmt.Sprintf("op%d", k)
		switch rng.IntN(6) {
		case 0, 1:
			x := pick()
			y := newT(x.rows, "")
			ops = append(ops, op(name, "Relu", l(x.name), l(y.name), ""))
			pool = append(pool, y)
		case 2:
			a, b := pick(), pick()
			if rng.IntN(2) == 0 {
				y := newT(a.rows+b.rows, "")
				ops = append(ops, op(name, "Concat", l(a.name, b.name), l(y.name), `"axis": 0`))
				pool = append(pool, y)
			} else if a.rows == b.rows {
				n++
				y := tv{fmt.Sprintf("t%d", n), a.rows}
				tensors = append(tensors, fmt.Sprintf(`{"name": %q, "shape": [%d, 8], "dtype": "float32"}`, y.name, a.rows))
				ops = append(ops, op(name, "Concat", l(a.name, b.name), l(y.name), `"axis": 1`))
				z := newT(a.rows, "")
				ops = append(ops, op(name+"r", "Relu", l(y.name), l(z.name), ""))
				pool = append(pool, z)
			}
		case 3:
			x := pick()
			if x.rows >= 2 {
				r1 := 1 + rng.IntN(x.rows-1)
				a, b := newT(r1, ""), newT(x.rows-r1, "")
				ops = append(ops, op(name, "Split", l(x.name), l(a.name, b.name), `"axis": 0`))
				pool = append(pool, a, b)
			}
		case 4:
			x := pick()
			y := newT(x.rows, "")
			ops = append(ops, op(name, "Reshape", l(x.name), l(y.name), ""))
			pool = append(pool, y)
		case 5:
			x := pick()
			r := 1 + rng.IntN(x.rows)
			b := rng.IntN(x.rows - r + 1)
			y := newT(r, "")
			ops = append(ops, op(name, "Slice", l(x.name), l(y.name), fmt.Sprintf(`"begin": [%d, 0]`, b)))
			pool = append(pool, y)
		}
	}
	last := pool[len(pool)-1]
	out := newT(last.rows, "output")
	ops = append(ops, op("final", "Relu", l(last.name), l(out.name), ""))
	return g(1+rng.IntN(2)*15, tensors, ops)
}

func TestSplitOfSharedWeight(t *testing.T) {
	m := func(name string) string {
		return fmt.Sprintf(`{"name": %q, "tensors": [{"name": "x", "shape": [1, 4], "dtype": "float32", "kind": "input"},
		 {"name": "w", "shape": [2, 4], "dtype": "float32", "kind": "weight", "hash": "same"},
		 {"name": "w0", "shape": [1, 4], "dtype": "float32"}, {"name": "w1", "shape": [1, 4], "dtype": "float32"},
		 {"name": "y", "shape": [1, 4], "dtype": "float32", "kind": "output"}],
		 "ops": [{"name": "sp", "type": "Split", "axis": 0, "inputs": ["w"], "outputs": ["w0", "w1"]},
		  {"name": "f", "type": "F", "inputs": ["x", "w0", "w1"], "outputs": ["y"]}]}`, name)
	}
	src := `{"alignment": 1, "models": [` + m("a") + `,` + m("b") + `]}`
	p, r := build(t, src)
	assert.Equal(t, &model.Alias{Parent: "a/w", Delta: 16}, bufOf(t, p, "b/w1").Alias)
	idx := p.Index()
	for _, a := range r.Aliases {
		assert.Contains(t, idx, a.Parent)
		assert.Contains(t, idx, a.Child)
	}
	simulate(t, p, mustDecode(t, src), r)
}

// TestRandomConcurrentModels: two or three random models run concurrently;
// every plan verifies and no byte is used by two models (except shared
// weights, which hold the same content).
func TestRandomConcurrentModels(t *testing.T) {
	for seed := range uint64(40) {
		rng := rand.New(rand.NewPCG(seed, 11))
		k := 2 + rng.IntN(2)
		var ms []string
		for i := range k {
			body := randomGraph(rng)
			body = strings.TrimPrefix(body[strings.Index(body, `"tensors"`):], "")
			ms = append(ms, fmt.Sprintf(`{"name": "m%d", %s`, i, body))
		}
		src := `{"alignment": 1, "schedule": "concurrent", "models": [` + strings.Join(ms, ",\n") + `]}`
		p, r := build(t, src)
		pl, _ := heuristics.ByName("greedy-size")
		plan, err := pl.Plan(context.Background(), p)
		require.NoError(t, err)
		require.Empty(t, verify.Check(p, plan), "seed %d", seed)
		var sumAlone int64
		for _, m := range r.Models {
			sumAlone += m.MaxLive
		}
		assert.Equal(t, sumAlone, r.MaxLive, "seed %d: concurrent models add up", seed)
		for i, bi := range p.Buffers {
			for j, bj := range p.Buffers {
				mi, mj := strings.SplitN(bi.ID, "/", 2)[0], strings.SplitN(bj.ID, "/", 2)[0]
				if mi >= mj || plan.Placements[i].Size == 0 || plan.Placements[j].Size == 0 {
					continue
				}
				qi, qj := plan.Placements[i], plan.Placements[j]
				overlap := qi.Offset < qj.Offset+qj.Size && qj.Offset < qi.Offset+qi.Size
				assert.False(t, overlap, "seed %d: %s and %s share bytes", seed, bi.ID, bj.ID)
			}
		}
	}
}

func TestWritePlacements(t *testing.T) {
	src := `{"alignment": 4, "tensors": [{"name": "x", "shape": [1, 2], "dtype": "float32", "kind": "input"},
	  {"name": "a", "shape": [1, 2], "dtype": "float32"}, {"name": "c", "shape": [2, 2], "dtype": "float32", "kind": "output"}],
	 "ops": [{"name": "f", "type": "F", "inputs": ["x"], "outputs": ["a"], "scratch": [{"name": "tmp", "min_size": 6, "max_size": 40}]},
	  {"name": "cat", "type": "Concat", "axis": 0, "inputs": ["a", "x"], "outputs": ["c"]}]}`
	p, r := build(t, src)
	pl, _ := heuristics.ByName("greedy-size")
	plan, err := pl.Plan(context.Background(), p)
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, r.WritePlacements(&out, p, plan))
	q := plan.Placements[p.Index()["f:tmp"]]
	assert.Contains(t, out.String(), fmt.Sprintf("f:tmp: offset %d, %d B granted (min 8, max 40), pool default", q.Offset, q.Size))
	qa, qc := plan.Placements[p.Index()["a"]], plan.Placements[p.Index()["c"]]
	assert.Contains(t, out.String(), fmt.Sprintf("a at offset %d = c (offset %d) + 0, pool default", qa.Offset, qc.Offset))
}
