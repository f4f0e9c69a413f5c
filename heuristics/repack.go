package heuristics

import (
	"cmp"
	"container/heap"
	"context"
	"slices"
	"time"

	"github.com/optalloc/optalloc/model"
)

func init() {
	Register(&Repack{})
	Register(&Repack{FromFill: true})
}

// Repack is sweep-peak followed by a second pass that re-packs the
// stretches of time near the plan's top, the highest first (issue 44 item
// 3, idea b). Around the highest buffer it takes a window of time holding
// about Items buffers and the buffer's whole lifetime: the buffers whose
// lifetimes lie inside the window are re-planned, those that cross its
// ends stay where they are, as fixed obstacles (pins), so that nothing
// outside the window changes. The re-plan is first fit in the order of the
// buffers' current offsets (which places none higher than it was) and
// first fit in the textbook order (size, ties by start); when neither
// lowers the highest of the moved buffers, squeaky-wheel rounds from the
// first (up to Rounds). The window's new offsets are kept when the moved
// buffers' top falls; else windows half as wide, twice and four times as
// wide, or centred on the buffer's start or end, are tried. When none
// falls, the plan's peak cannot fall by this pass and it stops; also at
// max-live, after MaxWindows windows, or when ctx is done — then with the
// plan so far (every kept window leaves a valid plan), not an error.
//
// On long random skip connections (benchmarks.Skips, about 300 buffers
// alive at once) a window of 2 000 buffers has a few hundred boundary
// buffers: 40 095 buffers 1.93% → 0.43% above max-live in 4.8 s of CPU
// (the whole solve's 60 s: 0.56%), 3 990 buffers 0.089% → max-live; on
// 1 000 000 buffers 6.24% → 5.98% in 10 s, 5.13% where it stops after
// 21 s (the plateau: each window lowers its own stretch only, and the
// sweep's top is near 6% over the whole trace). A window whose boundary
// buffers outnumber the ones inside is not re-planned: on dense traces
// (tens of thousands of buffers alive at once) the pass stops at once,
// with sweep-peak's plan (docs/experiments.md). Pins stay where they are;
// alias groups and gapped buffers are placed by their exact footprint (the
// placer of BestFit); each pool is planned alone. Its name is
// "sweep-repack"; it is in the default portfolio of 20 001 – 200 000
// buffers (DefaultPortfolio), and right after sweep-peak on the sparse
// traces of more (decisiveFirst). A pass cut by ctx's deadline stops
// checkReserve per buffer before it.
type Repack struct {
	// Items is the number of buffers a window is sized to hold (its time
	// span is that many times the trace's span per buffer); 0 means 2000
	// (on 40 095 skip connections 500, 1 000, 2 000 and 4 000 gave 1.81%,
	// 0.58%, 0.43% and 0.27% above max-live in 0.5, 1.8, 4.8 and 12.9 s).
	Items int
	// Rounds caps the squeaky-wheel rounds per window; 0 means 20.
	Rounds int
	// MaxWindows caps the windows re-planned (a work budget: the same
	// problem gives the same plan on any machine unless ctx ends it
	// first); 0 means 4 windows per Items buffers of the pool, at least
	// 64 (no measured run reached it: 58 windows on 40 095 skip
	// connections, 817 on 1 000 000 of them).
	MaxWindows int

	// FromFill starts the pass from sweep-classes-fill's plan (FillSweep)
	// instead of sweep-peak's; its name is then "sweep-fill-repack".
	FromFill bool

	// Stats, when set, receives what the pass did.
	Stats *RepackStats
}

// RepackStats is what a Repack pass did (summed over pools).
type RepackStats struct {
	StartPeak int64 // the sweep's peak (the largest pool's)
	Peak      int64
	Windows   int // windows re-planned
	Kept      int // windows whose re-plan was kept
	Stopped   string
}

// Name implements Planner.
func (r *Repack) Name() string {
	if r.FromFill {
		return "sweep-fill-repack"
	}
	return "sweep-repack"
}

// Plan implements Planner.
func (r *Repack) Plan(ctx context.Context, p *model.Problem) (*model.Plan, error) {
	return perPool(ctx, p, func(ctx context.Context, its []item) ([]int64, error) {
		var off []int64
		var err error
		if r.FromFill {
			off, err = (&FillSweep{}).plan(ctx, its)
		} else {
			off, err = (&PeakSweep{}).plan(ctx, its)
		}
		if err != nil {
			return nil, err
		}
		st := RepackStats{StartPeak: peakOf(its, off)}
		pass, stop := reserveCheck(ctx, len(its))
		defer stop()
		repackTop(pass, its, off, r.options(len(its)), &st)
		if r.Stats != nil {
			r.Stats.StartPeak = max(r.Stats.StartPeak, st.StartPeak)
			r.Stats.Peak = max(r.Stats.Peak, st.Peak)
			r.Stats.Windows += st.Windows
			r.Stats.Kept += st.Kept
			r.Stats.Stopped = st.Stopped
		}
		return off, nil
	})
}

