package refine

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/optalloc/optalloc/exact/bnb"
	"github.com/optalloc/optalloc/model"
)

// The peak stack: a plan built around the time of max-live.
//
// At the time t of max-live a plan at max-live tiles the pool exactly, so
// the buffers live at t decide it. Cut a window of time [a, b) around t:
// the buffers live through the whole window (the spanning ones) behave as
// bars across it, and in any plan of the window they can be pushed to the
// bottom without changing anything else (a bar has nothing straddling it
// within the window); what is left are the few buffers that start or end
// inside the window, a small problem the branch-and-bound solves. The stack
// is that arrangement made a plan of the whole: the spanning buffers at the
// bottom, longest-lived lowest (as PeakFirst stacks the buffers live at the
// peak: the ones alive at another time are then mostly a run from the
// bottom), the window's own buffers above them where the branch-and-bound
// put them, all pinned, and every other buffer placed around them by the
// caller's planner. It is a restriction, so it proves nothing; it gives a
// plan where the windows of Refine are too dense to search (hundreds of
// long-lived buffers at the peak) and the heuristics leave a hole at the
// peak time. PanGu-α 2.6B (18 692 buffers): the textbook greedy ends
// 0.758% above max-live with one 41 943 040-byte hole at the peak time;
// the stack of a window of 10 steps (13 buffers inside it, 541 spanning it)
// reaches max-live.

// Stack settings.
const (
	// StackMaxBuffers: the stack is tried on problems of at most this many
	// buffers (each window costs a placement of the whole problem).
	StackMaxBuffers = 200_000
	// stackMaxInside: windows with more buffers inside them than this are
	// not searched.
	stackMaxInside = 256
	// stackWindowTime bounds each window's search.
	stackWindowTime = 500 * time.Millisecond
)

// stackWidths are the windows tried, in sweep slots around the slot of
// max-live, narrowest first.
var stackWidths = []int{4, 8, 16, 32, 64, 128, 256}

// StackDeclines says why Stack does not apply to p ("" when it does): it
// takes plain single-pool problems (no pins, alignments, alias groups,
// gaps or elastic buffers) of at most StackMaxBuffers buffers.
func StackDeclines(p *model.Problem) string {
	if len(p.Buffers) > StackMaxBuffers {
		return fmt.Sprintf("more than %d buffers", StackMaxBuffers)
	}
	pools := p.PoolList()
	if len(pools) != 1 || pools[0].Align > 1 {
		return "several pools or a pool alignment"
	}
	for i := range p.Buffers {
		b := &p.Buffers[i]
		if b.Pin != nil || b.Align > 1 || b.Alias != nil || len(b.Gaps) > 0 || b.MaxSize > b.Size || len(b.Pools) > 0 {
			return "pins, alignments, alias groups, gaps or elastic buffers"
		}
	}
	return ""
}

// Stack builds plans of p around its time of max-live (see above), one per
// window of stackWidths until one reaches lb, and calls onImprove with each
// whose peak is below every earlier one and below ceiling (0: no ceiling).
// place plans the problem with the stacked buffers pinned. Each window's
// search is the branch-and-bound's with one thread and a node budget of
// work / (pairs + 4 × buffers), so the windows come out the same on any
// machine unless a search reaches stackWindowTime first. It returns its
// statistics.
func Stack(ctx context.Context, p *model.Problem, lb, ceiling int64, opt bnb.Options, work int64,
	place func(context.Context, *model.Problem) (*model.Plan, error), onImprove func(*model.Plan)) (map[string]any, error) {
	st := map[string]any{}
	if why := StackDeclines(p); why != "" {
		st["declined"] = why
		return st, nil
	}
	slots := p.ComputeSweep().Slots
	if len(slots) == 0 {
		return st, nil
	}
	peakSlot := 0
	for i, sl := range slots {
		if sl.Load > slots[peakSlot].Load {
			peakSlot = i
		}
	}
	best := ceiling
	windows, lowered := 0, 0
	var lastInside int
	for _, w := range stackWidths {
		if ctx.Err() != nil {
			break
		}
		lo := max(0, peakSlot-w/2)
		hi := min(len(slots), lo+w)
		lo = max(0, hi-w)
		a, b := slots[lo].Start, slots[hi-1].End
		spanning, inside := stackSplit(p, a, b)
		if len(inside) > stackMaxInside {
			break
		}
		if len(inside) == lastInside && windows > 0 {
			continue // the same window's buffers: nothing new
		}
		lastInside = len(inside)
		windows++
		pinned := stackPins(ctx, p, a, b, spanning, inside, opt, work)
		if pinned == nil {
			continue
		}
		pl, err := place(ctx, pinned)
		if err != nil {
			if ctx.Err() != nil {
				break
			}
			return nil, err
		}
		if pl == nil {
			continue
		}
		if pk := pl.Peak(p); best <= 0 || pk < best {
			best = pk
			lowered++
			st["window"] = fmt.Sprintf("[%d, %d): %d buffers spanning it, %d inside", a, b, len(spanning), len(inside))
			onImprove(pl)
			if pk <= lb {
				break
			}
		}
	}
	st["windows"], st["lowered"] = windows, lowered
	if lowered > 0 {
		st["peak"] = best
	}
	return st, nil
}

