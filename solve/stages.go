package solve

import "context"

// A stage is one step of the single-pool pipeline. It reads what the
// stages before it handed on and hands on its own results the same way,
// through the solve's state: s.res (the best plan that fits, the lower
// bound and its name in s.boundName, the statistics), s.overPlan (the
// lowest plan above a capacity) and the flags noted on each stage.
type stage interface {
	// applies reports whether the stage runs now, given what the stages
	// before it handed on.
	applies(ctx context.Context, s *solver) bool
	run(ctx context.Context, s *solver) error
}

// pipeline is the single-pool solve, in order.
var pipeline = []stage{
	boundsStage{decision: true},  // a decision's starting lower bound: it may refute the capacity at once
	firstPlanStage{},             // a plan in O(n log n), before anything that may take long
	boundsStage{},                // the starting lower bound (bounds.Start, the rounded bound)
	earlyStackStage{},            // the peak stack, first where the refinement's windows are too dense (stack.go)
	earlyRaceStage{},             // a short exact race, before the portfolio's share (early.go)
	heuristicsStage{share: true}, // the portfolio's plan; sets s.heuristicsCut
	roundedStage{},               // the rounded problem's plan and bound when a gap is left; sets s.roundedGave
	coarseStage{},                // the coarse restrictions' plans
	refineStage{},                // a lower plan, when no exact engine takes the problem
	exactStage{},                 // the race's plans, a raised bound or a refutation
	resumeStage{},                // the portfolio again when its share had cut it short
	squeakyStage{},               // a lower plan on large problems
	scratchStage{},               // elastic scratch grown into free space
	hintsStage{},                 // hinted buffers moved to their hints
}

// fitTest is the pipeline of a quick fit test while splitting pools (see
// fitPool): the bound and one planner.
var fitTest = []stage{boundsStage{}, heuristicsStage{}}

// runStages runs the stages that apply, in order.
func (s *solver) runStages(ctx context.Context, stages []stage) error {
	for _, st := range stages {
		// On large problems each stage ends early enough for the check
		// and the output that follow it (finish.go).
		sctx, cancel := s.stageContext(ctx)
		if !st.applies(sctx, s) {
			cancel()
			continue
		}
		err := st.run(sctx, s)
		cancel()
		if err != nil {
			return err
		}
	}
	return nil
}

// boundsStage computes the lower bound the solve starts from, once. With
// decision it applies only when the solve decides a capacity; a
// minimisation computes its bound after the first plan (the bound is not
// needed to place anything, and the first plan comes earlier: 80 ms on
// 2 000 000 buffers).
type boundsStage struct{ decision bool }

func (b boundsStage) applies(_ context.Context, s *solver) bool {
	return !s.bounded && (!b.decision || s.p.PoolList()[0].Capacity > 0)
}
func (boundsStage) run(ctx context.Context, s *solver) error {
	s.bounded = true
	if err := s.startBound(ctx); err != nil {
		return err
	}
	if s.roundedApplies() {
		if err := s.roundedStartBound(ctx); err != nil {
			return err
		}
	}
	if s.res.Plan != nil {
		s.report(s.res.Peak, s.res.Method) // the first plan was reported without a bound
	}
	return nil
}

// firstPlanStage plans the problem with heuristics.FirstPlanner before any stage
// that may take long (methods auto and exact; heuristics.go): the first
// plan comes before any exact check. On a chain of 100 000 ops the check
// whether SAT takes the problem (made to share the time out) ran for a
// minute before any planner did, and a time limit gave no plan at all.
type firstPlanStage struct{}

func (firstPlanStage) applies(ctx context.Context, s *solver) bool {
	return !s.quick && s.res.Plan == nil && ctx.Err() == nil && (s.opt.Method == "auto" || s.opt.Method == "exact")
}
func (firstPlanStage) run(ctx context.Context, s *solver) error { return s.runFirstPlan(ctx) }

