package solve

import (
	"context"
	"sync"
	"time"

	"github.com/optalloc/optalloc/bounds"
	"github.com/optalloc/optalloc/exact/bnb"
	"github.com/optalloc/optalloc/exact/sat"
	"github.com/optalloc/optalloc/heuristics"
	"github.com/optalloc/optalloc/model"
)

// engines returns which exact engines the method runs.
func (s *solver) engines() (useBnB, useSAT bool) {
	switch s.opt.Method {
	case "auto", "exact":
		return !s.opt.NoBnB, !s.opt.NoSAT
	case "bnb":
		return true, false
	case "sat":
		return false, true
	}
	return false, false
}

// race runs the chosen engines concurrently on the single-pool problem.
// Each engine offers every plan it finds; the first to close the question
// (a plan within the capacity, a refutation, or a proven optimum) cancels
// the other.
type race struct {
	s      *solver
	mu     sync.Mutex
	cancel context.CancelFunc
	lb     int64  // best proven lower bound
	lbBy   string // what proved lb, when an engine raised it
	err    error
	// refuted names the engine that proved no plan fits the capacity.
	refuted string
	// alone is closed once every engine without a delay has returned: a
	// delayed engine then starts at once, since its delay only gives the
	// others a head start (when the branch-and-bound declines a problem
	// at once, SAT no longer waits out its second).
	alone chan struct{}
}

func (r *race) offer(plan *model.Plan, method string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.s.offer(plan, method); err != nil && r.err == nil {
		r.err = err
		r.cancel()
	}
	if r.s.res.Plan != nil && r.s.res.Peak <= r.lb {
		r.cancel()
	}
}

// decline records an engine that could not handle the problem (an
// unsupported feature, a refused encoding): the race goes on without it and
// the reason shows in the statistics. Invalid plans are caught by offer.
func (r *race) decline(name string, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.s.res.Stats.engine(name+"_declined", err.Error())
}

// raise records a proven lower bound and stops the race once it meets the
// best plan.
func (r *race) raise(lb int64, by string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if lb > r.lb {
		r.lb, r.lbBy = lb, by
	}
	if r.s.res.Plan != nil && r.s.res.Peak <= r.lb {
		r.cancel()
	}
}

func (r *race) stats(name string, st any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.s.res.Stats.engine(name, st)
}

// atBound reports whether the best plan so far meets the lower bound.
func (s *solver) atBound() bool {
	return s.res.Plan != nil && s.res.Peak <= s.res.LowerBound
}

// exactApplies reports whether the exact race runs: methods auto, exact,
// bnb and sat, time left, and the question still open (deciding: no plan
// fits yet and the bound does not refute the capacity; minimising: the
// best plan is above the bound).
func (s *solver) exactApplies(ctx context.Context) bool {
	useBnB, useSAT := s.engines()
	if !useBnB && !useSAT || ctx.Err() != nil {
		return false
	}
	if capacity := s.p.PoolList()[0].Capacity; capacity > 0 {
		return s.res.Plan == nil && s.res.LowerBound <= capacity
	}
	return !s.atBound()
}

// runExact closes the gap with the exact engines (methods auto, exact, bnb,
// sat): a decision at the pool's capacity when it has one, else
// minimisation from the best heuristic plan down to the lower bound.
func (s *solver) runExact(ctx context.Context) error {
	capacity := s.p.PoolList()[0].Capacity
	t := time.Now()
	defer s.res.Stats.phase("exact", t)
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	r := &race{s: s, cancel: cancel, lb: s.res.LowerBound}
	engines := s.raceEngines(ctx, r, capacity)
	if s.opt.Threads == 1 {
		// One thread: no race, the engines take turns, so that the result
		// does not depend on timing (deterministic when the search ends).
		for _, e := range engines {
			if rctx.Err() == nil {
				r.run(rctx, e, capacity)
			}
		}
	} else {
		var wg, first sync.WaitGroup
		r.alone = make(chan struct{})
		for _, e := range engines {
			wg.Add(1)
			if e.delay == 0 {
				first.Add(1)
			}
			go func() {
				defer wg.Done()
				if e.delay == 0 {
					defer first.Done()
				}
				r.run(rctx, e, capacity)
			}()
		}
		go func() {
			first.Wait()
			close(r.alone)
		}()
		wg.Wait()
	}
	if r.err != nil {
		return r.err
	}
	if r.lb > s.res.LowerBound {
		s.res.LowerBound = r.lb
		if r.lbBy != "" {
			s.boundName = r.lbBy
		}
	}
	if r.refuted != "" && s.res.Plan == nil {
		s.refutedBy = r.refuted
	}
	return nil
}

