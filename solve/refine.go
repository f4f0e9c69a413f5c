package solve

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/optalloc/optalloc/exact/bnb"
	"github.com/optalloc/optalloc/model"
)

// Time-window refinement: on a long schedule the peak of a plan is set in a
// few stretches of time, and each can be re-planned alone. The refiner
// takes a group (an alias group, or a plain buffer) whose top is the peak,
// cuts a window of time around it holding about 96 movable groups, pins
// every other group alive in the window where the plan has it (clipped to
// the window), and minimises the window with the branch-and-bound from the
// plan's own offsets, with a budget of nodes. A window that comes out
// below the peak replaces the plan's offsets there; one that does not is
// tried wider and with more budget (refineAttempts). The result is
// a restriction of the problem, so every plan it makes is valid; it proves
// no bound.

// refineApplies reports whether the refinement takes part in this solve:
// methods auto and exact, problems of refineMinBuffers buffers or more, not
// a fit test or a restriction, not switched off.
func (s *solver) refineApplies() bool {
	return !s.opt.NoRefine && !s.quick && !s.restricted && len(s.p.Buffers) >= refineMinBuffers &&
		(s.opt.Method == "auto" || s.opt.Method == "exact")
}

// refineStart is what the refinement starts from: minimising, the best
// plan, down to the lower bound; deciding a capacity no plan fits yet, the
// lowest plan above it, down to the capacity. from is nil when there is
// nothing to refine.
func (s *solver) refineStart() (from *model.Plan, target int64) {
	from, target = s.res.Plan, s.res.LowerBound
	if c := s.p.PoolList()[0].Capacity; c > 0 {
		if s.res.Plan != nil || c < s.res.LowerBound {
			return nil, 0 // decided
		}
		from, target = s.overPlan, c
	}
	if from == nil || from.Peak(s.p) <= target {
		return nil, 0
	}
	return from, target
}

// runRefine lowers the best plan window by window before the race when no
// exact engine takes the problem on (when one does, the refinement races
// it: refineEngine): with all the time left, or half of it when a decision
// races the heuristic portfolio (racesPortfolio). On a graph of 100 000 ops
// (a chain with skips) the plan went from 10% above max-live to max-live.
func (s *solver) runRefine(ctx context.Context) error {
	if !s.refineApplies() || ctx.Err() != nil || s.exactTakes() {
		return nil
	}
	from, target := s.refineStart()
	if from == nil {
		return nil
	}
	if dl, ok := ctx.Deadline(); ok && s.racesPortfolio(s.p.PoolList()[0].Capacity) {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Until(dl)/2)
		defer cancel()
	}
	t := time.Now()
	defer s.res.Stats.phase("refine", t)
	name := s.res.Method
	if s.res.Plan == nil {
		name = "refine"
	} else if !strings.HasSuffix(name, "+refine") {
		name += "+refine"
	}
	var offerErr error
	st, err := refine(ctx, s.p, from, target, s.opt.BnB, defaultRefineBudget, func(pl *model.Plan) {
		if offerErr == nil {
			offerErr = s.offer(pl, name)
		}
	})
	s.res.Stats.engine("refine", st)
	if err != nil {
		return fmt.Errorf("refine: %w", err)
	}
	return offerErr
}

// refineEngine races the exact engines when one of them takes the problem
// on: before, it ran ahead of them with half the time, and on a
// 5 000-buffer transformer trace it spent 4.8 s there where the
// branch-and-bound proves the optimum in 1.5 s (6.7 s instead of 2.0 s in
// all). With one thread the engines take turns and it goes first, with at
// most a fifth of the time left.
func (s *solver) refineEngine(r *race) engine {
	run := func(ctx context.Context, p *model.Problem, from *model.Plan, target int64, on func(*model.Plan)) (any, error) {
		if dl, ok := ctx.Deadline(); ok && s.opt.Threads == 1 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, time.Until(dl)/heuristicShare)
			defer cancel()
		}
		return refine(ctx, p, from, target, s.opt.BnB, defaultRefineBudget, on)
	}
	return engine{
		name: "refine",
		decide: func(ctx context.Context, p *model.Problem, c int64) (*model.Plan, outcome, any, error) {
			r.mu.Lock()
			from, _ := s.refineStart() // c is the pool's capacity, the target
			r.mu.Unlock()
			if from == nil {
				return nil, undecided, nil, nil
			}
			var best *model.Plan
			st, err := run(ctx, p, from, c, func(pl *model.Plan) { best = pl })
			if err != nil || best == nil {
				return nil, undecided, st, err
			}
			if best.Peak(p) <= c {
				return best, fits, st, nil
			}
			return best, undecided, st, nil // above c: offered as the best found
		},
		minimise: func(ctx context.Context, p *model.Problem, inc *model.Plan, lb int64, on func(*model.Plan)) (int64, any, error) {
			if inc == nil {
				return lb, nil, nil
			}
			st, err := run(ctx, p, inc, lb, on)
			return lb, st, err
		},
	}
}

