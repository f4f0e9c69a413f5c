package main

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/solve"
)

// syncBuffer is a bytes.Buffer safe for the progress goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func withIntervals(t *testing.T, d time.Duration) {
	oldT, oldP := ttyEvery, plainEvery
	ttyEvery, plainEvery = d, d
	t.Cleanup(func() { ttyEvery, plainEvery = oldT, oldP })
}

func TestProgressPlainLines(t *testing.T) {
	withIntervals(t, 5*time.Millisecond)
	var w syncBuffer
	report, done := startProgress(&w, false, time.Now().Add(-2*time.Second))
	time.Sleep(20 * time.Millisecond)
	assert.Empty(t, w.String(), "nothing is printed before the first report")
	report(solve.Progress{Peak: 150, LowerBound: 100, Nodes: 4000, Phase: "bnb"})
	require.Eventually(t, func() bool { return strings.Count(w.String(), "\n") >= 2 }, 2*time.Second, 5*time.Millisecond)
	done()
	done() // idempotent
	out := w.String()
	assert.NotContains(t, out, "\r", "plain mode never rewrites a line")
	line := strings.Split(out, "\n")[0]
	assert.Contains(t, line, "peak=150 lower_bound=100 gap=50.00%")
	assert.Regexp(t, `^ +2\.\ds `, line)
	assert.Regexp(t, `nodes/s=\d+ \(bnb\)$`, line)
}

func TestProgressTerminalLine(t *testing.T) {
	withIntervals(t, time.Hour) // redraws come from reports only
	var w syncBuffer
	report, done := startProgress(&w, true, time.Now())
	report(solve.Progress{Peak: 1000000, LowerBound: 1000000})
	report(solve.Progress{Peak: 12, LowerBound: 10})
	done()
	out := w.String()
	assert.NotContains(t, out, "\n", "a terminal gets one updating line")
	parts := strings.Split(out, "\r")
	require.Len(t, parts, 5) // "", first, second (padded), blanks, ""
	assert.Contains(t, parts[1], "peak=1000000 lower_bound=1000000 gap=0.00%")
	assert.Contains(t, parts[2], "peak=12 lower_bound=10 gap=20.00%")
	assert.Equal(t, len(parts[1]), len(parts[2]), "a shorter line is padded over the longer one")
	assert.Equal(t, strings.Repeat(" ", len(parts[2])), parts[3], "done clears the line")
}

func TestPlanQuietHasNoProgress(t *testing.T) {
	withIntervals(t, time.Millisecond)
	in := writeRandomCSV(t, t.TempDir(), 9, 50)
	code, _, stderr := toolRun(t, "plan", "--quiet", in)
	require.Equal(t, 0, code, stderr)
	assert.Empty(t, stderr)
	code, _, stderr = toolRun(t, "plan", in)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "peak=")
}

func TestYieldWriterClearsTheLineFirst(t *testing.T) {
	withIntervals(t, time.Hour)
	var w syncBuffer
	report, done := startProgress(&w, true, time.Now())
	report(solve.Progress{Peak: 5, LowerBound: 5})
	y := &yieldWriter{w: &w, done: done}
	_, err := y.Write([]byte("peak=5 summary\n"))
	require.NoError(t, err)
	report(solve.Progress{Peak: 4, LowerBound: 4}) // late report: draws once more at most
	done()
	out := w.String()
	i := strings.Index(out, "peak=5 summary\n")
	require.Positive(t, i)
	assert.True(t, strings.HasSuffix(out[:i], "\r"), "the line was cleared before the summary: %q", out)
}
