package solve

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/optalloc/optalloc/encode"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/solve/bnb"
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
	lb     int64 // best proven lower bound
	err    error
	// refuted names the engine that proved no plan fits the capacity.
	refuted string
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

func (r *race) fail(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err == nil && err != nil {
		r.err = err
		r.cancel()
	}
}

// raise records a proven lower bound and stops the race once it meets the
// best plan.
func (r *race) raise(lb int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lb = max(r.lb, lb)
	if r.s.res.Plan != nil && r.s.res.Peak <= r.lb {
		r.cancel()
	}
}

func (r *race) stats(name string, st any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.s.res.Stats.Engines == nil {
		r.s.res.Stats.Engines = map[string]any{}
	}
	r.s.res.Stats.Engines[name] = st
}

// runExact closes the gap with the exact engines (methods auto, exact, bnb,
// sat): a decision at the pool's capacity when it has one, else
// minimisation from the best heuristic plan down to the lower bound.
func (s *solver) runExact(ctx context.Context) error {
	useBnB, useSAT := s.engines()
	if !useBnB && !useSAT || ctx.Err() != nil {
		return nil
	}
	capacity := s.p.PoolList()[0].Capacity
	if capacity > 0 && (s.res.Plan != nil || s.res.LowerBound > capacity) {
		return nil // already decided: a heuristic plan fits, or max-live refutes
	}
	if capacity == 0 && s.res.Plan != nil && s.res.Peak <= s.res.LowerBound {
		return nil // the heuristic plan meets max-live: optimal
	}
	t := time.Now()
	defer s.res.Stats.phase("exact", t)
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	r := &race{s: s, cancel: cancel, lb: s.res.LowerBound}
	var wg sync.WaitGroup
	if useBnB {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.runBnB(rctx, capacity)
		}()
	}
	if useSAT {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.runSAT(rctx, capacity)
		}()
	}
	wg.Wait()
	if r.err != nil {
		return r.err
	}
	s.res.LowerBound = max(s.res.LowerBound, r.lb)
	if r.refuted != "" && s.res.Plan == nil {
		s.refutedBy = r.refuted
	}
	return nil
}

func (r *race) runBnB(ctx context.Context, capacity int64) {
	s := r.s
	opt := s.opt.BnB
	opt.Threads, opt.Seed = s.opt.Threads, s.opt.Seed
	if capacity > 0 {
		plan, status, st, err := bnb.Decide(ctx, s.p, capacity, opt)
		r.stats("bnb", st)
		switch {
		case err != nil:
			r.fail(fmt.Errorf("bnb: %w", err))
		case status == bnb.Feasible:
			r.offer(plan, "bnb")
			r.cancel()
		case status == bnb.Infeasible:
			r.mu.Lock()
			r.refuted = "bnb"
			r.mu.Unlock()
			r.cancel()
		}
		return
	}
	r.mu.Lock()
	incumbent := s.res.Plan
	r.mu.Unlock()
	_, lb, st, err := bnb.Minimise(ctx, s.p, incumbent, s.res.LowerBound, opt, func(pl *model.Plan) { r.offer(pl, "bnb") })
	r.stats("bnb", st)
	if err != nil {
		r.fail(fmt.Errorf("bnb: %w", err))
		return
	}
	r.raise(lb)
}

func (r *race) runSAT(ctx context.Context, capacity int64) {
	s := r.s
	if capacity > 0 {
		plan, status, st, err := encode.Decide(ctx, s.p, capacity, s.opt.SAT)
		r.stats("sat", st)
		switch {
		case err != nil:
			r.fail(fmt.Errorf("sat: %w", err))
		case status == encode.Feasible:
			r.offer(plan, "sat")
			r.cancel()
		case status == encode.Infeasible:
			r.mu.Lock()
			r.refuted = "sat"
			r.mu.Unlock()
			r.cancel()
		}
		return
	}
	r.mu.Lock()
	incumbent := s.res.Plan
	r.mu.Unlock()
	_, lb, st, err := encode.Minimise(ctx, s.p, incumbent, s.res.LowerBound, s.opt.SAT, func(pl *model.Plan) { r.offer(pl, "sat") })
	r.stats("sat", st)
	if err != nil {
		r.fail(fmt.Errorf("sat: %w", err))
		return
	}
	r.raise(lb)
}