// outcome is an engine's answer to a decision.
type outcome int

const (
	undecided outcome = iota
	fits
	refuted
)

// engine adapts one exact engine to the race.
type engine struct {
	name string
	// delay holds the engine back in a race, so that what the other engine
	// answers at once costs nothing.
	delay time.Duration
	// decide answers the decision at capacity; with undecided it may
	// return a plan above the capacity, reported when none fits.
	decide   func(ctx context.Context, p *model.Problem, capacity int64) (*model.Plan, outcome, any, error)
	minimise func(ctx context.Context, p *model.Problem, incumbent *model.Plan, lb int64, onImprove func(*model.Plan)) (int64, any, error)
}

func (s *solver) bnbEngine() engine {
	opt := s.opt.BnB
	opt.Threads, opt.Seed = s.opt.Threads, s.opt.Seed
	return engine{
		name: "bnb",
		decide: func(ctx context.Context, p *model.Problem, c int64) (*model.Plan, outcome, any, error) {
			opt := opt
			if p == s.p {
				// The probes start at the solver's bound (alignment-aware).
				opt.LowerBound = s.res.LowerBound
			}
			plan, status, st, err := bnb.Decide(ctx, p, c, opt)
			return plan, map[bnb.Status]outcome{bnb.Feasible: fits, bnb.Infeasible: refuted}[status], st, err
		},
		minimise: func(ctx context.Context, p *model.Problem, inc *model.Plan, lb int64, on func(*model.Plan)) (int64, any, error) {
			_, lb, st, err := bnb.Minimise(ctx, p, inc, lb, opt, on)
			return lb, st, err
		},
	}
}

// exactTakes reports whether some engine of the race could take the
// problem on: the branch-and-bound within its pair budget, or SAT within its
// race budget at the lower bound (its smallest encoding). When neither
// can, the heuristic portfolio gets the whole time instead of a fifth (a
// transformer trace of 62 000 buffers with its backward pass: no planner
// had finished in a fifth of 5 s).
func (s *solver) exactTakes(ctx context.Context) bool {
	if s.takes == 0 {
		s.takes = -1
		if s.exactAdmits(ctx) {
			s.takes = 1
		}
	}
	return s.takes > 0
}

// exactAdmits is exactTakes uncached. When ctx ends during SAT's check
// (it costs the pairs of buffers alive together), SAT does not take the
// problem.
func (s *solver) exactAdmits(ctx context.Context) bool {
	useBnB, useSAT := s.engines()
	s.declined = map[string]string{}
	if useBnB {
		ok, why := bnb.Admits(s.p, s.opt.BnB)
		if ok {
			return true
		}
		s.declined["bnb"] = why
	}
	if useSAT {
		ok, why := sat.AdmitsContext(ctx, s.p, s.res.LowerBound, s.satOptions())
		if ok {
			return true
		}
		s.declined["sat"] = why
	}
	return false
}

// satOptions are the SAT engine's options. In the race SAT takes only
// encodings small enough to answer (whole A–K encodings of 5–72 M clauses
// never did; building one costs the branch-and-bound a core for seconds):
// satRaceMaxClauses unless the caller set a budget. Where it gallops
// (sparsely aligned problems) the budget is satAlignedMaxClauses, alone or
// racing: large alignments leave the aligned buffers a few offsets each,
// and gini answers whole problems far beyond the race's budget.
func (s *solver) satOptions() sat.Options {
	opt := s.opt.SAT
	if s.opt.Method != "sat" && opt.MaxClauses == 0 {
		opt.MaxClauses = satRaceMaxClauses
	}
	if s.gallops() {
		opt.MaxClauses = satAlignedMaxClauses
	}
	return opt
}

