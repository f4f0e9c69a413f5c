package solve

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// useFakeCPU makes the CPU clock of the shares one the test sets (not for
// parallel tests) and returns it.
func useFakeCPU(t *testing.T) *atomic.Int64 {
	var now atomic.Int64
	f := func() time.Duration { return time.Duration(now.Load()) }
	fakeCPU.Store(&f)
	t.Cleanup(func() { fakeCPU.Store(nil) })
	return &now
}

// TestCPUShares: the stages' shares of the time limit are counted on the
// CPU clock (cpuclock.go), whatever the wall clock does: with the fake CPU
// clock standing still, no share ends, and the time left is the limit
// less the CPU used, spread over the threads.
func TestCPUShares(t *testing.T) {
	now := useFakeCPU(t)
	ms := int64(time.Millisecond)
	wall, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	top := cpuLimit(wall, 100*time.Millisecond, 2)

	d, ok := timeLeft(top)
	require.True(t, ok)
	assert.Equal(t, 100*time.Millisecond, d, "the limit, not the hour of wall time")
	now.Store(40 * ms) // 40 ms of CPU on two threads: 20 ms of the limit
	d, _ = timeLeft(top)
	assert.Equal(t, 80*time.Millisecond, d)

	// A fifth of the 80 ms left on two threads: 32 ms of CPU in all.
	share, stop := withShare(top, 5, 2)
	defer stop()
	d, _ = timeLeft(share)
	assert.Equal(t, 16*time.Millisecond, d)
	now.Store(71 * ms)
	d, _ = timeLeft(share)
	assert.Equal(t, 500*time.Microsecond, d)
	require.NoError(t, share.Err(), "1 ms of CPU is left")
	now.Store(72 * ms)
	<-share.Done()
	assert.ErrorIs(t, context.Cause(share), errCPUShare)
	require.NoError(t, top.Err(), "only the share ended")

	// A wall deadline set inside a share takes over from it: the half
	// hour, not the share's 32 ms of CPU on one thread.
	inner, stop2 := withShare(top, 2, 1)
	defer stop2()
	d, _ = timeLeft(inner)
	assert.Equal(t, 32*time.Millisecond, d)
	walled, stop3 := context.WithTimeout(inner, 30*time.Minute)
	defer stop3()
	d, _ = timeLeft(walled)
	assert.Greater(t, d, time.Minute)

	// Without a deadline or a limit nothing is shared out.
	_, ok = timeLeft(context.Background())
	assert.False(t, ok)
	free, stop4 := withShare(context.Background(), 5, 1)
	defer stop4()
	now.Store(time.Hour.Nanoseconds())
	assert.NoError(t, free.Err())
}

// TestCPUWait: a race's head start (cpuWait) ends when the CPU clock has
// moved by it, when the engines ahead have returned (early), or not at all
// when the race ends first.
func TestCPUWait(t *testing.T) {
	now := useFakeCPU(t)
	never := make(chan struct{})
	closed := make(chan struct{})
	close(closed)
	assert.True(t, cpuWait(context.Background(), time.Hour, 2, closed), "the engines ahead returned")
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	assert.False(t, cpuWait(cancelled, time.Hour, 2, never), "the race ended")
	var done atomic.Bool
	go func() { // the CPU clock moves on, a millisecond at a time
		for !done.Load() {
			now.Add(int64(time.Millisecond))
			time.Sleep(time.Millisecond)
		}
	}()
	assert.True(t, cpuWait(context.Background(), 5*time.Millisecond, 2, never), "10 ms of CPU on two threads")
	done.Store(true)
}
