//go:build cgo

package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/device"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/solve"
)

func TestReleaseZeroIsANoOpAndASecondReleaseAnError(t *testing.T) {
	before := liveHandles()
	h := newHandle(newProblem())
	assert.Equal(t, before+1, liveHandles())
	require.NoError(t, release(0))
	require.NoError(t, release(h))
	err := release(h)
	require.Error(t, err)
	assert.Equal(t, codeBadInput, codeOf(err))
	assert.Equal(t, before, liveHandles())
}

func TestCallTurnsAPanicIntoAnInternalError(t *testing.T) {
	h := newHandle(newSolver())
	defer release(h)
	rc := call(h, func() error { panic("boom") })
	assert.Equal(t, codeFailure, int(rc))
	assert.Equal(t, "internal error: boom; please report it", errorOf(h))
	// The next call that succeeds clears the message.
	assert.Equal(t, codeOK, int(call(h, func() error { return nil })))
	assert.Empty(t, errorOf(h))
}

func TestCodesAreTheCLIExitCodes(t *testing.T) {
	for _, c := range []struct {
		name string
		err  error
		code int
	}{
		{"success", nil, codeOK},
		{"bad input", &model.InputError{File: "x.csv", Line: 3, Msg: "bad"}, codeBadInput},
		{"wrapped bad input", errors.Join(errors.New("reading"), &model.InputError{Msg: "bad"}), codeBadInput},
		{"bad argument", badArg("NULL"), codeBadInput},
		{"unknown method", fmt.Errorf(`%w "x" (want auto)`, solve.ErrUnknownMethod), codeBadInput},
		{"a failure whose message starts alike", errors.New(`unknown method table: disk full`), codeFailure},
		{"anything else", errors.New("disk full"), codeFailure},
	} {
		t.Run(c.name, func(t *testing.T) { assert.Equal(t, c.code, codeOf(c.err)) })
	}
}

func TestMessageOnAHandleThatIsNotLive(t *testing.T) {
	assert.Equal(t, codeFailure, finish(12345, errors.New("x\nsecond line")))
	assert.Equal(t, "x", errorOf(12345), "one line, kept where no handle keeps it")
}

func TestSolveColumnsThenVerify(t *testing.T) {
	pr := newProblem()
	require.NoError(t, pr.addBuffers([]string{"a", "b", "c"}, []int64{0, 1, 2}, []int64{2, 3, 4}, []int64{4, 8, 4}, nil))
	s := newSolver()
	s.set(func(o *solve.Options) { o.Threads = 1 })
	r, err := s.run(pr)
	require.NoError(t, err)
	assert.Equal(t, solve.Optimal, r.res.Status)
	assert.Equal(t, int64(12), r.peak())
	off := make([]int64, 3)
	pools := make([]int32, 3)
	require.NoError(t, r.offsets(off, pools))
	lines, err := pr.check(off, pools)
	require.NoError(t, err)
	assert.Empty(t, lines)
	off[1] = off[0] // b now overlaps a while both are live
	lines, err = pr.check(off, nil)
	require.NoError(t, err)
	require.NotEmpty(t, lines)
	assert.Contains(t, lines[0], "overlap")
}

func TestAddBuffersNamesByIndexAndChecksLengths(t *testing.T) {
	pr := newProblem()
	require.NoError(t, pr.addBuffers(nil, []int64{0}, []int64{1}, []int64{4}, []int64{8}))
	require.NoError(t, pr.addBuffers(nil, []int64{0}, []int64{1}, []int64{4}, nil))
	assert.Equal(t, "0\x001\x00", string(pr.ids()))
	err := pr.addBuffers(nil, []int64{0, 1}, []int64{1}, []int64{4}, nil)
	assert.Equal(t, codeBadInput, codeOf(err))
	align := make([]int64, 2)
	pin := make([]int64, 2)
	require.NoError(t, pr.pin(1, 16))
	require.NoError(t, pr.columns(nil, nil, nil, align, pin, nil))
	assert.Equal(t, []int64{8, 1}, align)
	assert.Equal(t, []int64{-1, 16}, pin)
}

func TestAResultKeepsTheProblemItWasSolvedFrom(t *testing.T) {
	pr := newProblem()
	require.NoError(t, pr.addBuffers(nil, []int64{0, 0}, []int64{1, 1}, []int64{4, 4}, nil))
	r, err := newSolver().run(pr)
	require.NoError(t, err)
	require.NoError(t, pr.pin(0, 100))
	require.NoError(t, pr.addBuffers(nil, []int64{0}, []int64{1}, []int64{4}, nil))
	assert.Nil(t, r.p.Buffers[0].Pin, "the pin went to a copy")
	assert.Len(t, r.p.Buffers, 2)
	out := filepath.Join(t.TempDir(), "plan.csv")
	require.NoError(t, r.write(out))
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Contains(t, string(data), "offset")
}

