package solve

import (
	"context"

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

// startBound is the lower bound a single-pool solve starts from.
func (s *solver) startBound() (int64, string) {
	r := bounds.Align(s.p)
	if top := bounds.PinTop(s.p); top > r.LowerBound {
		// A chain of 100 000 ops with a fifth of its buffers pinned
		// where greedy-size had them: the refinement reached the pins'
		// top, reported 2.47% above max-live instead of optimal.
		return top, "the pins' top"
	}
	return r.LowerBound, r.Name()
}

// lbName names the bound the solve started from.
func (s *solver) lbName() string {
	if s.boundName == "" {
		return "max-live"
	}
	return s.boundName
}
