package refine

import (
	"context"
	"time"

	"github.com/optalloc/optalloc/exact/bnb"
	"github.com/optalloc/optalloc/model"
)

// Refinement settings.
const (
	// MinBuffers: the refinement runs on problems of this many
	// buffers or more; below, a window would be most of the problem, and
	// the exact engines take the whole.
	MinBuffers = 2000
	// minNodes: a window whose budget (Work) is smaller is too
	// dense to search.
	minNodes = 1024
	// Work is the branch-and-bound's budget per window in nodes ×
	// (pairs + 4 × buffers) of the window, its pairs of buffers alive
	// together that are not both pinned: a node costs about 3–14 ns per
	// pair, so a window takes up to about a quarter of a second.
	Work = 25_000_000
)

// step re-plans the window of about try.Groups movable groups around group
// at (at the peak), and says whether it came below the peak.
func (r *refiner) step(ctx context.Context, peak, below int64, at int32, try Attempt) (stepResult, error) {
	k := try.Groups
	if r.fixedTop >= peak {
		r.stopped = "a pinned buffer is at the peak"
		return stuck, nil
	}
	a, b := r.window(at, peak, k)
	sub, inc, free, first, pinFrom := r.subProblem(a, b)
	opt := r.opt
	// The budget: a node costs time in proportion to the buffers of the
	// window and the pairs of them alive together.
	opt.Threads, opt.MaxNodes = 1, r.windowNodes(sub, pinFrom)
	if opt.MaxNodes < minNodes {
		// Too dense to search: a wider window would be denser still.
		return tooDense, nil
	}
	opt.MaxNodes *= try.Effort
	r.windows++
	// Small first rounds, so that one decision stays within the budget.
	opt.NodeLimit = max(16, opt.MaxNodes/64)
	opt.LowerBound = 0
	// Below the highest top under the peak the peak gains nothing yet:
	// the search stops there.
	target := below
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	best, _, st, err := bnb.Minimise(wctx, sub, inc, 0, opt, func(pl *model.Plan) {
		if pl.Peak(sub) <= target {
			cancel()
		}
	})
	r.nodes += st.Nodes

	if err != nil && ctx.Err() == nil {
		return stuck, err
	}
	if best == nil || best.Peak(sub) >= peak {
		return failed, nil
	}
	r.improved++
	for j, g := range free {
		r.off[g] = best.Placements[first[j]].Offset
		r.tops.set(int(g), r.off[g]+r.top[g])
	}
	return lowered, nil
}

// stepResult is what one window did.
type stepResult int

const (
	lowered  stepResult = iota // the window came below the peak
	failed                     // it did not: try a wider one
	stuck                      // no window will (see refiner.stopped)
	tooDense                   // the window is too dense to search
)

// reportEvery is the shortest time between two reports of a lower plan.
const reportEvery = 200 * time.Millisecond

// Budget is the work of one window at effort 1 (see Work) and
// the attempts made at a peak.
type Budget struct {
	Work     int64
	Attempts []Attempt
}

// DefaultBudget is the budget Solve gives the refinement.
var DefaultBudget = Budget{Work: Work, Attempts: Attempts}

// Attempt is a window size in movable groups and a multiple of the budget.
type Attempt struct {
	Groups int
	Effort int64
}

// Attempts are tried in turn on the groups at a peak until one
// lowers it: wider windows with the same budget first, which is often
// enough (a chain of 10 000 ops: a window of 96 groups not lowered in
// 18 000 nodes, one of 192 in 3 000), then each size with four and sixteen
// times the budget (from greedy-size's plan of that chain the refinement
// stopped 2.4% above max-live with the budget alone, and reached max-live
// with four times it, in 2.1 s).
var Attempts = []Attempt{
	{96, 1}, {192, 1}, {384, 1}, {768, 1},
	{96, 4}, {192, 4}, {384, 4}, {768, 4},
	{96, 16}, {192, 16}, {384, 16},
}

// Refine lowers the peak of plan (valid, single pool) window by window
// until lb, ctx's end, or a peak none of b's attempts lowers; it calls
// onImprove with each plan of a lower peak.
func Refine(ctx context.Context, p *model.Problem, plan *model.Plan, lb int64, opt bnb.Options, b Budget, onImprove func(*model.Plan)) (map[string]any, error) {
	r := newRefiner(p, plan, opt)
	r.work = b.Work
	peak, at, below := r.peak()
	start := peak
	// Reports cost O(n) and more (the caller verifies each plan): on a
	// chain of 1 000 000 ops the peak fell 1 116 times. They come at most
	// every reportEvery (or four times what the last one cost), the last
	// plan is always reported, and the refinement stops early enough
	// before ctx's deadline to report it in time.
	// The first report waits reportEvery too; until one is timed, a report
	// is taken to cost a microsecond per buffer (the verifier's order).
	last, cost := time.Now(), time.Duration(len(p.Buffers))*time.Microsecond
	pending := false
	report := func() {
		t := time.Now()
		onImprove(r.plan())
		cost, last, pending = time.Since(t), time.Now(), false
	}
	next := 0 // the Attempt at this peak
	for peak > lb && ctx.Err() == nil {
		if dl, ok := ctx.Deadline(); ok && pending && time.Until(dl) < cost {
			break
		}
		res, err := r.step(ctx, peak, below, at, b.Attempts[next])
		if err != nil {
			return nil, err
		}
		if res == stuck {
			break
		}
		if res != lowered {
			if res == tooDense && next == 0 {
				r.stopped = "the windows at the peak are too dense to search"
				break
			}
			if next++; next == len(b.Attempts) {
				r.stopped = "no window tried lowers the peak"
				break
			}
			continue
		}
		next = 0
		p2, at2, below2 := r.peak()
		if p2 < peak && onImprove != nil {
			pending = true
			if time.Since(last) >= max(reportEvery, 4*cost) {
				report()
			}
		}
		peak, at, below = p2, at2, below2
	}
	if pending {
		report()
	}
	st := map[string]any{"windows": r.windows, "lowered": r.improved, "nodes": r.nodes,
		"start_peak": start, "peak": peak}
	if r.stopped != "" {
		st["stopped"] = r.stopped
	}
	return st, nil
}
