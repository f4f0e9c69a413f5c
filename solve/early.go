package solve

import "context"

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
// their plan. Not with one thread (the result would depend on the
// machine's speed), not without a time limit (nothing to share), not on
// problems the rounded problem plans (rounded.go), and not in a decision,
// which goes to the race after one quick plan anyway.
type earlyRaceStage struct{}

func (earlyRaceStage) applies(ctx context.Context, s *solver) bool {
	if s.quick || s.restricted || s.opt.Threads == 1 || ctx.Err() != nil || s.p.PoolList()[0].Capacity > 0 ||
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
	return s.runExact(ectx)
}
