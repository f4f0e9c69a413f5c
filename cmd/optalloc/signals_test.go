//go:build unix

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// slowReader gives its data only after a delay, like a large file.
type slowReader struct {
	delay time.Duration
	r     io.Reader
}

func (s *slowReader) Read(p []byte) (int, error) {
	if s.delay > 0 {
		time.Sleep(s.delay)
		s.delay = 0
	}
	return s.r.Read(p)
}

func tinyText(t *testing.T) string {
	data, err := os.ReadFile(tinyCNN)
	require.NoError(t, err)
	return string(data)
}

// The time limit is wall time from the start, reading included, and time=
// says so.
func TestTimeLimitCountsReading(t *testing.T) {
	const delay = 600 * time.Millisecond
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"plan", "-", "--json", "-q", "--method", "greedy-size"},
		&slowReader{delay, strings.NewReader(tinyText(t))}, &out, &errb)
	require.Equal(t, 0, code, errb.String())
	var j planJSON
	require.NoError(t, json.Unmarshal(out.Bytes(), &j))
	assert.GreaterOrEqual(t, j.Seconds, delay.Seconds(), "time_seconds includes the reading")

	// A limit spent by the reading leaves no time to plan.
	out.Reset()
	errb.Reset()
	code = run(context.Background(), []string{"plan", "-", "--time-limit", "300ms", "--method", "exact"},
		&slowReader{delay, strings.NewReader(tinyText(t))}, &out, &errb)
	assert.Equal(t, 1, code, errb.String())
	assert.Contains(t, errb.String(), "status=unknown")
	var secs float64
	for _, f := range strings.Fields(errb.String()) {
		if v, ok := strings.CutPrefix(f, "time="); ok {
			_, err := fmt.Sscanf(v, "%fs", &secs)
			require.NoError(t, err)
		}
	}
	assert.GreaterOrEqual(t, secs, delay.Seconds())
}

// Without a plan the summary says none, not peak=0 gap=0.00%.
func TestNoPlanSummarySaysNone(t *testing.T) {
	code, stdout, stderr := cli(t, "", "plan", tinyCNN, "--time-limit", "1ns", "--json")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "peak=none lower_bound=1018880 gap=none status=unknown method=none time=")
	var j map[string]any
	require.NoError(t, json.Unmarshal([]byte(stdout), &j))
	assert.Nil(t, j["peak"])
	assert.Nil(t, j["gap_percent"])
}

// A signal while the input is read stops the command at once.
func TestInterruptWhileReading(t *testing.T) {
	pr, pw := io.Pipe() // never written: the read blocks
	defer pw.Close()
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		time.Sleep(100 * time.Millisecond)
		cancel()
	}()
	out := filepath.Join(t.TempDir(), "p.csv")
	var stdout, stderr bytes.Buffer
	code := run(ctx, []string{"plan", "-", "-o", out}, pr, &stdout, &stderr)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr.String(), "interrupted while reading")
	assert.NoFileExists(t, out)
}

func TestFlagMisuseIsAnError(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"plan", tinyCNN, "--max-blocks", "3"}, "--max-blocks applies to --layout blocks only"},
		{[]string{"plan", tinyCNN, "--schedule", "x.csv"}, "--schedule applies to --layout blocks only"},
		{[]string{"plan", tinyCNN, "--pool", "a:0", "--pool", "a:100"}, `--pool "a:100": pool "a" is given twice`},
	} {
		code, _, stderr := cli(t, "", tc.args...)
		assert.Equal(t, 2, code, tc.args)
		assert.Contains(t, stderr, tc.want)
		assert.NotContains(t, stderr, "tiny-cnn.csv:", "not blamed on the input")
	}
	_, help, _ := cli(t, "", "help", "plan")
	assert.Contains(t, help, "0 = no limit")
}

// plan --svg on a plan too large to draw fails before solving.
func TestPlanPictureLimitBeforeSolving(t *testing.T) {
	var b strings.Builder
	b.WriteString("id,lower,upper,size\n")
	for i := range vizMaxBuffers + 1 {
		fmt.Fprintf(&b, "b%d,%d,%d,64\n", i, i, i+2)
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "p.csv")
	code, _, stderr := cli(t, b.String(), "plan", "-", "--svg", filepath.Join(dir, "p.svg"), "-o", out, "--method", "greedy-size")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "leave out --svg and --html")
	assert.NotContains(t, stderr, "peak=", "no solve ran")
	assert.NoFileExists(t, out)
}

// SIGTERM, SIGHUP and SIGINT stop a long search and keep the best plan.
func TestSignalsKeepTheBestPlan(t *testing.T) {
	needShared(t)
	in := filepath.Join(shared, "minimalloc", "D.1048576.csv")
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "plan.csv")
			cmd := exec.Command(os.Args[0], "plan", in, "--method", "exact", "--time-limit", "2m", "-o", out)
			cmd.Env = append(os.Environ(), cliChildEnv+"=1")
			var errb bytes.Buffer
			cmd.Stderr = &errb
			require.NoError(t, cmd.Start())
			time.Sleep(1500 * time.Millisecond)
			require.NoError(t, cmd.Process.Signal(sig))
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				require.NoError(t, err, errb.String())
			case <-time.After(60 * time.Second):
				cmd.Process.Kill()
				<-done
				t.Fatalf("still running a minute after %v: %s", sig, errb.String())
			}
			assert.Contains(t, errb.String(), "status=feasible")
			code, stdout, stderr := cli(t, "", "verify", in, out)
			assert.Equal(t, 0, code, stderr)
			assert.Contains(t, stdout, "valid: 213 buffers")
		})
	}
}

// A decision that ends unknown has no plan within the capacity: the summary
// gives the best plan's peak, gap and planner (that plan is above the
// capacity and is not written), and the reason names them.
func TestUnknownDecisionSummary(t *testing.T) {
	needShared(t)
	in := filepath.Join(shared, "minimalloc", "D.1048576.csv")
	code, _, stderr := cli(t, "", "plan", in, "--capacity", "986112", "--time-limit", "500ms")
	assert.Equal(t, 1, code)
	// Issue 35, item 4: the best plan's peak, gap and finder, as docs/cli.md
	// says (it printed peak=none gap=none method=none).
	m := regexp.MustCompile(`peak=(\d+) lower_bound=\d+ gap=\d+\.\d\d% status=unknown method=(\S+) `).FindStringSubmatch(stderr)
	require.NotNil(t, m, stderr)
	assert.NotEqual(t, "none", m[2])
	assert.Regexp(t, `the best plan found \(by `+regexp.QuoteMeta(m[2])+`\) needs `+m[1]+` bytes, above the capacity`, stderr)
}
