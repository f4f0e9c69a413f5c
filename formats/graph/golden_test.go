package graph

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/formats"
)

// goldenPath holds a digest of what Read gives for every graph of
// goldenGraphs, recorded with the code before the reader was made faster
// (OPTALLOC_UPDATE_GOLDEN=1 rewrites it; only do that for an intended
// change of the problems built).
const goldenPath = "testdata/golden-read.txt"

// TestReadMatchesGolden: on the examples and on random graphs of every
// feature (several models and schedules, scratch, shared weights and code,
// liveness and in-place options, listed orders that need reordering), Read
// builds exactly the problems, reports and errors it built before.
func TestReadMatchesGolden(t *testing.T) {
	got := map[string]string{}
	for _, g := range goldenGraphs(t) {
		got[g.name] = readDigest(g.src)
	}
	if os.Getenv("OPTALLOC_UPDATE_GOLDEN") == "1" {
		var sb strings.Builder
		names := make([]string, 0, len(got))
		for n := range got {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			fmt.Fprintf(&sb, "%s %s\n", n, got[n])
		}
		require.NoError(t, os.MkdirAll(filepath.Dir(goldenPath), 0o755))
		require.NoError(t, os.WriteFile(goldenPath, []byte(sb.String()), 0o644))
		return
	}
	data, err := os.ReadFile(goldenPath)
	require.NoError(t, err)
	want := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		name, digest, ok := strings.Cut(line, " ")
		require.True(t, ok, line)
		want[name] = digest
	}
	require.Len(t, got, len(want))
	errs := 0
	for n, d := range want {
		assert.Equal(t, d, got[n], n)
		if strings.HasPrefix(d, "error:") {
			errs++
		}
	}
	assert.Less(t, errs, len(want)/4, "most golden graphs must be valid")
}

