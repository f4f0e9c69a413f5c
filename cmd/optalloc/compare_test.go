package main

import (
	"encoding/csv"
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/heuristics"
)

func threeShared(t *testing.T) []string {
	d := sharedDir(t)
	return []string{
		filepath.Join(d, "minimalloc", "input.12.csv"),
		filepath.Join(d, "minimalloc", "A.1048576.csv"),
		filepath.Join(d, "traces", "iree-mobilebert.csv"),
	}
}

func TestCompareMarkdownThreeShared(t *testing.T) {
	inputs := threeShared(t)
	methods := heuristics.Names()[0] + ",auto"
	code, out, stderr := toolRun(t, append([]string{"compare", "--methods", methods, "--time-limit", "2s"}, inputs...)...)
	require.Equal(t, 0, code, stderr)
	var rows []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "| ") && !strings.HasPrefix(l, "| instance") {
			rows = append(rows, l)
		}
	}
	require.Len(t, rows, 3, out)
	for i, row := range rows {
		assert.Contains(t, row, inputs[i])
		assert.Contains(t, row, "**", "the best peak is marked in every row: %s", row)
		// instance, buffers, lower bound, 2 methods, best = 6 cells.
		assert.Equal(t, 6, strings.Count(row, "|")-1, row)
	}
	// input.12 has optimum 12 and max-live 12.
	assert.Contains(t, rows[0], "**12** 0.00% optimal")
}

func TestCompareCSVAndJSONAgree(t *testing.T) {
	dir := t.TempDir()
	inputs := []string{writeRandomCSV(t, dir, 1, 30), writeRandomCSV(t, dir, 2, 40)}
	// Greedy planners are deterministic and fast: the CSV and JSON runs
	// must agree peak for peak.
	var methods []string
	for _, n := range heuristics.Names() {
		if strings.HasPrefix(n, "greedy-") && len(methods) < 3 {
			methods = append(methods, n)
		}
	}
	if len(methods) == 0 {
		methods = heuristics.Names()[:1]
	}
	args := []string{"compare", "--methods", strings.Join(methods, ","), "--time-limit", "2s"}

	code, out, stderr := toolRun(t, append(append(args, "--format", "csv"), inputs...)...)
	require.Equal(t, 0, code, stderr)
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	require.NoError(t, err)
	require.Len(t, recs, 1+len(inputs))
	require.Len(t, recs[0], 3+4*len(methods)+1)

	code, out, stderr = toolRun(t, append(append(args, "--json"), inputs...)...)
	require.Equal(t, 0, code, stderr)
	var j compareJSON
	require.NoError(t, json.Unmarshal([]byte(out), &j))
	require.Equal(t, methods, j.Methods)
	require.Len(t, j.Instances, len(inputs))
	for i, inst := range j.Instances {
		assert.Equal(t, inputs[i], inst.Input)
		assert.Equal(t, loadCSV(t, inputs[i]).ComputeSweep().MaxLive, inst.MaxLive)
		assert.GreaterOrEqual(t, inst.LowerBound, inst.MaxLive)
		require.Len(t, inst.Results, len(methods))
		best := int64(0)
		for k, r := range inst.Results {
			assert.Equal(t, methods[k], r.Method)
			require.True(t, r.Valid)
			require.NotNil(t, r.Gap)
			assert.InDelta(t, float64(r.Peak-inst.LowerBound)/float64(inst.LowerBound)*100, *r.Gap, 1e-9)
			if best == 0 || r.Peak < best {
				best = r.Peak
			}
			// The CSV row says the same.
			peak, err := strconv.ParseInt(recs[1+i][3+4*k], 10, 64)
			require.NoError(t, err)
			assert.Equal(t, r.Peak, peak, "csv and json disagree (deterministic solves)")
		}
		assert.Equal(t, best, inst.BestPeak)
		for _, r := range inst.Results {
			assert.Equal(t, r.Peak == best, r.Best)
		}
		assert.NotEmpty(t, inst.BestMethods)
	}
}

func TestCompareUsageErrors(t *testing.T) {
	dir := t.TempDir()
	in := writeRandomCSV(t, dir, 3, 5)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no input", []string{"compare"}, "INPUT"},
		{"unknown method", []string{"compare", "--methods", "nope", in}, `unknown method "nope"`},
		{"bad format", []string{"compare", "--format", "xml", in}, "--format"},
		{"missing file", []string{"compare", filepath.Join(dir, "missing.csv")}, "missing.csv"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := toolRun(t, tc.args...)
			assert.Equal(t, 2, code)
			assert.Contains(t, stderr, tc.want)
		})
	}
}

func TestParseMethods(t *testing.T) {
	all, err := parseMethods([]string{"all"})
	require.NoError(t, err)
	assert.Contains(t, all, "auto")
	assert.Contains(t, all, "exact")
	def, err := parseMethods(nil)
	require.NoError(t, err)
	assert.Equal(t, append(heuristics.Names(), "auto"), def)
	dup, err := parseMethods([]string{"auto", " auto", ""})
	require.NoError(t, err)
	assert.Equal(t, []string{"auto"}, dup)
}

func TestCompareWithPools(t *testing.T) {
	code, stdout, stderr := cli(t, "", "compare", "../../examples/tiny-cnn.csv", "--pool", "sram:254720", "--pool", "dram:0",
		"--methods", "greedy-size,auto", "--time-limit", "5s", "--json", "-q")
	require.Equal(t, 0, code, stderr)
	var got compareJSON
	require.NoError(t, json.Unmarshal([]byte(stdout), &got))
	require.Len(t, got.Instances, 1)
	in := got.Instances[0]
	assert.Zero(t, in.LowerBound, "no bound is claimed across pools")
	require.Len(t, in.Results, 2)
	for _, r := range in.Results {
		assert.True(t, r.Valid, r.Method)
		assert.Nil(t, r.Gap, r.Method)
	}
	// The exact split keeps more in sram, so auto's peak (dram's) is lower.
	assert.Less(t, in.Results[1].Peak, in.Results[0].Peak)
	// check takes the same pools: a baseline written with them passes.
	base := filepath.Join(t.TempDir(), "base.json")
	code, _, stderr = cli(t, "", "check", "../../examples/tiny-cnn.csv", "--pool", "sram:254720", "--pool", "dram:0", "--write-baseline", base, "-q")
	require.Equal(t, 0, code, stderr)
	code, stdout, stderr = cli(t, "", "check", "../../examples/tiny-cnn.csv", "--pool", "sram:254720", "--pool", "dram:0", "--baseline", base, "-q")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "= baseline")
	code, _, stderr = cli(t, "", "compare", "../../examples/tiny-cnn.csv", "--pool", "sram", "-q")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "want NAME:CAPACITY[:ALIGN]")
}