func (s *solver) satEngine() engine {
	opt := s.satOptions()
	// Alone, SAT falls back on its large-neighbourhood search when the
	// whole problem is too big to encode; in the race a refusal returns at
	// once and leaves the time to the branch-and-bound.
	opt.LNS = opt.LNS || s.opt.Method == "sat"
	var delay time.Duration
	if s.opt.Method != "sat" {
		// In the race SAT is the second engine: it starts after a grace
		// period.
		delay = satRaceDelay
	}
	minimise := sat.Minimise
	if s.gallops() {
		// MiniMalloc K with alignment 65536 (7 M clauses) fits 1200 KiB
		// in 11 s, where every other engine stays above 1328 KiB. The
		// incumbent is far above the optimum, so the descent gallops
		// instead of stepping one unit at a time (sat.Gallop).
		minimise = sat.Gallop
	}
	return engine{
		name:  "sat",
		delay: delay,
		decide: func(ctx context.Context, p *model.Problem, c int64) (*model.Plan, outcome, any, error) {
			plan, status, st, err := sat.Decide(ctx, p, c, opt)
			return plan, map[sat.Status]outcome{sat.Feasible: fits, sat.Infeasible: refuted}[status], st, err
		},
		minimise: func(ctx context.Context, p *model.Problem, inc *model.Plan, lb int64, on func(*model.Plan)) (int64, any, error) {
			_, lb, st, err := minimise(ctx, p, inc, lb, opt, on)
			return lb, st, err
		},
	}
}

// windowEngine joins a race on sparsely aligned problems (see raceEngines)
// with the window bounds of bounds.Windows (after bounds.WindowDelay): the buffers
// of a short stretch of time, clipped to it, minimised by the
// branch-and-bound and refuted by SAT, raise the race's lower bound, and a
// decision's capacity is refuted once the bound exceeds it; it offers no
// plans.
// There the one- and two-time alignment bounds leave most of the gap (K
// with alignment 65536: 1 136 640, windows 1 168 384), and elsewhere
// windows raised nothing (bounds --prove on D, E, F, I, J, K with page
// alignment, 10 s each), so other problems do not pay for them.
func (s *solver) windowEngine(r *race) engine {
	current := func() int64 {
		r.mu.Lock()
		defer r.mu.Unlock()
		return r.lb
	}
	// prove runs the window prover, raising the race's bound, until ctx
	// ends, every window was tried, or the bound exceeds stop.
	prove := func(ctx context.Context, p *model.Problem, stop int64) map[string]any {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		how := ""
		n := bounds.Windows(ctx, p, s.opt.boundsOptions(), current, func(v int64, _, detail string) {
			if v > current() {
				how = detail
			}
			r.raise(v, "the window bound")
			if stop > 0 && v > stop {
				cancel()
			}
		})
		return map[string]any{"windows": n, "proof": how}
	}
	return engine{
		name:  "window",
		delay: bounds.WindowDelay,
		decide: func(ctx context.Context, p *model.Problem, c int64) (*model.Plan, outcome, any, error) {
			st := prove(ctx, p, c)
			if current() > c {
				return nil, refuted, st, nil
			}
			return nil, undecided, st, nil
		},
		minimise: func(ctx context.Context, p *model.Problem, _ *model.Plan, lb int64, _ func(*model.Plan)) (int64, any, error) {
			return lb, prove(ctx, p, 0), nil
		},
	}
}

// satAlignedMaxClauses is the SAT engine's encoding budget (estimated
// clauses) on sparsely aligned problems; the estimate runs about 1.75×
// the clauses built (K with alignment: 12.3 M estimated, 7.1 M built,
// 540 MB resident).
const satAlignedMaxClauses = 16_000_000

// gallops reports whether the SAT engine minimises with sat.Gallop and
// a budget of satAlignedMaxClauses: on sparsely aligned problems, unless
// the caller set a budget of its own.
func (s *solver) gallops() bool {
	return s.opt.SAT.MaxClauses == 0 && sparselyAligned(s.p)
}

// satWhole reports whether SAT takes the whole problem under height (bytes)
// in a race: it takes part, gallops (sparsely aligned, the default budget
// raised to satAlignedMaxClauses), and the encoding under height fits that
// budget (else it declines at once: mindspore bert_base with alignment 64
// is sparsely aligned, but on a grid of one byte). The coarse restrictions
// and, minimising, the branch-and-bound then only take its time
// (runCoarse, raceEngines).
func (s *solver) satWhole(ctx context.Context, height int64) bool {
	if _, useSAT := s.engines(); !useSAT || !s.gallops() || height <= 0 {
		return false
	}
	ok, _ := sat.AdmitsContext(ctx, s.p, height, s.satOptions())
	return ok
}

// satMinimisesWhole reports whether SAT minimises the whole problem from
// the best plan so far (satWhole just below its peak).
func (s *solver) satMinimisesWhole(ctx context.Context) bool {
	return s.res.Plan != nil && s.satWhole(ctx, s.res.Peak-1)
}

