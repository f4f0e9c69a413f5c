package heuristics

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestWatchWork drives the work budget's watcher with a clock and ticks of
// its own (no wall time): a deadline that has passed ends the context only
// once the clock has grown by the budget; a cancellation ends it at once.
func TestWatchWork(t *testing.T) {
	var now atomic.Int64
	clock := func() time.Duration { return time.Duration(now.Load()) }
	past, cancelPast := context.WithDeadline(context.Background(), time.Unix(0, 0))
	defer cancelPast()

	t.Run("deadline passed: runs on to the budget", func(t *testing.T) {
		now.Store(100)
		tick := make(chan time.Time)
		ctx, stop := watchWork(past, 50, clock, tick)
		defer stop()
		now.Store(120)
		tick <- time.Time{}
		tick <- time.Time{} // the first tick has been looked at
		require.NoError(t, ctx.Err())
		now.Store(150)
		select { // the watcher may see the clock before this tick
		case tick <- time.Time{}:
		case <-ctx.Done():
		}
		<-ctx.Done()
		require.ErrorIs(t, context.Cause(ctx), context.DeadlineExceeded)
	})
	t.Run("cancelled: ends at once", func(t *testing.T) {
		parent, cancel := context.WithCancel(context.Background())
		ctx, stop := watchWork(parent, 50, clock, make(chan time.Time))
		defer stop()
		require.NoError(t, ctx.Err())
		cancel()
		<-ctx.Done()
		require.ErrorIs(t, context.Cause(ctx), context.Canceled)
	})
	t.Run("stopped", func(t *testing.T) {
		ctx, stop := watchWork(past, 50, clock, make(chan time.Time))
		stop()
		<-ctx.Done()
	})
	t.Run("values kept", func(t *testing.T) {
		type key struct{}
		ctx, stop := watchWork(context.WithValue(past, key{}, 7), 50, clock, make(chan time.Time))
		defer stop()
		require.Equal(t, 7, ctx.Value(key{}))
	})
}

// TestWorkBudgetWithoutDeadline: without a deadline, or with none left,
// the context is the caller's.
func TestWorkBudgetWithoutDeadline(t *testing.T) {
	bg := context.Background()
	ctx, stop := workBudget(bg)
	stop()
	require.Equal(t, bg, ctx)
	past, cancel := context.WithDeadline(bg, time.Unix(0, 0))
	defer cancel()
	ctx, stop = workBudget(past)
	stop()
	require.Equal(t, past, ctx)
}
