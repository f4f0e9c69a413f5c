package solve

import (
	"context"
	"time"

	"github.com/optalloc/optalloc/bounds"
	"github.com/optalloc/optalloc/model"
)

// Bound is a proven lower bound on the peak and how it was proven (see
// bounds.Prove).
type Bound = bounds.Proven

// ProveBound tries to raise the lower bound of a single-pool problem before
// ctx ends (opt.TimeLimit applies): bounds.Prove with the engines' options
// of opt.
func ProveBound(ctx context.Context, p *model.Problem, opt Options) (*Bound, error) {
	return bounds.Prove(ctx, p, opt.boundsOptions())
}

// boundsOptions are the options of the bound provers.
func (o Options) boundsOptions() bounds.Options {
	return bounds.Options{TimeLimit: o.TimeLimit, Threads: o.Threads, Seed: o.Seed,
		NoBnB: o.NoBnB, NoSAT: o.NoSAT, BnB: o.BnB, SAT: o.SAT}
}

// startBound computes the lower bound a single-pool solve starts from:
// the best of bounds.Start (max-live, the alignment bound, the pins' top:
// a chain of 100 000 ops with a fifth of its buffers pinned where
// greedy-size had them reached the pins' top in the refinement, which
// max-live alone reported 2.47% above it instead of optimal).
//
// With a deadline the bound gets at most half of the time left (boundShare):
// the alignment bound of a staircase of 20 000 aligned buffers took 61 s
// under a 1 s limit; stopped, it keeps the best section bound so far.
func (s *solver) startBound(ctx context.Context) error {
	t := time.Now()
	ctx, cancel := boundShare(ctx)
	defer cancel()
	b, err := bounds.Best(ctx, s.p, bounds.Start...)
	if err != nil {
		return err
	}
	s.res.LowerBound, s.boundName = b.Value, b.By
	s.res.Stats.phase("bounds", t)
	return nil
}

// boundShare bounds ctx to half of the time left, if any, counted in CPU
// time on one thread (cpuclock.go).
func boundShare(ctx context.Context) (context.Context, context.CancelFunc) {
	return withShare(ctx, 2, 1)
}

// lbName names the bound the solve started from.
func (s *solver) lbName() string {
	if s.boundName == "" {
		return "max-live"
	}
	return s.boundName
}
