package solve

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/optalloc/optalloc/bounds"
	"github.com/optalloc/optalloc/exact/bnb"
	"github.com/optalloc/optalloc/exact/sat"
	"github.com/optalloc/optalloc/heuristics"
	"github.com/optalloc/optalloc/internal/suggest"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/verify"
)

// Options control Solve.
type Options struct {
	// Method is "auto" (heuristics, then the exact engines), "heuristic"
	// (the portfolio only), "exact" (the exact engines from the best
	// heuristic plan), or the name of one planner.
	Method string
	// Capacity > 0 turns minimisation into a decision: fit under Capacity
	// bytes or prove that nothing does. Single-pool problems only (with
	// several pools each pool has its own capacity).
	Capacity int64
	// TimeLimit bounds the whole solve; 0 means none (the context still
	// applies).
	TimeLimit time.Duration
	// Threads is the number of concurrent workers; 0 means all cores.
	Threads int
	// Seed makes randomised planners deterministic.
	Seed int64
	// Progress, when set, is called when the best plan improves.
	Progress func(Progress)
	// NoBnB and NoSAT leave an engine out of the auto/exact race.
	NoBnB, NoSAT bool
	// NoCoarse skips the coarse restrictions (plain buffers aligned to a
	// coarser grid when others have large alignments; see coarse.go).
	NoCoarse bool
	// NoRefine skips the time-window refinement of large problems (see
	// runRefine).
	NoRefine bool
	// NoStack skips the peak stack tried before the refinement (see
	// refine.Stack and stack.go).
	NoStack bool
	// NoSqueaky skips the squeaky-wheel improvement of large problems
	// (see runSqueaky).
	NoSqueaky bool
	// NoRound plans the problem as it is where every offset is on a grid
	// coarser than the sizes, instead of with the sizes rounded up to that
	// grid (see rounded.go).
	NoRound bool
	// BnB and SAT configure the exact engines (pruning switches, budgets);
	// Threads and Seed above override theirs.
	BnB bnb.Options
	SAT sat.Options
	// Scratch configures the scratch gap-filling pass run on the final
	// plan (heuristics.FillScratch). The planners' own knobs travel in the
	// context (heuristics.WithSettings).
	Scratch heuristics.ScratchOptions
	// Work > 0 is a work budget instead of wall time (work.go): one
	// thread, no stage given a share of the clock, the branch-and-bound
	// bounded by Work nodes, SAT, the coarse restrictions and the squeaky
	// pass left out; the same input then gives the same plan on any
	// machine. TimeLimit stays a safety net (Stats.WorkCut).
	Work int64
	// FreeListTiers, when set, splits a multi-pool problem's buffers over
	// the pools as this free-list planner's sweep over the whole problem
	// places them (FillFast: fill the fast pool, then fall to the slow
	// one), instead of by priority; each pool is then planned as usual.
	FreeListTiers *heuristics.FreeList
}

// Methods lists the method names Solve accepts besides planner names.
var Methods = []string{"auto", "heuristic", "exact", "bnb", "sat"}

// Solve plans p according to opt. The returned plan has passed verify.Check.
func Solve(ctx context.Context, p *model.Problem, opt Options) (res *Result, err error) {
	start, startCPU := time.Now(), cpuNow()
	if opt.Work > 0 {
		var cancel context.CancelFunc
		ctx, cancel = workContext(ctx, opt.TimeLimit)
		defer cancel()
		opt = workOptions(opt)
		defer func() {
			if res != nil && workCut(ctx) {
				res.Stats.WorkCut = true
			}
		}()
	} else if opt.TimeLimit > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, opt.TimeLimit)
		defer cancel()
	}
	p, opt, err = normalise(p, opt)
	if err != nil {
		return nil, err
	}
	if opt.Work <= 0 && opt.TimeLimit > 0 {
		// The stages share the limit out in CPU time (cpuclock.go).
		ctx = cpuLimit(ctx, opt.TimeLimit, max(1, min(opt.Threads, runtime.GOMAXPROCS(0))))
	}
	if why := bounds.PinConflicts(p); why != "" {
		return &Result{Status: Infeasible, Reason: why, Method: "pins", LowerBound: p.ComputeSweep().MaxLive,
			Elapsed: time.Since(start)}, nil
	}
	s := &solver{p: p, opt: opt, start: start, startCPU: startCPU, validated: true}
	if len(p.PoolList()) == 1 {
		return s.solveSingle(ctx)
	}
	return s.solveMulti(ctx)
}

