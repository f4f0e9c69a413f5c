package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPlannerOptErrors: a bad key or value is one line, exit 2, and
// nothing written.
func TestPlannerOptErrors(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "plan.csv")
	for _, c := range []struct{ opt, msg string }{
		{"freelist.bogus=1", `unknown option "freelist.bogus"`},
		{"freelist.split=biggest", `freelist.split: "biggest" is not one of largest, off, smallest`},
		{"freelist.reuse_threshold=-3", `is not a byte count`},
		{"strip.rounds=0", `is not a round count`},
		{"strip.budget=x", `is not a work budget`},
		{"scratch.grow", `want NAME.KEY=VALUE`},
		{"scratch.elastic=maybe", `"maybe" is not on or off`},
		{"scratch.fast_pool=slow", `"slow" is not one of any, critical`},
	} {
		code, stdout, stderr := cli(t, "", "plan", "../../examples/tiny-cnn.csv", "-o", out, "--planner-opt", c.opt)
		require.Equal(t, 2, code, c.opt)
		require.Empty(t, stdout)
		require.Equal(t, 1, strings.Count(strings.TrimSpace(stderr), "\n")+1, stderr)
		require.Contains(t, stderr, c.msg)
		_, err := os.Stat(out)
		require.True(t, os.IsNotExist(err), "nothing written")
	}
}

// TestPlannerOptApplies: the options reach the planners — freelist splits
// the largest block (a higher peak on MiniMalloc A: 2953216, not 2305024),
// strip orders are any strip-… name — and every plan is verified.
func TestPlannerOptApplies(t *testing.T) {
	needShared(t)
	in := shared + "/minimalloc/A.1048576.csv"
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		peak string
	}{
		{[]string{"--method", "freelist"}, "peak=2305024 "},
		{[]string{"--method", "freelist", "--planner-opt", "freelist.split=largest"}, "peak=2953216 "},
		{[]string{"--method", "freelist", "--planner-opt", "freelist.same_start=op"}, "peak=2162688 "},
		{[]string{"--method", "strip-size-per-lifetime", "--planner-opt", "strip.rounds=1"}, "method=strip-size-per-lifetime "},
		{[]string{"--method", "strip-lifetime-asc-size-plus-area"}, "method=strip-lifetime-asc-size-plus-area "},
	} {
		out := filepath.Join(dir, "plan.csv")
		args := append([]string{"plan", in, "-o", out}, c.args...)
		code, _, stderr := cli(t, "", args...)
		require.Equal(t, 0, code, stderr)
		require.Contains(t, stderr, c.peak, c.args)
		code, _, stderr = cli(t, "", "verify", in, out)
		require.Equal(t, 0, code, stderr)
	}
	// one round of strip packing is its first placement: the same plan as
	// strip.reorder=off
	code, _, a := cli(t, "", "plan", in, "--method", "strip-size", "--planner-opt", "strip.rounds=1")
	require.Equal(t, 0, code)
	code, _, b := cli(t, "", "plan", in, "--method", "strip-size", "--planner-opt", "strip.reorder=off")
	require.Equal(t, 0, code)
	require.Equal(t, strings.Fields(a)[0], strings.Fields(b)[0])
}

// TestPlannerOptScratchPools: scratch.fast_pool=critical keeps the
// non-critical scratch of a graph out of the fast pool.
func TestPlannerOptScratchPools(t *testing.T) {
	dir := t.TempDir()
	for _, mode := range []string{"any", "critical"} {
		out := filepath.Join(dir, mode+".json")
		code, _, stderr := cli(t, "", "plan", "../../examples/unet.graph.json", "--pool", "sram:4MiB", "--pool", "dram:0",
			"--method", "heuristic", "--planner-opt", "scratch.fast_pool="+mode, "--planner-opt", "scratch.grow=either",
			"--planner-opt", "scratch.place=top", "-o", out)
		require.Equal(t, 0, code, stderr)
		data, err := os.ReadFile(out)
		require.NoError(t, err)
		var plan struct {
			Placements []struct{ ID, Pool string } `json:"placements"`
		}
		require.NoError(t, json.Unmarshal(data, &plan))
		scratch, inSRAM := 0, 0
		for _, pl := range plan.Placements {
			if strings.Contains(pl.ID, ":") { // scratch ids are op:name
				scratch++
				if pl.Pool == "sram" {
					inSRAM++
				}
			}
		}
		require.Equal(t, 18, scratch)
		if mode == "critical" {
			require.Zero(t, inSRAM, "no scratch in sram")
		} else {
			require.Positive(t, inSRAM, "scratch competes for sram")
		}
	}
}

