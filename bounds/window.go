package bounds

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/optalloc/optalloc/exact/bnb"
	"github.com/optalloc/optalloc/exact/sat"
	"github.com/optalloc/optalloc/model"
)

// Window bounds.
//
// Keep only the buffers live during a stretch of time [a, b) and clip their
// lifetimes to it: every plan of the problem is a plan of that window (the
// same offsets; two buffers that overlap in the window overlap in the
// problem), so the window's optimum is a lower bound of the problem's. A
// window of a few sections has a few dozen buffers, and the
// branch-and-bound often proves its optimum in milliseconds where the
// whole problem is out of reach. MiniMalloc K with alignment 65536 on its
// buffers ≥ 64 KiB: the 16 buffers live in [581632, 595968) need 1 152 000
// bytes (proven in 0.03 s), above the one- and two-time alignment bounds
// (1 136 640). Windows of 2 to 16 sections, those with the highest
// alignment bound (or max-live) first, each get a short minimisation, and
// only what that proved counts.

// Window sizes (in sections) and the time each window may take.
var windowSizes = []int{2, 4, 6, 8, 12, 16}

const windowTime = 500 * time.Millisecond

// satWindowTime bounds each SAT call of satWindow. MiniMalloc K with
// alignment 65536: its deciding refutations take 0.46–0.54 s, so with the
// branch-and-bound's 0.5 s the window bound came out anywhere in 1 156 096 –
// 1 168 384 from one run to the next.
const satWindowTime = 2 * time.Second

// WindowDelay holds the window prover back in Prove (mindspore
// bert_base: the climb proves max-live optimal in 1.6 s alone, 2.7 s with
// the windows beside it from the start).
const WindowDelay = 2 * time.Second

// windowRankWork caps the buffers clipped to rank windows by their
// alignment bounds.
const windowRankWork = 2_000_000

// aligned reports whether some buffer or pool has an alignment above 1.
func aligned(p *model.Problem) bool {
	for _, pl := range p.Pools {
		if pl.Align > 1 {
			return true
		}
	}
	for i := range p.Buffers {
		if p.Buffers[i].Align > 1 {
			return true
		}
	}
	return false
}

// Windows minimises clipped time windows of p with the
// branch-and-bound until ctx ends or every window was tried, and calls
// raise with every lower bound of a window it proves (its optimum when the
// minimisation finished) that is above current(). Problems with alias
// groups or gaps are skipped (their clipped footprints are not plain
// rectangles). It returns the number of windows tried.
func Windows(ctx context.Context, p *model.Problem, opt Options, current func() int64, raise func(lb int64, method, how string)) int {
	return windows(ctx, p, opt, current, func(lb int64, method, how string, _, _ int64) { raise(lb, method, how) })
}