// normalise validates p and opt and fills opt's defaults; a capacity is set
// on a copy of p (the caller's problem keeps its pools).
func normalise(p *model.Problem, opt Options) (*model.Problem, Options, error) {
	if opt.Threads <= 0 {
		opt.Threads = runtime.NumCPU()
	}
	if opt.Method == "" {
		opt.Method = "auto"
	}
	if err := p.Validate(); err != nil {
		return nil, opt, err
	}
	if opt.Capacity > 0 && len(p.PoolList()) > 1 {
		return nil, opt, fmt.Errorf("a capacity decides a single pool; this problem has %d pools: give each its capacity", len(p.PoolList()))
	}
	if opt.Capacity > 0 {
		q := *p
		q.Pools = append([]model.Pool(nil), p.PoolList()...)
		q.SetCapacity(opt.Capacity)
		p = &q
	}
	if err := checkMethod(opt.Method); err != nil {
		return nil, opt, err
	}
	return p, opt, nil
}

// solveMulti splits a multi-pool problem over its pools and plans each
// (tiers.go).
func (s *solver) solveMulti(ctx context.Context) (*Result, error) {
	s.res = s.newResult()
	if err := s.solveTiers(ctx); err != nil {
		return nil, err
	}
	s.ended = ctx.Err()
	s.finish()
	if s.res.Plan != nil && s.res.Status != Infeasible {
		s.res.Status = s.tierStatus
		if s.res.Status == "" {
			// A pool's solve ended without a plan (its time ran out): the
			// provisional plan of the whole (spill or quick, verified)
			// stands. It had no status at all (found by cancelling at the
			// first plan, TestTimeLimitHonoured in cmd/optalloc).
			s.res.Status = Feasible
		}
	}
	return s.res, nil
}

// ErrUnknownMethod is wrapped by Solve's error for a method that no engine
// or planner answers to (errors.Is), so that callers tell bad usage from a
// failure without reading the message.
var ErrUnknownMethod = errors.New("unknown method")

func checkMethod(m string) error {
	for _, v := range Methods {
		if m == v {
			return nil
		}
	}
	if _, ok := heuristics.ByName(m); ok {
		return nil
	}
	names := heuristics.Names()
	if near := suggest.Nearest(m, append(slices.Clone(Methods), names...)); near != "" {
		return fmt.Errorf("%w %q: did you mean %q? (want %s, or a planner: %s)", ErrUnknownMethod, m, near,
			strings.Join(Methods, ", "), strings.Join(names, ", "))
	}
	return fmt.Errorf("%w %q (want %s, or a planner: %s)", ErrUnknownMethod, m,
		strings.Join(Methods, ", "), strings.Join(names, ", "))
}

