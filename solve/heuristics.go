package solve

import (
	"context"
	"fmt"
	"time"

	"github.com/optalloc/optalloc/heuristics"
	"github.com/optalloc/optalloc/model"
)

// resumes reports whether the portfolio gets the time the exact engines
// left when its own share had cut it short: when every engine declines (a
// transformer trace of 62 000 buffers is over the budget of both), the
// race ends at once, and with 5 s no planner had finished in its 1 s.
// A decision does not resume: there the race's portfolio engine has had
// the time.
func (s *solver) resumes(ctx context.Context) bool {
	return s.heuristicsCut && ctx.Err() == nil && s.p.PoolList()[0].Capacity == 0 &&
		!(s.res.Plan != nil && s.res.Peak <= s.res.LowerBound)
}

// runHeuristics runs the heuristic portfolio; with share, auto and exact
// give it at most 1/heuristicShare of the time left.
func (s *solver) runHeuristics(ctx context.Context, share bool) error {
	t := time.Now()
	defer s.res.Stats.phase("heuristics", t)
	var names []string
	decision := s.p.PoolList()[0].Capacity > 0 && (s.opt.Method == "auto" || s.opt.Method == "exact")
	switch {
	case s.quick || decision:
		// A decision goes straight to the exact race after one quick plan:
		// on tight capacities the portfolio's time is better spent there.
		names = []string{quickPlanner}
		if _, ok := heuristics.ByName(s.opt.Method); ok && s.quick {
			// A fit test while splitting pools: the planner that will
			// plan the pool decides what fits.
			names = []string{s.opt.Method}
		}
	default:
		if _, ok := heuristics.ByName(s.opt.Method); ok {
			names = []string{s.opt.Method}
		}
	}
	outer := ctx
	// A decision keeps the cap even when no exact engine takes the problem
	// if the race's portfolio engine then gets the rest of the time (a
	// capacity above the bound, see raceEngines); at the bound itself the
	// quick planner gets the whole time (a chain of 100 000 ops decided at
	// max-live with 1 s: greedy-size was cut at 0.2 s, and the decision
	// ended at 0.6 s with no plan at all).
	if share && (s.opt.Method == "auto" || s.opt.Method == "exact") && s.opt.Threads != 1 && (s.racesPortfolio(s.p.PoolList()[0].Capacity) || s.exactTakes(ctx)) {
		// The exact engines need most of the time: the portfolio gets at
		// most a fifth of what is left (its improvement passes stop at
		// their work budgets, at the lower bound, or here). With one
		// thread the portfolio runs to its work budgets, so that the result
		// does not depend on the machine's speed.
		// The share is counted in CPU time (cpuclock.go).
		var cancel context.CancelFunc
		ctx, cancel = withShare(ctx, heuristicShare, s.parallelism())
		defer cancel()
	}
	// Each lower plan is held as its planner ends (the portfolio verified
	// it) and reported at once; when the portfolio returns, its own choice
	// (ties broken by the list, not by which planner ended first) is kept
	// instead, so that the result does not depend on timing or threads.
	// Only the time of the first plan comes from the held ones.
	s.held = held{}
	// Before the rounded problem (which runs the whole portfolio on its
	// own grid) the portfolio is the cheap one: on MiniMalloc E with a
	// pool alignment of 4096 the whole one took the rounded problem's
	// time (1 s of 5 s, cut at its share), and its plan was 26% above the
	// bound where the rounded problem's gave 0.1%.
	cheap := share && s.roundedApplies()
	// On millions of buffers the first planner's second run would cost as
	// much as the first (0.85 s on 1 000 000 dense random buffers) and its
	// plan is held already; below that it runs again, so that the
	// portfolio's choice among equal plans stays as it was.
	var without []string
	if s.firstLeftOut() {
		without = []string{s.firstPlanner}
	}
	plan, name, err := heuristics.Portfolio(ctx, s.p, heuristics.PortfolioOptions{
		Threads: s.opt.Threads, Seed: s.opt.Seed, LowerBound: s.res.LowerBound, Planners: names,
		NoSearch: cheap, Without: without, Validated: s.validated, OnPlan: s.provisional})
	s.heuristicsCut = ctx.Err() != nil && outer.Err() == nil
	firstMillis := s.held.firstMillis
	s.held = held{}
	if err != nil {
		if ctx.Err() != nil && plan == nil {
			return nil
		}
		return fmt.Errorf("heuristics: %w", err)
	}
	if plan == nil {
		return nil
	}
	hadPlan := s.res.Plan != nil
	s.offerVerified(plan, name)
	if !hadPlan && firstMillis > 0 {
		s.res.Stats.FirstPlanMillis = firstMillis
	}
	return nil
}

// runFirstPlan keeps heuristics.FirstPlanner's plan as the first plan of
// the solve: the free-list sweep, O(n log n) on any trace (greedy-size took
// 8.8 s on a dense transformer trace of 62 000 buffers), or on millions of
// buffers the sweep that decides most there, as cheap and far lower (the
// sweeps before the free list: on a loaded machine whose limit lets one
// planner end, the result is the sweep's plan, not the free list's).
// It yields to any later plan as low as it (keep), so that the portfolio's
// choice among equal plans is the result, as without it. An error is left
// to the portfolio, which runs the same planner again and reports it.
func (s *solver) runFirstPlan(ctx context.Context) error {
	t := time.Now()
	defer s.res.Stats.phase("first_plan", t)
	s.firstPlanner = s.pickFirstPlanner(ctx)
	plan, name, err := heuristics.Portfolio(ctx, s.p, heuristics.PortfolioOptions{
		Threads: 1, Seed: s.opt.Seed, LowerBound: s.res.LowerBound, Planners: []string{s.firstPlanner},
		Validated: s.validated})
	if err != nil || plan == nil {
		return nil
	}
	s.offerVerified(plan, name)
	s.firstOnly = s.res.Plan == plan
	s.firstPlanned = true
	return nil
}

// firstLeftOut reports whether the portfolio leaves the first plan's
// planner out (runHeuristics): on millions of buffers its second run would
// cost as much as the first, and its plan is held already.
func (s *solver) firstLeftOut() bool {
	return s.firstPlanned && heuristics.Huge(len(s.p.Buffers))
}

// held is the lowest plan the running portfolio has reported (see
// provisional): its peak, and when the first plan of the solve came.
type held struct {
	plan        *model.Plan
	peak        int64
	firstMillis float64
}

// provisional holds a plan the portfolio verified while it still runs and
// reports it as progress, until the portfolio returns (see runHeuristics).
// It fits every capacity (the portfolio reports only those).
func (s *solver) provisional(plan *model.Plan, method string) {
	peak := plan.Peak(s.p)
	if s.held.plan != nil && peak >= s.held.peak || s.res.Plan != nil && peak >= s.res.Peak {
		return
	}
	if s.held.plan == nil && s.res.Plan == nil {
		s.held.firstMillis = float64(time.Since(s.start).Microseconds()) / 1000
	}
	s.held.plan, s.held.peak = plan, peak
	s.report(peak, method)
}

// racesPortfolio reports whether a race deciding capacity c (0:
// minimising) includes the heuristic portfolio: only with room between the
// lower bound and c.
func (s *solver) racesPortfolio(c int64) bool {
	return c > 0 && c > s.res.LowerBound
}
