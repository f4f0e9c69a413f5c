package solve

import (
	"context"

	"github.com/optalloc/optalloc/heuristics"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/refine"
)

// earlyRaceShare: the exact race run before the heuristics
// (earlyRaceStage) takes at most 1/earlyRaceShare of the time left, in CPU
// time (cpuclock.go), and at most earlyRace.
const earlyRaceShare = 20

// earlyRaceStage races the exact engines briefly before the heuristic
// portfolio when minimising a problem one of them takes on: where the
// branch-and-bound proves the optimum at once (MiniMalloc G and H: in
// 0.12–0.16 s, after the portfolio's fifth of the time), the portfolio's
// share is no longer spent first; it is skipped when the race's plan
// meets the bound (heuristicsStage). Where the race does not close the gap
// it costs its share, and the race after the heuristics starts again from
// their plan. Not on problems the refinement takes on (refine.MinBuffers
// buffers or more): there the race is the refinement's and the stack's
// long work, and the early race only cost its share (mindspore bert_base,
// proven by the stack in the race: 1.2 s → 1.9 s). Not with one thread (the result would depend on the
// machine's speed), not without a time limit (nothing to share), not on
// problems the rounded problem plans (rounded.go), and not in a decision,
// which goes to the race after one quick plan anyway.
type earlyRaceStage struct{}

func (earlyRaceStage) applies(ctx context.Context, s *solver) bool {
	if s.quick || s.restricted || s.opt.Threads == 1 || ctx.Err() != nil || s.p.PoolList()[0].Capacity > 0 ||
		len(s.p.Buffers) >= refine.MinBuffers ||
		s.opt.Method != "auto" && s.opt.Method != "exact" || s.roundedApplies() {
		return false
	}
	if _, ok := timeLeft(ctx); !ok {
		return false
	}
	return s.exactApplies(ctx) && s.exactTakes(ctx)
}

func (earlyRaceStage) run(ctx context.Context, s *solver) error {
	d, _ := shareOf(ctx, earlyRaceShare)
	ectx, cancel := withCPU(ctx, min(d, earlyRace), s.parallelism())
	defer cancel()
	s.early = true
	defer func() { s.early = false }()
	return s.runExact(ectx)
}

// cheapEngine races the exact engines in the early race (s.early) with the
// portfolio's cheap planners (no search, one thread): where one of them
// reaches the bound at once (mindspore tiny_bert: firstfit-peak in 0.3 s;
// iopddl-G_1: firstfit-area in 0.06 s) the branch-and-bound alone took
// longer (0.9–1.5 s and 0.12–0.2 s), and where the branch-and-bound proves
// the optimum at once (MiniMalloc G) running them first took 0.5 s more.
// Its plans are offered under their planners' names.
func (s *solver) cheapEngine(r *race) engine {
	return engine{
		name: "cheap",
		minimise: func(ctx context.Context, p *model.Problem, _ *model.Plan, lb int64, _ func(*model.Plan)) (int64, any, error) {
			plan, name, err := heuristics.Portfolio(ctx, p, heuristics.PortfolioOptions{
				Threads: 1, Seed: s.opt.Seed, LowerBound: lb, NoSearch: true,
				Without: []string{heuristics.FirstPlanner(p)}, Validated: true})
			if plan == nil {
				if err != nil && ctx.Err() == nil {
					return lb, nil, err
				}
				return lb, nil, nil
			}
			r.offer(plan, name)
			return lb, map[string]any{"winner": name, "peak": plan.Peak(p)}, nil
		},
	}
}