// checkReserve is the time per buffer the pass leaves before ctx's
// deadline, for the plan it returns there to be verified (verify.Check:
// 0.26–0.44 s of CPU on 1 000 000 buffers): a pass cut by a 10 s limit on
// a million skip connections ended 0.5 s after it.
const checkReserve = 400 * time.Nanosecond

// reserveCheck is ctx ending checkReserve per buffer of n before its
// deadline (ctx itself when it has none).
func reserveCheck(ctx context.Context, n int) (context.Context, context.CancelFunc) {
	dl, ok := ctx.Deadline()
	if !ok {
		return ctx, func() {}
	}
	return context.WithDeadline(ctx, dl.Add(-checkReserve*time.Duration(n)))
}

// repackOptions are Repack's knobs with their defaults applied.
type repackOptions struct {
	items, rounds, maxWindows int
}

func (r *Repack) options(n int) repackOptions {
	o := repackOptions{items: r.Items, rounds: r.Rounds, maxWindows: r.MaxWindows}
	if o.items <= 0 {
		o.items = 2000
	}
	if o.rounds <= 0 {
		o.rounds = 20
	}
	if o.maxWindows <= 0 {
		o.maxWindows = max(64, 4*n/o.items)
	}
	return o
}

// timeIndex finds the items that meet a window of time: the items sorted
// by start, and the long-lived ones (lifetime above span) apart, looked at
// for every window.
type timeIndex struct {
	its    []item
	byS    []int32 // short-lived items with bytes, by start
	starts []int64
	long   []int32
	span   int64
}

func newTimeIndex(its []item, span int64) *timeIndex {
	x := &timeIndex{its: its, span: span}
	for k := range its {
		if its[k].size == 0 {
			continue
		}
		if its[k].end-its[k].start > span {
			x.long = append(x.long, int32(k))
		} else {
			x.byS = append(x.byS, int32(k))
		}
	}
	x.starts = sortByTime(x.byS, func(k int32) int64 { return its[k].start })
	return x
}

// meet appends to dst the items with bytes live during [a, b).
func (x *timeIndex) meet(a, b int64, dst []int32) []int32 {
	lo, _ := slices.BinarySearch(x.starts, a-x.span)
	hi, _ := slices.BinarySearch(x.starts, b)
	for _, k := range x.byS[lo:hi] {
		if x.its[k].end > a {
			dst = append(dst, k)
		}
	}
	for _, k := range x.long {
		if it := &x.its[k]; it.start < b && it.end > a {
			dst = append(dst, k)
		}
	}
	return dst
}

// topHeap is a max-heap of items by their top (offset + size) when pushed;
// an entry whose item has moved since is stale.
type topHeap []topEntry

type topEntry struct {
	top int64
	k   int32
}