// readDigest is a digest of everything Read returns: the problem, the
// report, its separate and reload problems; or the error.
func readDigest(src string) string {
	p, rep, err := Read(strings.NewReader(src), "g.graph.json")
	if err != nil {
		sum := sha256.Sum256([]byte(err.Error()))
		return "error:" + hex.EncodeToString(sum[:8])
	}
	h := sha256.New()
	enc := json.NewEncoder(h)
	for _, v := range []any{p, rep, rep.Separate, rep.Reload} {
		if err := enc.Encode(v); err != nil {
			panic(err)
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}

type goldenGraph struct{ name, src string }

func goldenGraphs(t *testing.T) []goldenGraph {
	var out []goldenGraph
	paths, err := filepath.Glob("../../examples/*.graph.json")
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	for _, p := range paths {
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		out = append(out, goldenGraph{"example/" + filepath.Base(p), string(data)})
	}
	for seed := range uint64(60) {
		out = append(out, goldenGraph{fmt.Sprintf("views/%d", seed), randomGraph(rand.New(rand.NewPCG(seed, 7)))})
	}
	for seed := range uint64(120) {
		out = append(out, goldenGraph{fmt.Sprintf("rich/%d", seed), richGraph(rand.New(rand.NewPCG(seed, 25)))})
	}
	out = append(out, goldenGraph{"chain/3000", chainSource(3000)})
	return out
}

// chainSource is the shape of BenchmarkRead100kOps's graph, n ops long.
func chainSource(n int) string {
	var ts, ops []string
	ts = append(ts, `{"name": "x0", "bytes": 4096, "kind": "input"}`)
	size := 4
	for i := 1; i <= n; i++ {
		typ, ins, extra := "Relu", fmt.Sprintf(`"x%d"`, i-1), ""
		switch {
		case i%4 == 0:
			typ = "Reshape"
		case i%7 == 0 && i > 6:
			typ = "Add"
			ins += fmt.Sprintf(`, "x%d"`, i-3-i%4)
		default:
			size = 1 + (i*37)%64
			if i%5 == 0 {
				extra = `, "scratch": [{"name": "s", "min_size": 1024, "max_size": 8192}]`
			}
		}
		kind := ""
		if i == n {
			kind = `, "kind": "output"`
		}
		ts = append(ts, fmt.Sprintf(`{"name": "x%d", "bytes": %d%s}`, i, 1024*size, kind))
		ops = append(ops, fmt.Sprintf(`{"name": "op%d", "type": %q, "inputs": [%s], "outputs": ["x%d"]%s}`, i, typ, ins, i, extra))
	}
	return "{\"name\": \"chain\", \"alignment\": 64,\n\"tensors\": [\n" + strings.Join(ts, ",\n") + "],\n\"ops\": [\n" + strings.Join(ops, ",\n") + "]}\n"
}

// richGraph is a random file of one to three models using every field of
// the format: shapes and bytes, weights and code with hash or data,
// scratch of fixed, variable and shared sizes, views, a schedule, liveness
// and in-place options, an order option and, sometimes, ops listed out of
// execution order.
func richGraph(rng *rand.Rand) string {
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	var top []string
	if rng.IntN(2) == 0 {
		top = append(top, fmt.Sprintf(`"alignment": %s`, pick("1", "8", "64", "256")))
	}
	if rng.IntN(3) == 0 {
		top = append(top, fmt.Sprintf(`"liveness": {"inputs_from_start": %s, "outputs_to_end": %s}`, pick("true", "false"), pick("true", "false")))
	}
	if rng.IntN(3) == 0 {
		top = append(top, fmt.Sprintf(`"in_place": {"reshape": %s, "concat": %s, "split": %s, "slice": %s}`,
			pick("true", "false"), pick("true", "false"), pick("true", "false"), pick("true", "false")))
	}
	if rng.IntN(4) == 0 {
		top = append(top, fmt.Sprintf(`"order": %q`, pick("auto", "given", "depth-first")))
	}
	if rng.IntN(4) == 0 {
		top = append(top, `"format": "optalloc-graph/1", "comment": "golden"`)
	}
	nm := 1 + rng.IntN(3)
	if nm == 1 && rng.IntN(2) == 0 {
		return "{" + strings.Join(append(top, richModel(rng, 0)), ",\n") + "}"
	}
	var ms []string
	for i := range nm {
		ms = append(ms, fmt.Sprintf(`{"name": "m%d", %s%s}`, i, richModel(rng, i), pick("", "", `, "reload_weights": true`)))
	}
	switch rng.IntN(4) {
	case 1:
		top = append(top, `"schedule": "serial"`)
	case 2:
		top = append(top, `"schedule": "concurrent"`)
	case 3:
		var stages []string
		for i := range nm {
			stages = append(stages, fmt.Sprintf(`["m%d"]`, i))
		}
		if nm > 1 {
			stages = append([]string{fmt.Sprintf(`["m0", "m%d"]`, nm-1)}, stages[1:nm-1]...)
		}
		top = append(top, `"schedule": [`+strings.Join(stages, ", ")+`]`)
	}
	return "{" + strings.Join(append(top, `"models": [`+strings.Join(ms, ",\n")+`]`), ",\n") + "}"
}

// richModel is the "tensors" and "ops" fields of one model.
func richModel(rng *rand.Rand, m int) string {
	type tv struct {
		name string
		rows int
	}
	var tensors, ops []string
	var pool []tv
	n := 0
	newT := func(rows int, kind, extra string) tv {
		n++
		t := tv{fmt.Sprintf("t%d", n), rows}
		if rng.IntN(4) == 0 && kind != "weight" && kind != "code" {
			tensors = append(tensors, fmt.Sprintf(`{"name": %q, "bytes": %d, "kind": %q%s}`, t.name, 16*rows, kind, extra))
		} else {
			tensors = append(tensors, fmt.Sprintf(`{"name": %q, "shape": [%d, 4], "dtype": "float32", "kind": %q%s}`, t.name, rows, kind, extra))
		}
		return t
	}
	for range 1 + rng.IntN(2) {
		pool = append(pool, newT(1+rng.IntN(3), "input", ""))
	}
	var consts []tv
	for range rng.IntN(3) {
		switch rng.IntN(3) {
		case 0:
			consts = append(consts, newT(2, "weight", fmt.Sprintf(`, "hash": "w%d"`, rng.IntN(2))))
		case 1:
			raw := make([]byte, 32)
			raw[0] = byte(rng.IntN(2))
			consts = append(consts, newT(2, "weight", fmt.Sprintf(`, "data": %q`, base64.StdEncoding.EncodeToString(raw))))
		case 2:
			consts = append(consts, newT(2, "code", `, "hash": "cmd"`))
		}
	}
	scratch := func() string {
		switch rng.IntN(6) {
		case 0:
			return fmt.Sprintf(`, "scratch": [{"name": "a", "size": %d}, {"name": "b", "size": %d, "shares": "a"}]`, 1+rng.IntN(300), 1+rng.IntN(300))
		case 1:
			return fmt.Sprintf(`, "scratch": [{"min_size": %d, "max_size": %d, "latency_critical": true}]`, 8, 8+rng.IntN(500))
		case 2:
			return fmt.Sprintf(`, "scratch": [{"min_size": %d}, {"size": 40}], "latency_critical": true`, 1+rng.IntN(100))
		}
		return ""
	}
	pickT := func() tv { return pool[rng.IntN(len(pool))] }
	for k := range 6 + rng.IntN(12) {
		name := fmt.Sprintf("op%d", k)
		ins := []string{pickT().name}
		if len(consts) > 0 && rng.IntN(2) == 0 {
			ins = append(ins, consts[rng.IntN(len(consts))].name)
		}
		switch rng.IntN(5) {
		case 0, 1:
			y := newT(pickT().rows, "", "")
			ops = append(ops, op(name, pick1(rng, "Relu", "Conv"), ins, l(y.name), strings.TrimPrefix(scratch(), ", ")))
			pool = append(pool, y)
		case 2:
			a, b := pickT(), pickT()
			y := newT(a.rows+b.rows, "", "")
			ops = append(ops, op(name, "Concat", l(a.name, b.name), l(y.name), `"axis": 0`))
			pool = append(pool, y)
		case 3:
			x := pickT()
			if x.rows >= 2 {
				a, b := newT(1, "", ""), newT(x.rows-1, "", "")
				ops = append(ops, op(name, "Split", l(x.name), l(a.name, b.name), `"axis": -2`))
				pool = append(pool, a, b)
			}
		case 4:
			x := pickT()
			y := newT(x.rows, "", "")
			ops = append(ops, op(name, pick1(rng, "Reshape", "Flatten", "Squeeze"), l(x.name), l(y.name), ""))
			pool = append(pool, y)
		}
	}
	last := pool[len(pool)-1]
	out := newT(last.rows, "output", "")
	ops = append(ops, op("final", "Relu", l(last.name), l(out.name), ""))
	if rng.IntN(4) == 0 { // listed out of execution order
		rng.Shuffle(len(ops), func(i, j int) { ops[i], ops[j] = ops[j], ops[i] })
	}
	if rng.IntN(3) == 0 {
		rng.Shuffle(len(tensors), func(i, j int) { tensors[i], tensors[j] = tensors[j], tensors[i] })
	}
	_ = m
	return "\"tensors\": [\n" + strings.Join(tensors, ",\n") + "],\n\"ops\": [\n" + strings.Join(ops, ",\n") + "]"
}

func pick1(rng *rand.Rand, xs ...string) string { return xs[rng.IntN(len(xs))] }

// TestLoadGivesReadsProblem: formats.Load's path, which skips the report's
// figures for a single model, gives the problem or the error Read gives.
func TestLoadGivesReadsProblem(t *testing.T) {
	for _, g := range goldenGraphs(t) {
		want, _, werr := Read(strings.NewReader(g.src), "g.graph.json")
		got, gerr := formats.LoadBytes([]byte(g.src), "g.graph.json")
		assert.Equal(t, fmt.Sprint(werr), fmt.Sprint(gerr), g.name)
		assert.Equal(t, want, got, g.name)
	}
}
