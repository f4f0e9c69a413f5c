package bnb

import (
	"context"
	"sync"
	"sync/atomic"
)

// compSolver decides capacities for one component with a portfolio of
// static orders. Its searchers (and their tables of failed states) live as
// long as the solver, so what one decision learned helps the next, smaller
// capacity.
type compSolver struct {
	c        *comp
	opt      Options
	names    []string
	orders   [][]int32
	searcher []*searcher
	count    []counters
	stalled  []bool         // order k's deepest state did not grow in its last round
	depth    []atomic.Int64 // order k's deepest state (placed items), read by every worker
}

func newCompSolver(c *comp, opt Options) *compSolver {
	cs := &compSolver{c: c, opt: opt}
	for k, name := range opt.orders() {
		cs.names = append(cs.names, name)
		cs.orders = append(cs.orders, staticOrder(c, baseOrder(name), uint64(opt.Seed)+uint64(k)))
	}
	cs.searcher = make([]*searcher, len(cs.orders))
	cs.count = make([]counters, len(cs.orders))
	cs.stalled = make([]bool, len(cs.orders))
	cs.depth = make([]atomic.Int64, len(cs.orders))
	return cs
}

// decideResult is the answer of one decision.
type decideResult struct {
	status Status
	off    []int64 // scaled item offsets (local indices) when feasible
	winner string
	rounds int
}

// decide runs the portfolio at the given (scaled) capacity: every worker
// owns some static orders and runs them in turn, each with a node limit
// that doubles every round; the first complete answer (a plan, or an
// exhausted search) wins and stops the others. An order's search either
// starts afresh each turn or goes on where it paused (resume.go); paused
// searches end with the decision.
//
// It runs the rounds from, from+1, ..., from+rounds−1 (rounds ≤ 0: no
// bound; with a bound the answer is Unknown when no order finished within
// them, a cheap probe). Round r
// has the limit NodeLimit·2^r; negative rounds (Decide's first probes) have
// a fraction of NodeLimit.
func (cs *compSolver) decide(ctx context.Context, capacity int64, from, rounds int) decideResult {
	c := cs.c
	if capacity < c.maxLive || capacity < c.maxPin {
		return decideResult{status: Infeasible, winner: "bound"}
	}
	threads := min(cs.opt.threads(), len(cs.orders))
	base := cs.opt.NodeLimit
	if base <= 0 {
		base = 8192
	}
	var stop atomic.Bool
	var once sync.Once
	res := decideResult{status: Unknown}
	runs := make([]*runner, len(cs.orders)) // paused searches (resume.go)
	defer func() {
		for _, r := range runs {
			r.kill()
		}
	}()
	var wg sync.WaitGroup
	for w := 0; w < threads; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for round := from; rounds <= 0 || round < from+rounds; round++ {
				for k := w; k < len(cs.orders); k += threads {
					if stop.Load() || ctx.Err() != nil {
						return
					}
					s := cs.searcher[k]
					if cs.names[k] == "random" && round > 0 {
						// A fresh shuffle every round: restarts that
						// differ, against heavy-tailed searches.
						cs.orders[k] = staticOrder(c, "random", uint64(cs.opt.Seed)+uint64(k)+uint64(round)<<20)
						s = nil
						cs.depth[k].Store(0)
					}
					limit := roundLimit(base, round-cs.lag(k, round))
					if s == nil {
						fl := orderFlags(cs.names[k], cs.opt.flags())
						if cs.names[k] == "random" {
							// Searched for one round only (it lags, so
							// mostly a few hundred nodes): a table of
							// failed states for what that round can
							// store, not 1 M slots cleared every round.
							if m := max(4*(limit+checkEvery), 1<<12); fl.memoMax <= 0 || int64(fl.memoMax) > m {
								fl.memoMax = int(m)
							}
						}
						s = newSearcher(c, cs.orders[k], fl, &cs.count[k])
						cs.searcher[k] = s
					}
					d0 := s.maxPlaced
					var found, paused bool
					if cs.opt.NoContinue || cs.names[k] == "random" {
						s.stop, s.ctx = &stop, ctx
						s.reset(capacity)
						s.nodes = 0
						s.limit = limit
						found = s.solve(0)
					} else {
						if runs[k] != nil && !cs.goesOn(k) {
							runs[k].kill() // start afresh
							runs[k] = nil
						}
						if runs[k] != nil {
							limit += s.nodes // the round's limit in new nodes
							cs.count[k].Resumed++
						} else {
							runs[k] = startRunner(s, capacity)
						}
						var done bool
						found, done = runs[k].run(limit, &stop, ctx)
						paused = !done
						if done {
							runs[k] = nil
						}
					}
					cs.stalled[k] = round >= 0 && s.maxPlaced == d0
					cs.depth[k].Store(int64(s.maxPlaced))
					if !found && (paused || s.aborted) {
						continue
					}
					once.Do(func() {
						res.winner, res.rounds = cs.names[k], round-from+1
						if found {
							res.status = Feasible
							res.off = append([]int64(nil), s.off...)
						} else {
							res.status = Infeasible
						}
						stop.Store(true)
					})
					return
				}
			}
		}(w)
	}
	wg.Wait()
	return res
}

// lagRounds is how many rounds a lagging order runs behind the others.
const lagRounds = 8

// lag is how many rounds order k runs behind in round r ≥ 1: an order whose
// deepest state is under half the portfolio's deepest, or whose deepest
// state did not grow in its last round, gets the limit of round
// r−lagRounds (still doubling every round, so every order's search stays
// complete). On I (issue 44) the orders that stay shallow or stuck took most
// of the nodes before the one that decides (TLR) reached its round. A fresh
// random shuffle has no depth yet, so "random", shuffled afresh every round,
// lags in every round, round 0 and Decide's warm-up rounds included: it
// joins with real budgets from round lagRounds on (a diversifier for long
// searches) instead of taking a full first round in every decision (on A–K
// it wins none; A, D, E, I and J take 4–8k nodes fewer without it).
func (cs *compSolver) lag(k, round int) int {
	if cs.opt.NoLag {
		return 0
	}
	if cs.names != nil && cs.names[k] == "random" {
		return lagRounds
	}
	if round <= 0 {
		return 0
	}
	var deepest int64
	for j := range cs.depth {
		deepest = max(deepest, cs.depth[j].Load())
	}
	if cs.stalled[k] || 2*cs.depth[k].Load() < deepest {
		return lagRounds
	}
	return 0
}

// stats moves the counters of every worker into st.
func (cs *compSolver) stats(st *Stats) {
	for k := range cs.count {
		st.absorb(&cs.count[k])
		cs.count[k] = counters{}
	}
}

// roundLimit is the node limit of a round: base·2^round, at least 1.
func roundLimit(base int64, round int) int64 {
	if round < 0 {
		return max(base>>min(-round, 62), 1)
	}
	return base << min(round, 40)
}
