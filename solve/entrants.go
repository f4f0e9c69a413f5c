package solve

import "context"

// Who joins the exact race (exact.go): each engine with the predicate
// that says when.

// raceEngines lists the engines of a race deciding capacity (0:
// minimising), each where it joins (see its predicate).
func (s *solver) raceEngines(ctx context.Context, r *race, capacity int64) []engine {
	useBnB, useSAT := s.takingEngines(ctx)
	var engines []engine
	if s.early {
		engines = append(engines, s.cheapEngine(r)) // the early race (early.go)
	}
	if s.refineRaces(ctx) {
		// First: with one thread the engines take turns (see refineEngine).
		engines = append(engines, s.refineEngine(r))
	}
	bnbRaces := useBnB && s.bnbRaces(ctx, capacity)
	if bnbRaces {
		engines = append(engines, s.bnbEngine())
	}
	if useSAT {
		e := s.satEngine()
		if !bnbRaces {
			e.delay = 0 // its grace period is for the branch-and-bound
		}
		engines = append(engines, e)
	}
	if s.portfolioRaces(capacity) {
		engines = append(engines, s.portfolioEngine(ctx))
	}
	if s.coarseRaces(ctx, capacity) {
		engines = append(engines, s.coarseEngine())
	}
	if s.windowsRace(capacity) {
		engines = append(engines, s.windowEngine(r))
	}
	return engines
}

// racing reports whether the engines race at all: methods auto and exact
// with more than one thread (with one they take turns).
func (s *solver) racing() bool {
	return s.opt.Threads != 1 && (s.opt.Method == "auto" || s.opt.Method == "exact")
}

// takingEngines returns which exact engines the race runs: those of the
// method, unless neither would take the problem on (auto and exact): then
// they stay out, and why goes to the statistics (on a chain of 1 000 000
// ops their declining took 2.9 s: the branch-and-bound's fold, SAT's
// instance and its delay). Alone (--method sat) SAT still runs: it falls
// back on its large-neighbourhood search.
func (s *solver) takingEngines(ctx context.Context) (useBnB, useSAT bool) {
	useBnB, useSAT = s.engines()
	if (s.opt.Method == "auto" || s.opt.Method == "exact") && !s.exactTakes(ctx) {
		for name, why := range s.declined {
			s.res.Stats.engine(name+"_declined", why)
		}
		return false, false
	}
	return useBnB, useSAT
}

// refineRaces reports whether the refinement is one of the race's engines:
// where it applies and an exact engine takes the problem on (else it runs
// ahead of the race, refineStage).
func (s *solver) refineRaces(ctx context.Context) bool {
	return s.refineApplies() && s.exactTakes(ctx)
}

// bnbRaces reports whether the branch-and-bound (taking the problem) joins:
// not where SAT minimises the whole problem, where its threads only take
// SAT's core (MiniMalloc with alignment 65536 on buffers ≥ 64 KiB, auto
// 60 s: K 1 235 968–1 282 048 in seven runs with them, 1 219 584–1 240 064
// in five without; G proven in 4.9–6.5 s instead of 9.9–10.5 s; C
// 1 174 528–1 189 888 with them, 1 186 816–1 189 888 without). It still
// minimises the windows of the window engine.
func (s *solver) bnbRaces(ctx context.Context, capacity int64) bool {
	return !(capacity == 0 && s.satMinimisesWhole(ctx))
}

// portfolioRaces reports whether the heuristic portfolio joins a decision:
// only with room above the bound (racesPortfolio): at the bound itself a
// heuristic plan is all but never found, and the portfolio would only slow
// the exact engines (E: 2.3 s → 4.1 s).
func (s *solver) portfolioRaces(capacity int64) bool {
	return s.racesPortfolio(capacity) && s.racing()
}

// coarseRaces reports whether the coarse restrictions join a decision:
// where they apply, unless SAT decides the whole problem, where they only
// slow it (MiniMalloc with alignment 65536 on buffers ≥ 64 KiB, two runs
// each: K at 1228800 36 s → 19–20 s, C at 1177600 11 s → 6.6 s, G at
// 1246208 4.2 s → 3.2 s).
func (s *solver) coarseRaces(ctx context.Context, capacity int64) bool {
	return capacity > 0 && s.coarseApplies() && !s.satWhole(ctx, capacity)
}

// windowsRace reports whether the window engine joins: with the
// branch-and-bound in the method (its searches are small, so also where
// the engines decline the whole problem), racing, on sparsely aligned
// problems. Windows raise the bound: a minimisation's, or above a
// capacity, which refutes it. They raise it by a few percent at most (K
// with alignment 65536: 1 136 640 → 1 168 384, 2.8%), so a capacity
// further above than 1/windowReach does not get them: they cost SAT a
// share of the cores (K at 1228800: a plan in 26 s with them, 19.4 s
// without).
func (s *solver) windowsRace(capacity int64) bool {
	useBnB, _ := s.engines()
	return useBnB && s.racing() && sparselyAligned(s.p) &&
		(capacity == 0 || capacity <= s.res.LowerBound+s.res.LowerBound/windowReach)
}

// windowReach: the window engine joins a decision only when the capacity
// is at most 1/windowReach above the lower bound.
const windowReach = 20