// sparselyAligned reports whether at least a third of the buffers of a
// single-pool problem have an alignment of at least largeAlign units of
// its grid (gridOf): their SAT domains are then an eighth of the address axis or
// less. The page-aligned MiniMalloc variant (alignment 4 units) is not.
func sparselyAligned(p *model.Problem) bool {
	if len(p.PoolList()) != 1 || len(p.Buffers) == 0 {
		return false
	}
	pool := &p.PoolList()[0]
	g := bounds.Grid(p)
	n := 0
	for i := range p.Buffers {
		if p.Buffers[i].AlignmentIn(pool) >= largeAlign*g {
			n++
		}
	}
	return 3*n >= len(p.Buffers)
}

// Race settings of the SAT engine (see satEngine).
const (
	satRaceDelay      = time.Second
	satRaceMaxClauses = 1_500_000
)

// portfolioRaceDelay holds the heuristic portfolio back in a decision race
// (see portfolioEngine).
const portfolioRaceDelay = 2 * time.Second

// portfolioEngine joins a decision race (auto or exact, a capacity above
// the lower bound, the quick plan did not fit) with the whole heuristic
// portfolio: with room above the bound, a heuristic often finds a plan the
// exact engines do not (MiniMalloc G with alignment 65536 at capacity
// 1348608: the portfolio's LNS in 2 s, the race alone nothing in 20 s). It
// starts after portfolioRaceDelay (or once the exact engines have
// returned), so what they answer at once costs nothing, and gets at most a
// fifth of the time left (all of it when no exact engine takes the
// problem on). It stops at the first plan within the capacity.
func (s *solver) portfolioEngine(ctx context.Context) engine {
	lb := s.res.LowerBound
	// Alone (no exact engine takes the problem on), it gets the whole time.
	share := s.exactTakes(ctx)
	return engine{
		name:  "heuristic",
		delay: portfolioRaceDelay,
		decide: func(ctx context.Context, p *model.Problem, c int64) (*model.Plan, outcome, any, error) {
			if share {
				var cancel context.CancelFunc
				ctx, cancel = withShare(ctx, heuristicShare, s.parallelism())
				defer cancel()
			}
			// Any plan within the capacity answers: the planners after the
			// first one to fit it are stopped.
			plan, name, err := heuristics.Portfolio(ctx, p, heuristics.PortfolioOptions{
				Threads: s.opt.Threads, Seed: s.opt.Seed, LowerBound: max(lb, c)})
			if plan == nil {
				if err != nil && ctx.Err() == nil {
					return nil, undecided, nil, err
				}
				return nil, undecided, nil, nil
			}
			st := map[string]any{"winner": name, "peak": plan.Peak(p)}
			if plan.Peak(p) <= c {
				return plan, fits, st, nil
			}
			return plan, undecided, st, nil // above c: offered as the best found
		},
	}
}

// run decides the capacity (when > 0) or minimises with one engine.
func (r *race) run(ctx context.Context, e engine, capacity int64) {
	s := r.s
	if e.delay > 0 && s.opt.Threads != 1 {
		// The head start is counted in CPU time (cpuclock.go): under load
		// the engines ahead get the same CPU as on an idle machine.
		if !cpuWait(ctx, e.delay, s.parallelism(), r.alone) {
			return
		}
	}
	if capacity > 0 {
		plan, answer, st, err := e.decide(ctx, s.p, capacity)
		r.stats(e.name, st)
		switch {
		case err != nil:
			r.decline(e.name, err)
		case answer == fits:
			r.offer(plan, e.name)
			r.cancel()
		case plan != nil:
			// A plan above the capacity answers nothing, but when no
			// plan fits, the result reports the lowest one found.
			r.offer(plan, e.name)
		case answer == refuted:
			r.mu.Lock()
			r.refuted = e.name
			r.mu.Unlock()
			r.cancel()
		}
		return
	}
	r.mu.Lock()
	incumbent, lb := s.res.Plan, s.res.LowerBound
	r.mu.Unlock()
	proven, st, err := e.minimise(ctx, s.p, incumbent, lb, func(pl *model.Plan) { r.offer(pl, e.name) })
	r.stats(e.name, st)
	if err != nil {
		r.decline(e.name, err)
		return
	}
	r.raise(proven, "the "+e.name+" engine's bound")
}