type solver struct {
	p     *model.Problem
	opt   Options
	start time.Time
	// startCPU is the process's CPU time (cpuNow) when Solve began.
	startCPU time.Duration
	// finishBy is the earliest stage deadline stageContext has set (zero:
	// none).
	finishBy time.Time
	res      *Result
	// overCapacity is the smallest peak among plans that did not fit, and
	// overPlan the first plan with it.
	overCapacity int64
	overPlan     *model.Plan
	overMethod   string // who found overPlan
	// tierStatus is the status of a multi-pool solve before merging.
	tierStatus Status
	// refutedBy names the engine that proved nothing fits the capacity.
	refutedBy string
	// ended is the context's error when it ended during the solve:
	// context.Canceled when the caller cancelled it, else its deadline.
	ended error
	// quick runs only quickPlanner (fit tests while splitting pools).
	quick bool
	// boundName names the starting lower bound (max-live or alignment).
	boundName string
	// restricted marks the solve of a coarse restriction (no nested ones).
	restricted bool
	// heuristicsCut is set when the portfolio's share of the time ran out
	// before it finished (see resumes).
	heuristicsCut bool
	// takes caches exactTakes: 1 yes, -1 no, 0 not computed yet.
	takes int8
	// declined says why each exact engine would not take the problem
	// (set with takes).
	declined map[string]string
	// validated is set when Solve validated p itself (not a derived
	// sub-problem): the portfolio does not validate it again.
	validated bool
	// onBest, when set, is called with each new best plan that fits (the
	// rounded problem's progress, see runRounded).
	onBest func(plan *model.Plan, method string)
	// roundedGave is set when the rounded problem gave the plan: the
	// original's heuristics, restrictions and refinement are skipped.
	roundedGave bool
	// held is the lowest plan of the running portfolio (see provisional).
	held held
	// firstOnly is set while the best plan is firstPlanStage's: a later
	// plan as low replaces it (keep).
	firstOnly bool
	// firstPlanned is set when firstPlanStage's planner gave a plan;
	// firstPlanner names that planner (heuristics.FirstPlanner).
	firstPlanned bool
	firstPlanner string
	// bounded is set once boundsStage has run.
	bounded bool
	// early is set during the early race (early.go).
	early bool
	// stackRan is set when earlyStackStage ran the peak stack through
	// (every window, or to the bound): it does not run again.
	stackRan bool
}

// report gives the caller's Progress a plan of the given peak, with the
// lower bound as it stands.
func (s *solver) report(peak int64, phase string) {
	if s.opt.Progress != nil {
		s.opt.Progress(Progress{Elapsed: time.Since(s.start), Peak: peak, LowerBound: s.res.LowerBound, Phase: phase})
	}
}

// heuristicShare: with methods auto and exact, the heuristic portfolio gets
// 1/heuristicShare of the time left, the exact engines the rest.
const heuristicShare = 5

// quickPlanner is the planner used where many fast fit tests are needed.
const quickPlanner = "greedy-size"

func (s *solver) newResult() *Result {
	s.overCapacity = math.MaxInt64
	return &Result{Status: Unknown}
}

// child returns a solver for a sub-problem with the same options.
func (s *solver) child(sub *model.Problem) *solver {
	c := &solver{p: sub, opt: s.opt, start: s.start, startCPU: s.startCPU}
	c.opt.Progress = nil
	return c
}

// solveSingle runs the pipeline on a single-pool problem.
func (s *solver) solveSingle(ctx context.Context) (*Result, error) {
	s.res = s.newResult()
	if err := s.runStages(ctx, pipeline); err != nil {
		return nil, err
	}
	s.ended = ctx.Err()
	if s.ended == nil && !s.finishBy.IsZero() && !time.Now().Before(s.finishBy) {
		s.ended = context.DeadlineExceeded // the stages ended at the reserve (finish.go)
	}
	s.finish()
	return s.res, nil
}

// heuristicOnly runs a quick fit test on a single-pool problem: the bound
// and one planner (see fitTest).
func (s *solver) heuristicOnly(ctx context.Context) (*Result, error) {
	s.res = s.newResult()
	if err := s.runStages(ctx, fitTest); err != nil {
		return nil, err
	}
	s.finish()
	return s.res, nil
}

// offer verifies a plan and keeps it when it is the best so far. A plan that
// only exceeds a pool's capacity does not fit and is not kept; any other
// violation is a bug in its planner and is returned as an error.
func (s *solver) offer(plan *model.Plan, method string) error {
	fits := true
	for _, v := range verify.Check(s.p, plan) {
		if v.Kind != verify.OutOfCapacity {
			return fmt.Errorf("internal error: planner %s produced an invalid plan (%s); please report it", method, v)
		}
		fits = false
	}
	s.keep(plan, method, fits)
	return nil
}