// windows is Windows, raise also given the window [from, to).
func windows(ctx context.Context, p *model.Problem, opt Options, current func() int64, raise func(lb int64, method, how string, from, to int64)) int {
	for i := range p.Buffers {
		if b := &p.Buffers[i]; b.Alias != nil || len(b.Gaps) > 0 {
			return 0
		}
	}
	// Windows are runs of the sweep's slots (the elementary intervals with
	// something live), ranked by their max-live.
	slots := p.ComputeSweep().Slots
	type window struct {
		a, b  int64 // [a, b)
		bound int64 // its max-live or alignment bound: the likeliest to need much go first
	}
	var ws []window
	for _, w := range windowSizes {
		if w >= len(slots) {
			break // the whole problem: that is climbBound's work
		}
		for i := 0; i+w <= len(slots); i += max(1, w/2) {
			if ctx.Err() != nil {
				return 0
			}
			var live int64
			for _, sl := range slots[i : i+w] {
				live = max(live, sl.Load)
			}
			ws = append(ws, window{slots[i].Start, slots[i+w-1].End, live})
		}
	}
	// With alignments the windows' own alignment bounds rank them better
	// (on MiniMalloc K with alignment, max-live ties everywhere), when the
	// clipping stays cheap; else each window's is taken when it is tried.
	isAligned := aligned(p)
	alignedRank := isAligned && len(ws)*len(p.Buffers) <= windowRankWork
	if alignedRank {
		for k := range ws {
			if ctx.Err() != nil {
				return 0
			}
			ws[k].bound = AlignContext(ctx, clip(p, ws[k].a, ws[k].b)).LowerBound
		}
	}
	slices.SortStableFunc(ws, func(x, y window) int { return cmp.Compare(y.bound, x.bound) })
	bo := opt.BnB
	bo.Threads, bo.Seed = 1, opt.Seed
	g := Grid(p)
	tried := 0
	for _, w := range ws {
		if ctx.Err() != nil {
			break
		}
		tried++
		a, b := w.a, w.b
		q := clip(p, a, b)
		bound := w.bound
		if isAligned && !alignedRank {
			bound = AlignContext(ctx, q).LowerBound
		}
		wctx, cancel := context.WithTimeout(ctx, windowTime)
		t := time.Now()
		plan, lb, _, err := bnb.Minimise(wctx, q, nil, bound, bo, nil)
		cancel()
		if err != nil {
			continue
		}
		what := fmt.Sprintf("the %d buffers live in [%d, %d), clipped to it, need", len(q.Buffers), a, b)
		if lb > current() {
			raise(lb, "window", fmt.Sprintf("%s at least %d (proven by the branch-and-bound on that window in %.2fs)", what, lb, time.Since(t).Seconds()), a, b)
		}
		if plan == nil || opt.NoSAT {
			continue
		}
		if ub := plan.Peak(q); lb < ub && ub > current() {
			satWindow(ctx, q, opt, g, ub, current, func(lb int64, how string) { raise(lb, "window", what+" "+how, a, b) })
		}
	}
	return tried
}

// satWindow raises the bound with SAT refutations of the clipped window q,
// whose best known plan has peak ub: a capacity x at or above the current
// bound that q cannot fit proves the problem's peak exceeds x, so the bound
// rises to the next multiple of g. The capacities asked gallop upwards
// after a refutation (the step doubles) and back down after a fit (it
// halves), always below ub, until the current bound itself fits or a call
// runs out of time. MiniMalloc K with alignment 65536: the 43 buffers
// live in [540672, 605184) are refuted up to 1 167 360 in about 0.3 s
// per call, where the branch-and-bound does not refute 1 152 000 in 20 s.
func satWindow(ctx context.Context, q *model.Problem, opt Options, g, ub int64, current func() int64, raise func(lb int64, how string)) {
	step := int64(0) // in units of g above the current bound
	for ctx.Err() == nil {
		cur := current()
		x := min((cur+g-1)/g*g+step*g, (ub-1)/g*g)
		if x < cur {
			return // every capacity below ub at or above the bound was refuted
		}
		wctx, cancel := context.WithTimeout(ctx, satWindowTime)
		t := time.Now()
		plan, status, _, err := sat.Decide(wctx, q, x, opt.SAT)
		cancel()
		switch {
		case err != nil || status == sat.Unknown:
			return
		case status == sat.Infeasible:
			raise(x+g, fmt.Sprintf("more than %d (refuted by SAT on that window in %.2fs; peaks are multiples of %d)", x, time.Since(t).Seconds(), g))
			step = max(1, 2*step)
		default:
			if step == 0 || plan.Peak(q) <= cur {
				return // the window fits under the bound
			}
			ub = min(ub, plan.Peak(q))
			step /= 2
		}
	}
}

// clip returns the buffers of p live in [a, b) with their lifetimes cut to
// it (a relaxation of p: see Windows).
func clip(p *model.Problem, a, b int64) *model.Problem {
	q := &model.Problem{Name: fmt.Sprintf("%s[%d,%d)", p.Name, a, b)}
	for _, pl := range p.Pools {
		pl.Capacity = 0 // the bound asks for the window's minimum, not a fit
		q.Pools = append(q.Pools, pl)
	}
	for _, bu := range p.Buffers {
		if bu.End <= a || bu.Start >= b {
			continue
		}
		bu.Start, bu.End = max(bu.Start, a), min(bu.End, b)
		bu.Hint, bu.MaxSize = nil, 0
		q.Buffers = append(q.Buffers, bu)
	}
	return q
}