// roundedStage minimises the problem with its sizes rounded up to the
// offsets' grid (rounded.go), after the plain portfolio and only when it
// left a gap: the portfolio is cheap and closes many problems at once, and
// the rounded problem's plans only replace lower ones (keep), so neither
// can lose to the other. When it gives a plan, the restrictions and the
// refinement of the original are skipped, and the race on the original
// closes the last gap.
type roundedStage struct{}

func (roundedStage) applies(ctx context.Context, s *solver) bool {
	return s.roundedApplies() && !s.atBound() && ctx.Err() == nil
}
func (roundedStage) run(ctx context.Context, s *solver) error { return s.runRounded(ctx) }

// heuristicsStage runs the heuristic portfolio (heuristics.go); with
// share, auto and exact give it at most 1/heuristicShare of the time left.
// The engines alone (methods bnb and sat) skip it, and so does a solve
// whose best plan a stage before it (the early stack) brought to the lower
// bound: nothing is lower. (A first plan at the bound still goes to the
// portfolio, whose choice among equal plans is the result, except where
// the portfolio leaves the first planner out (firstLeftOut: millions of
// buffers): there it could only plan again to the same bound, which
// doubled the time of a transformer trace of 2 000 000 buffers, 4.1 →
// 8.7 s.)
type heuristicsStage struct{ share bool }

func (heuristicsStage) applies(_ context.Context, s *solver) bool {
	if s.atBound() && (!s.firstOnly || s.firstLeftOut()) && !s.quick {
		return false
	}
	return s.quick || s.opt.Method != "bnb" && s.opt.Method != "sat"
}
func (h heuristicsStage) run(ctx context.Context, s *solver) error {
	return s.runHeuristics(ctx, h.share)
}

// coarseStage solves the coarse restrictions of a minimisation (coarse.go).
type coarseStage struct{}

func (coarseStage) applies(ctx context.Context, s *solver) bool {
	return !s.roundedGave && s.coarseApplies() && ctx.Err() == nil && s.coarseMinimises(ctx)
}
func (coarseStage) run(ctx context.Context, s *solver) error { return s.runCoarse(ctx) }

// refineStage runs the time-window refinement ahead of the race when no
// exact engine takes the problem on (refine.go); when one does, the
// refinement is one of the race's engines instead.
type refineStage struct{}

func (refineStage) applies(ctx context.Context, s *solver) bool {
	if s.roundedGave || !s.refineApplies() || ctx.Err() != nil || s.exactTakes(ctx) {
		return false
	}
	from, _ := s.refineStart()
	return from != nil
}
func (refineStage) run(ctx context.Context, s *solver) error { return s.runRefine(ctx) }

// exactStage races the exact engines (exact.go) when the question is
// still open.
type exactStage struct{}

func (exactStage) applies(ctx context.Context, s *solver) bool { return s.exactApplies(ctx) }
func (exactStage) run(ctx context.Context, s *solver) error    { return s.runExact(ctx) }

// resumeStage gives the portfolio the time the exact engines left when its
// own share had cut it short (heuristics.go).
type resumeStage struct{}

func (resumeStage) applies(ctx context.Context, s *solver) bool { return s.resumes(ctx) }
func (resumeStage) run(ctx context.Context, s *solver) error {
	return s.runHeuristics(ctx, false)
}

// squeakyStage runs the squeaky-wheel improvement on large problems
// (improve.go).
type squeakyStage struct{}

func (squeakyStage) applies(ctx context.Context, s *solver) bool { return s.squeakyApplies(ctx) }
func (squeakyStage) run(ctx context.Context, s *solver) error    { return s.runSqueaky(ctx) }

// scratchStage grows elastic scratch buffers into free space (passes.go).
type scratchStage struct{}

func (scratchStage) applies(_ context.Context, s *solver) bool {
	return s.res.Plan != nil && hasScratch(s.p)
}
func (scratchStage) run(_ context.Context, s *solver) error { return s.fillScratch() }

// hintsStage moves hinted buffers to their hints where that costs nothing
// (passes.go).
type hintsStage struct{}

func (hintsStage) applies(_ context.Context, s *solver) bool {
	return s.res.Plan != nil && hasHints(s.p)
}
func (hintsStage) run(_ context.Context, s *solver) error { return s.honourHints() }