func (h topHeap) Len() int { return len(h) }
func (h topHeap) Less(i, j int) bool {
	if h[i].top != h[j].top {
		return h[i].top > h[j].top
	}
	return h[i].k < h[j].k
}
func (h topHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *topHeap) Push(x any)   { *h = append(*h, x.(topEntry)) }
func (h *topHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// windowTries are the windows tried around the highest item, in order,
// until one lowers it: width × num/den, centred on the item's middle (at
// 0), start (1) or end (2), always holding its whole lifetime.
var windowTries = []struct{ num, den, at int64 }{
	{1, 1, 0}, {1, 2, 0}, {2, 1, 0}, {1, 1, 1}, {1, 1, 2}, {4, 1, 0},
}

// repackTop is the pass: it re-plans windows around the highest item of
// off (changed in place) while that lowers it.
func repackTop(ctx context.Context, its []item, off []int64, o repackOptions, st *RepackStats) {
	floor := pinFloor(its)
	var first, last int64
	h := make(topHeap, 0, len(its))
	n := 0
	for k := range its {
		it := &its[k]
		if it.size == 0 {
			continue
		}
		if n == 0 || it.start < first {
			first = it.start
		}
		last = max(last, it.end)
		n++
		if it.pin < 0 {
			h = append(h, topEntry{off[k] + it.size, int32(k)})
		}
	}
	st.Peak = peakOf(its, off)
	if n == 0 {
		st.Stopped = "no buffers"
		return
	}
	heap.Init(&h)
	// a window holding about o.items items
	width := max(int64(float64(last-first)*float64(o.items)/float64(n)), 1)
	idx := newTimeIndex(its, 4*width)
	var ws, moved []int32
	defer func() { st.Peak = peakOf(its, off) }()
	for {
		for len(h) > 0 && h[0].top != off[h[0].k]+its[h[0].k].size {
			heap.Pop(&h) // stale
		}
		switch {
		case len(h) == 0:
			st.Stopped = "every buffer pinned"
		case h[0].top <= floor:
			st.Stopped = "max-live reached"
		case ctx.Err() != nil:
			st.Stopped = "time limit"
		case st.Windows >= o.maxWindows:
			st.Stopped = "window limit"
		}
		if st.Stopped != "" {
			return
		}
		it := &its[h[0].k]
		kept := false
		for _, tr := range windowTries {
			if ctx.Err() != nil {
				break
			}
			w := max(width*tr.num/tr.den, 1)
			c := it.start + (it.end-it.start)/2
			switch tr.at {
			case 1:
				c = it.start
			case 2:
				c = it.end
			}
			a, b := min(c-w/2, it.start), max(c+w/2, it.end)
			ws = idx.meet(a, b, ws[:0])
			st.Windows++
			if moved, kept = repackWindow(ctx, its, off, ws, a, b, o.rounds, moved[:0]); kept {
				st.Kept++
				for _, j := range moved {
					heap.Push(&h, topEntry{off[j] + its[j].size, j})
				}
				break
			}
		}
		if !kept && ctx.Err() == nil {
			st.Stopped = "the highest buffer's windows did not fall"
			return
		}
	}
}

// repackWindow re-plans the items ws that meet [a, b): those inside it
// move, the others are pinned where they are. It keeps the new offsets
// (in off) when the top of the moved items falls, and reports whether it
// did.
func repackWindow(ctx context.Context, its []item, off []int64, ws []int32, a, b int64, rounds int, moved []int32) ([]int32, bool) {
	slices.Sort(ws)
	sub := make([]item, len(ws))
	var order []int32
	var top int64
	for i, k := range ws {
		sub[i] = its[k]
		if it := &its[k]; it.pin < 0 && (it.start < a || it.end > b) {
			sub[i].pin = off[k]
		}
		if sub[i].pin < 0 {
			order = append(order, int32(i))
			top = max(top, off[k]+sub[i].size)
		}
	}
	if len(order) == 0 || len(ws)-len(order) > len(order) {
		// mostly boundary (dense traces: on 100 000 dense random buffers
		// a window of 2 000 held 50 000 boundary buffers and took 1.5 s)
		return nil, false
	}
	// first fit in the order of the current offsets places no item higher
	// than it is (see Squeaky.Improve)
	slices.SortFunc(order, func(x, y int32) int {
		if c := cmp.Compare(off[ws[x]], off[ws[y]]); c != 0 {
			return c
		}
		if c := cmp.Compare(sub[y].size, sub[x].size); c != 0 {
			return c
		}
		return cmp.Compare(x, y)
	})
	soff, peak := replanWindow(ctx, sub, order, rounds, top)
	if soff == nil || peak >= top {
		return nil, false
	}
	for i, k := range ws {
		if sub[i].pin < 0 && its[k].pin < 0 && off[k] != soff[i] {
			off[k] = soff[i]
			moved = append(moved, k)
		}
	}
	return moved, true
}

// movableTop is the top of the items of order at off.
func movableTop(sub []item, order []int32, off []int64) int64 {
	var top int64
	for _, k := range order {
		if sub[k].size > 0 {
			top = max(top, off[k]+sub[k].size)
		}
	}
	return top
}

// replanWindow re-plans the movable items of sub (order: by their current
// offsets) around its pins and returns the plan whose movable items reach
// least high, and that height: first fit in order, the textbook order
// first fit, then squeaky-wheel rounds from the first.
func replanWindow(ctx context.Context, sub []item, order []int32, rounds int, top int64) ([]int64, int64) {
	pc := newPlacer(sub)
	if _, err := pc.run(ctx, order, true); err != nil {
		return nil, 0
	}
	best, bestTop := slices.Clone(pc.off), movableTop(sub, order, pc.off)
	tb := slices.DeleteFunc(textbookOrder(sub), func(k int32) bool { return sub[k].pin >= 0 })
	if _, err := pc.run(ctx, tb, true); err == nil {
		if t := movableTop(sub, tb, pc.off); t < bestTop {
			copy(best, pc.off)
			bestTop = t
		}
	}
	if bestTop < top {
		// lowered: the squeaky rounds are for the windows that were not
		// (on 40 095 skip connections 0.43% above max-live in 5 s with
		// this shortcut, 0.60% in 4 s without)
		return best, bestTop
	}
	// squeaky wheels: the movable items above the sub-problem's max-live
	// (even rounds) or at the best height (odd rounds) go first
	lb := maxLive(sub)
	cur := slices.Clone(order)
	wheels := make([]int32, 0, len(order))
	for r := 0; r < rounds && bestTop > lb; r++ {
		line := lb + 1
		if r%2 == 1 {
			line = bestTop
		}
		above := func(k int32) bool { return sub[k].size > 0 && pc.off[k]+sub[k].size >= line }
		if r == 0 {
			// from the first plan
			copy(pc.off, best)
		}
		wheels = wheels[:0]
		for _, k := range cur {
			if above(k) {
				wheels = append(wheels, k)
			}
		}
		if len(wheels) == 0 {
			break
		}
		rest := slices.DeleteFunc(cur, above)
		cur = append(slices.Clone(wheels), rest...)
		if _, err := pc.run(ctx, cur, true); err != nil {
			break
		}
		if t := movableTop(sub, cur, pc.off); t < bestTop {
			copy(best, pc.off)
			bestTop = t
		}
	}
	return best, bestTop
}