// stackSplit returns the buffers of p (sizes above 0) live through the
// whole of [a, b) and those live in part of it.
func stackSplit(p *model.Problem, a, b int64) (spanning, inside []int) {
	for i := range p.Buffers {
		bu := &p.Buffers[i]
		if bu.Size == 0 || bu.End <= a || bu.Start >= b {
			continue
		}
		if bu.Start <= a && bu.End >= b {
			spanning = append(spanning, i)
		} else {
			inside = append(inside, i)
		}
	}
	return spanning, inside
}

// stackPins returns p with the spanning buffers pinned at the bottom,
// longest-lived lowest (ties: larger, earlier start, index), and the
// buffers inside [a, b) pinned above them where the branch-and-bound packs
// them clipped to the window (and no capacity); nil when the search gave
// no plan (it declined the window, or ran out of time).
func stackPins(ctx context.Context, p *model.Problem, a, b int64, spanning, inside []int, opt bnb.Options, work int64) *model.Problem {
	slices.SortFunc(spanning, func(i, j int) int {
		x, y := &p.Buffers[i], &p.Buffers[j]
		if c := cmp.Compare(y.End-y.Start, x.End-x.Start); c != 0 {
			return c
		}
		if c := cmp.Compare(y.Size, x.Size); c != 0 {
			return c
		}
		if c := cmp.Compare(x.Start, y.Start); c != 0 {
			return c
		}
		return cmp.Compare(i, j)
	})
	pins := make(map[int]int64, len(spanning)+len(inside))
	var base int64
	for _, i := range spanning {
		pins[i] = base
		base += p.Buffers[i].Size
	}
	if len(inside) > 0 {
		q := &model.Problem{Name: fmt.Sprintf("%s[%d,%d)", p.Name, a, b)}
		for _, pl := range p.Pools {
			pl.Capacity = 0
			q.Pools = append(q.Pools, pl)
		}
		for _, i := range inside {
			bu := p.Buffers[i]
			bu.Start, bu.End = max(bu.Start, a), min(bu.End, b)
			bu.Hint = nil
			q.Buffers = append(q.Buffers, bu)
		}
		o := opt
		o.Threads = 1
		o.MaxNodes = work/(windowPairs(q.Buffers)+4*int64(len(q.Buffers))) + 1
		o.NodeLimit = max(16, o.MaxNodes/64)
		o.LowerBound = 0
		wctx, cancel := context.WithTimeout(ctx, stackWindowTime)
		if untimed(ctx) {
			wctx, cancel = context.WithCancel(ctx) // the node budget alone
		}
		plan, _, _, err := bnb.Minimise(wctx, q, nil, 0, o, nil)
		cancel()
		if err != nil || plan == nil {
			return nil
		}
		for k, i := range inside {
			pins[i] = base + plan.Placements[k].Offset
		}
	}
	out := *p
	out.Pools = slices.Clone(p.Pools)
	for k := range out.Pools {
		out.Pools[k].Capacity = 0 // above a capacity, the plan is still the caller's to judge
	}
	out.Buffers = slices.Clone(p.Buffers)
	for i, off := range pins {
		v := off
		out.Buffers[i].Pin = &v
	}
	return &out
}