// TestPlannerOptFreeListTiers: freelist.tiers makes the free-list sweep
// split the buffers over the pools (split.method "freelist").
func TestPlannerOptFreeListTiers(t *testing.T) {
	for _, c := range []struct{ mode, method string }{{"off", "heuristic"}, {"reuse-first", "freelist"}, {"fill-fast", "freelist"}} {
		code, stdout, stderr := cli(t, "", "plan", "../../examples/resnet18.graph.json", "--pool", "sram:1MiB", "--pool", "dram:0",
			"--method", "heuristic", "--threads", "1", "--json", "--quiet", "--planner-opt", "freelist.tiers="+c.mode)
		require.Equal(t, 0, code, stderr)
		var j struct {
			Split struct{ Method string } `json:"split"`
		}
		require.NoError(t, json.Unmarshal([]byte(stdout), &j))
		require.Equal(t, c.method, j.Split.Method, c.mode)
	}
	code, _, stderr := cli(t, "", "plan", "../../examples/tiny-cnn.csv", "--planner-opt", "freelist.tiers=fast")
	require.Equal(t, 2, code)
	require.Contains(t, stderr, `"fast" is not one of fill-fast, off, reuse-first`)
}

// TestPlannerOptCompareCheck: compare and check pass --planner-opt to every
// solve (the same peaks as plan with it), check records it in a baseline
// and warns when a check runs with other options, and --layout blocks
// refuses it instead of ignoring it.
func TestPlannerOptCompareCheck(t *testing.T) {
	needShared(t)
	in := shared + "/minimalloc/A.1048576.csv"
	opt := "freelist.split=largest"
	code, stdout, stderr := cli(t, "", "compare", in, "--methods", "freelist", "--format", "csv", "-q", "--planner-opt", opt)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, "2953216")
	code, stdout, stderr = cli(t, "", "compare", in, "--methods", "freelist", "--format", "csv", "-q")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, "2305024")

	base := filepath.Join(t.TempDir(), "base.json")
	code, _, stderr = cli(t, "", "check", in, "--method", "freelist", "--write-baseline", base, "-q", "--planner-opt", opt)
	require.Equal(t, 0, code, stderr)
	data, err := os.ReadFile(base)
	require.NoError(t, err)
	var b struct {
		PlannerOpts []string `json:"planner_opts"`
		Instances   map[string]struct {
			Peak int64 `json:"peak"`
		} `json:"instances"`
	}
	require.NoError(t, json.Unmarshal(data, &b))
	require.Equal(t, []string{opt}, b.PlannerOpts)
	require.Len(t, b.Instances, 1)
	for _, e := range b.Instances {
		require.Equal(t, int64(2953216), e.Peak)
	}
	// the same options: passes silently; without them: better, with a warning
	code, _, stderr = cli(t, "", "check", in, "--baseline", base, "-q", "--planner-opt", opt)
	require.Equal(t, 0, code, stderr)
	require.NotContains(t, stderr, "warning")
	code, _, stderr = cli(t, "", "check", in, "--baseline", base)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stderr, "warning: the baseline was made with --planner-opt")

	for _, cmd := range []string{"compare", "check", "plan"} {
		args := []string{cmd, in, "--layout", "blocks", "--planner-opt", opt}
		if cmd == "check" {
			args = append(args, "--write-baseline", filepath.Join(t.TempDir(), "b.json"))
		}
		code, _, stderr = cli(t, "", args...)
		require.Equal(t, 2, code, cmd)
		require.Contains(t, stderr, "not available with --layout blocks", cmd)
	}
}