func TestLoadReadsWhatThePlanCommandReads(t *testing.T) {
	pr := newProblem()
	require.NoError(t, pr.load("../examples/resnet18.graph.json", nil))
	assert.Equal(t, 109, pr.len())
	err := pr.load("../examples/resnet18.graph.json", []string{"batch"})
	assert.Equal(t, codeBadInput, codeOf(err), "a --dim without =VALUE")
	err = pr.load("missing.csv", nil)
	require.Error(t, err)
	assert.Equal(t, "missing.csv: cannot open: no such file or directory", err.Error())
	assert.Equal(t, 109, pr.len(), "a failed load leaves the problem as it was")
}

func TestACancelledSolverStaysCancelled(t *testing.T) {
	pr := newProblem()
	require.NoError(t, pr.load("../examples/resnet18.graph.json", nil))
	s := newSolver()
	s.set(func(o *solve.Options) { o.TimeLimit = time.Minute; o.Method = "exact" })
	s.cancelSolve()
	r, err := s.run(pr)
	require.NoError(t, err)
	require.NotNil(t, r)
	// Cancelled before it began, the solve ran no engine: without the
	// cancel, exact proves resnet18's optimum.
	assert.Equal(t, solve.Unknown, r.res.Status)
	assert.Nil(t, r.res.Plan)
	assert.Empty(t, r.res.Stats.Engines)
}

func TestVersionMatchesTheCLI(t *testing.T) {
	src, err := os.ReadFile("../cmd/optalloc/main.go")
	require.NoError(t, err)
	m := regexp.MustCompile(`var Version = "([^"]+)"`).FindSubmatch(src)
	require.NotNil(t, m)
	assert.Equal(t, string(m[1]), version)
}

func TestASolverRunsOneSolveAtATime(t *testing.T) {
	const d = "../../shared/benchmarks/minimalloc/D.1048576.csv"
	if _, err := os.Stat(d); err != nil {
		t.Skipf("%s is absent (the shared data sits beside the repository)", d)
	}
	pr := newProblem()
	require.NoError(t, pr.load(d, nil))
	s := newSolver()
	s.set(func(o *solve.Options) { o.TimeLimit = time.Minute; o.Threads = 1 })
	done := make(chan error, 1)
	go func() {
		_, err := s.run(pr)
		done <- err
	}()
	require.Eventually(t, func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.cancel != nil
	}, 10*time.Second, time.Millisecond)
	_, err := s.run(pr)
	require.Error(t, err)
	assert.Equal(t, codeFailure, codeOf(err))
	s.cancelSolve()
	require.NoError(t, <-done)
}

func TestPinsAndPoolsInBulk(t *testing.T) {
	pr := newProblem()
	require.NoError(t, pr.addBuffers(nil, []int64{0, 0, 0}, []int64{1, 1, 1}, []int64{8, 8, 8}, nil))
	require.NoError(t, pr.addPool("sram", 16, 0))
	require.NoError(t, pr.addPool("dram", 0, 0))
	assert.Equal(t, codeBadInput, codeOf(pr.pins([]int64{0})), "one value per buffer")
	assert.Equal(t, codeBadInput, codeOf(pr.pools([]int32{0, 2, -1})), "pool 2 was not added")
	require.NoError(t, pr.pins([]int64{-1, 8, -1}))
	require.NoError(t, pr.pools([]int32{0, 0, 1}))
	r, err := newSolver().run(pr)
	require.NoError(t, err)
	off, pools := make([]int64, 3), make([]int32, 3)
	require.NoError(t, r.offsets(off, pools))
	assert.Equal(t, []int64{0, 8, 0}, off)
	assert.Equal(t, []int32{0, 0, 1}, pools)
}

// TestTFLiteSolveIsTheDevices: a TFLite model loaded through the C API is
// solved as optalloc plan solves it: its kernels' scratch buffers where
// TFLite Micro puts them around the tensors, the peak the device's head.
// The free-list planner's joint layout of the keyword model needs 800 bytes
// on the device; the result keeps TFLite Micro's own layout (672).
func TestTFLiteSolveIsTheDevices(t *testing.T) {
	path := filepath.Join("..", "..", "shared", "models", "tflite", "keyword_scrambled_8bit.tflite")
	if _, err := os.Stat(path); err != nil {
		t.Skip("the shared models are absent")
	}
	pr := newProblem()
	require.NoError(t, pr.load(path, nil))
	s := newSolver()
	s.opt.Method, s.opt.Threads = "freelist", 1
	r, err := s.run(pr)
	require.NoError(t, err)
	require.NotNil(t, r.res.Plan)
	assert.Equal(t, int64(672), r.res.Peak)
	on := r.in.Online()
	require.NotNil(t, on)
	replay, err := device.Simulate(context.Background(), r.p, on, r.res.Plan)
	require.NoError(t, err)
	assert.Equal(t, r.res.Plan.Placements, replay.Placements, "the scratch is not where TFLite Micro puts it")
}