// Refinement settings (see runRefine).
const (
	// refineMinBuffers: the refinement runs on problems of this many
	// buffers or more; below, a window would be most of the problem, and
	// the exact engines take the whole.
	refineMinBuffers = 2000
	// refineMinNodes: a window whose budget (refineWork) is smaller is too
	// dense to search.
	refineMinNodes = 1024
	// refineWork is the branch-and-bound's budget per window in nodes ×
	// (pairs + 4 × buffers) of the window, its pairs of buffers alive
	// together that are not both pinned: a node costs about 3–14 ns per
	// pair, so a window takes up to about a quarter of a second.
	refineWork = 25_000_000
)

// step re-plans the window of about try.groups movable groups around group
// at (at the peak), and says whether it came below the peak.
func (r *refiner) step(ctx context.Context, peak, below int64, at int32, try attempt) (stepResult, error) {
	k := try.groups
	if r.fixedTop >= peak {
		r.stopped = "a pinned buffer is at the peak"
		return stuck, nil
	}
	a, b := r.window(at, peak, k)
	sub, inc, free, first, pinFrom := r.subProblem(a, b)
	opt := r.opt
	// The budget: a node costs time in proportion to the buffers of the
	// window and the pairs of them alive together.
	pairs := windowPairs(sub.Buffers) - windowPairs(sub.Buffers[pinFrom:])
	opt.Threads, opt.MaxNodes = 1, r.work/(pairs+4*int64(len(sub.Buffers)))+1
	if opt.MaxNodes < refineMinNodes {
		// Too dense to search: a wider window would be denser still.
		return tooDense, nil
	}
	opt.MaxNodes *= try.effort
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

// refineBudget is the work of one window at effort 1 (see refineWork) and
// the attempts made at a peak.
type refineBudget struct {
	work     int64
	attempts []attempt
}

var defaultRefineBudget = refineBudget{refineWork, refineAttempts}

// attempt is a window size in movable groups and a multiple of the budget.
type attempt struct {
	groups int
	effort int64
}

// refineAttempts are tried in turn on the groups at a peak until one
// lowers it: wider windows with the same budget first, which is often
// enough (a chain of 10 000 ops: a window of 96 groups not lowered in
// 18 000 nodes, one of 192 in 3 000), then each size with four and sixteen
// times the budget (from greedy-size's plan of that chain the refinement
// stopped 2.4% above max-live with the budget alone, and reached max-live
// with four times it, in 2.1 s).
var refineAttempts = []attempt{
	{96, 1}, {192, 1}, {384, 1}, {768, 1},
	{96, 4}, {192, 4}, {384, 4}, {768, 4},
	{96, 16}, {192, 16}, {384, 16},
}

// refine lowers the peak of plan (valid, single pool) window by window
// until lb, ctx's end, or a peak none of b's attempts lowers; it calls
// onImprove with each plan of a lower peak.
func refine(ctx context.Context, p *model.Problem, plan *model.Plan, lb int64, opt bnb.Options, b refineBudget, onImprove func(*model.Plan)) (map[string]any, error) {
	r := newRefiner(p, plan, opt)
	r.work = b.work
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
	next := 0 // the attempt at this peak
	for peak > lb && ctx.Err() == nil {
		if dl, ok := ctx.Deadline(); ok && pending && time.Until(dl) < cost {
			break
		}
		res, err := r.step(ctx, peak, below, at, b.attempts[next])
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
			if next++; next == len(b.attempts) {
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
