package heuristics

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/optalloc/optalloc/benchmarks"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/verify"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRepackValid plans random problems (alignments, pins, alias groups,
// gaps, two pools) with windows of several sizes: every plan verifies, is
// never above sweep-peak's (the pass only keeps windows it lowers), and the
// same problem gives the same plan.
func TestRepackValid(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for i := 0; i < 300; i++ {
		p := randomProblem(r, 1+r.IntN(60))
		sweep, err := (&PeakSweep{}).Plan(context.Background(), p)
		require.NoError(t, err)
		for _, pl := range []*Repack{{}, {Items: 3}, {Items: 8, Rounds: 2}, {Items: 1, MaxWindows: 2}} {
			var st RepackStats
			pl.Stats = &st
			plan, err := pl.Plan(context.Background(), p)
			require.NoError(t, err)
			require.Empty(t, verify.Check(p, plan), "items=%d on instance %d", pl.Items, i)
			require.NoError(t, checkPlan(p, plan), "items=%d on instance %d", pl.Items, i)
			for q, peak := range plan.PoolPeaks(p) {
				assert.LessOrEqual(t, peak, sweep.PoolPeaks(p)[q], "items=%d on instance %d, pool %d", pl.Items, i, q)
			}
			assert.NotEmpty(t, st.Stopped)
			again, err := (&Repack{Items: pl.Items, Rounds: pl.Rounds, MaxWindows: pl.MaxWindows}).Plan(context.Background(), p)
			require.NoError(t, err)
			assert.Equal(t, plan.Placements, again.Placements)
		}
	}
}

// plainItems builds the items of random plain buffers (no aliases, no
// pins, alignment 1 or 8), with offsets from sweep-peak.
func plainItems(t *testing.T, r *rand.Rand, n int) ([]item, []int64) {
	p := &model.Problem{}
	for i := 0; i < n; i++ {
		s := int64(r.IntN(60))
		b := model.Buffer{ID: fmt.Sprint("b", i), Start: s, End: s + 1 + int64(r.IntN(12)), Size: 1 + int64(r.IntN(50))}
		if r.IntN(4) == 0 {
			b.Align = 8
		}
		p.Buffers = append(p.Buffers, b)
	}
	in, err := newInstance(context.Background(), p)
	require.NoError(t, err)
	require.True(t, in.plain)
	off, err := (&PeakSweep{}).plan(context.Background(), in.its)
	require.NoError(t, err)
	return in.its, off
}

// itemsOverlap reports the first two items live together whose bytes
// meet, or a misaligned one.
func itemsOverlap(its []item, off []int64) string {
	for i := range its {
		if off[i] != its[i].up(off[i]) {
			return fmt.Sprintf("item %d misaligned at %d", i, off[i])
		}
		for j := i + 1; j < len(its); j++ {
			a, b := &its[i], &its[j]
			if a.size > 0 && b.size > 0 && a.start < b.end && b.start < a.end && off[i] < off[j]+b.size && off[j] < off[i]+a.size {
				return fmt.Sprintf("items %d and %d overlap", i, j)
			}
		}
	}
	return ""
}

// TestRepackWindowKeepsBoundary: a window's re-plan moves only the items
// whose lifetimes lie inside it; those crossing its ends and those outside
// stay where they were; the result is valid, and when kept the top of the
// moved items is lower than it was.
func TestRepackWindowKeepsBoundary(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	lowered := 0
	for i := 0; i < 300; i++ {
		its, off := plainItems(t, r, 5+r.IntN(80))
		before := append([]int64(nil), off...)
		a := int64(r.IntN(50))
		b := a + 1 + int64(r.IntN(40))
		x := newTimeIndex(its, 20)
		ws := x.meet(a, b, nil)
		var top int64
		inside := map[int32]bool{}
		for _, k := range ws {
			if its[k].start >= a && its[k].end <= b {
				inside[k] = true
				top = max(top, off[k]+its[k].size)
			}
		}
		moved, kept := repackWindow(context.Background(), its, off, ws, a, b, 4, nil)
		require.Empty(t, itemsOverlap(its, off), "instance %d", i)
		var after int64
		for k := range its {
			if !inside[int32(k)] {
				require.Equal(t, before[k], off[k], "instance %d: item %d [%d,%d) outside the window [%d,%d) moved", i, k, its[k].start, its[k].end, a, b)
			} else {
				after = max(after, off[k]+its[k].size)
			}
		}
		if !kept {
			require.Equal(t, before, off, "instance %d", i)
			continue
		}
		lowered++
		require.Less(t, after, top, "instance %d", i)
		for _, k := range moved {
			require.True(t, inside[k])
			require.NotEqual(t, before[k], off[k])
		}
	}
	assert.Positive(t, lowered)
}

// TestTimeIndexMeet: the index finds exactly the items with bytes live
// during a window, long-lived ones included.
func TestTimeIndexMeet(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 200; i++ {
		its, _ := plainItems(t, r, 1+r.IntN(50))
		x := newTimeIndex(its, int64(1+r.IntN(6)))
		a := int64(r.IntN(70))
		b := a + 1 + int64(r.IntN(20))
		var want []int32
		for k := range its {
			if its[k].size > 0 && its[k].start < b && its[k].end > a {
				want = append(want, int32(k))
			}
		}
		assert.ElementsMatch(t, want, x.meet(a, b, nil), "instance %d, window [%d,%d)", i, a, b)
	}
}

// TestRepackSkips: on a generated trace of long random skip connections
// (benchmarks.Skips, 3 990 buffers) sweep-peak ends 0.089% above max-live
// and the pass brings the plan down to max-live, the optimum.
func TestRepackSkips(t *testing.T) {
	p := benchmarks.Skips(1, 2, 1500)
	ml := p.LiveCounts().MaxLive
	sweep, err := (&PeakSweep{}).Plan(context.Background(), p)
	require.NoError(t, err)
	require.Greater(t, sweep.Peak(p), ml)
	var st RepackStats
	plan, err := (&Repack{Stats: &st}).Plan(context.Background(), p)
	require.NoError(t, err)
	require.Empty(t, verify.Check(p, plan))
	assert.Equal(t, ml, plan.Peak(p))
	assert.Equal(t, "max-live reached", st.Stopped)
	assert.Positive(t, st.Kept)
	assert.Equal(t, sweep.Peak(p), st.StartPeak)
}

// TestRepackDenseWindows: a window whose boundary buffers outnumber the
// ones inside it is not re-planned (on dense traces such windows cost
// much and lower nothing); with fewer boundary buffers the same window
// falls.
func TestRepackDenseWindows(t *testing.T) {
	for _, c := range []struct {
		long int
		kept bool
	}{{1, true}, {2, true}, {3, false}, {8, false}} {
		// long items stacked from 0, each of size 1, crossing [10, 20);
		// two short ones inside it, put high, one above the other
		var its []item
		var off []int64
		for i := 0; i < c.long; i++ {
			its = append(its, item{start: 0, end: 30, size: 1, pin: -1, align: 1})
			off = append(off, int64(i))
		}
		its = append(its, item{start: 12, end: 15, size: 4, pin: -1, align: 1}, item{start: 13, end: 18, size: 4, pin: -1, align: 1})
		off = append(off, 50, 60)
		before := append([]int64(nil), off...)
		ws := newTimeIndex(its, 100).meet(10, 20, nil)
		_, kept := repackWindow(context.Background(), its, off, ws, 10, 20, 4, nil)
		assert.Equal(t, c.kept, kept, "%d long items", c.long)
		require.Empty(t, itemsOverlap(its, off))
		if kept {
			assert.Equal(t, int64(c.long+8), max(off[c.long]+4, off[c.long+1]+4), "%d long items", c.long)
		} else {
			assert.Equal(t, before, off)
		}
	}
}

// TestRepackCancelled: a pass whose context is done stops at once and
// leaves the plan as it was.
func TestRepackCancelled(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	its, off := plainItems(t, r, 60)
	before := append([]int64(nil), off...)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var st RepackStats
	repackTop(ctx, its, off, (&Repack{}).options(len(its)), &st)
	assert.Equal(t, before, off)
	want := "time limit"
	if peakOf(its, off) <= pinFloor(its) {
		want = "max-live reached"
	}
	assert.Equal(t, want, st.Stopped)
	assert.Zero(t, st.Windows)
}

// TestReserveCheck: the pass ends checkReserve per buffer before ctx's
// deadline, leaving the time to verify the plan it returns there; without
// a deadline it has none.
func TestReserveCheck(t *testing.T) {
	dl := time.Now().Add(time.Hour)
	ctx, cancel := context.WithDeadline(context.Background(), dl)
	defer cancel()
	pass, stop := reserveCheck(ctx, 1_000_000)
	defer stop()
	got, ok := pass.Deadline()
	require.True(t, ok)
	require.Equal(t, dl.Add(-400*time.Millisecond), got)
	pass, stop = reserveCheck(context.Background(), 1_000_000)
	defer stop()
	_, ok = pass.Deadline()
	require.False(t, ok)
}