// offerVerified keeps a plan that heuristics.Portfolio has just verified
// against the same problem: checking it again cost 1.2 s on a chain of
// 1 000 000 ops.
func (s *solver) offerVerified(plan *model.Plan, method string) {
	fits := true
	for q, peak := range plan.PoolPeaks(s.p) {
		if c := s.p.PoolList()[q].Capacity; c > 0 && peak > c {
			fits = false
		}
	}
	s.keep(plan, method, fits)
}

// keep records a verified plan and keeps it when it fits and is the best
// so far (or, not fitting, when it is the lowest that does not).
func (s *solver) keep(plan *model.Plan, method string, fits bool) {
	peak := plan.Peak(s.p)
	if s.res.Stats.Heuristics == nil {
		s.res.Stats.Heuristics = map[string]int64{}
	}
	if old, ok := s.res.Stats.Heuristics[method]; !ok || peak < old {
		s.res.Stats.Heuristics[method] = peak
	}
	if !fits {
		if peak < s.overCapacity {
			s.overCapacity, s.overPlan, s.overMethod = peak, plan, method
		}
		return
	}
	if s.res.Plan == nil || peak < s.res.Peak || s.firstOnly && peak == s.res.Peak {
		s.firstOnly = false
		if s.res.Plan == nil {
			s.res.Stats.FirstPlanMillis = float64(time.Since(s.start).Microseconds()) / 1000
		}
		s.setPlan(plan, method)
		s.report(peak, method)
		if s.onBest != nil {
			s.onBest(plan, method)
		}
	}
}

// setPlan makes plan (nil: none) the result's plan, found by method, and
// derives the result's peak and status from it (Result.Derive): the one way
// the plan of a result changes.
func (s *solver) setPlan(plan *model.Plan, method string) {
	s.res.Plan, s.res.Method = plan, method
	if plan == nil {
		s.res.Peak = 0
		return
	}
	s.res.Derive(s.p)
}

// finish sets the status from the best plan, the bound and the capacity;
// with a plan, the peak and the status are derived from it (Result.Derive).
func (s *solver) finish() {
	r := s.res
	r.Elapsed = time.Since(s.start)
	var c int64
	if pools := s.p.PoolList(); len(pools) == 1 {
		c = pools[0].Capacity
	}
	switch {
	case r.Plan == nil && r.Reason != "":
		// decided earlier (pins, pools), with its reason
	case c > 0 && r.LowerBound > c:
		r.Status, r.Plan = Infeasible, nil
		r.Reason = fmt.Sprintf("%s %d exceeds the capacity %d", s.lbName(), r.LowerBound, c)
	case c > 0 && r.Plan == nil && s.refutedBy != "":
		r.Status = Infeasible
		r.Reason = fmt.Sprintf("the %s search was exhausted: no plan fits in %d bytes", s.refutedBy, c)
		r.Method = s.refutedBy
	case r.Plan == nil && s.overCapacity < math.MaxInt64:
		r.Best, r.Method = s.overPlan, s.overMethod
		r.Derive(s.p)
		r.Status, r.Reason = Unknown, fmt.Sprintf("the best plan found (by %s) needs %d bytes, above the capacity; no refutation was found", s.overMethod, r.Peak)
	case r.Plan == nil && errors.Is(s.ended, context.Canceled):
		r.Status, r.Reason = Unknown, "the solve was cancelled before a plan was found"
	case r.Plan == nil && s.ended != nil:
		r.Status, r.Reason = Unknown, "the time limit ran out before a plan was found"
	case r.Plan == nil:
		r.Status, r.Reason = Unknown, "no engine found a plan (see the engine statistics with --json)"
	default:
		r.Derive(s.p)
	}
}
