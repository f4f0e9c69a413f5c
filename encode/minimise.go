package encode

import (
	"context"
	"fmt"

	"github.com/optalloc/optalloc/model"
)

// Minimise lowers the peak of pool 0 from the incumbent (nil: a first-fit
// packing) downwards. One encoding is built at the incumbent's peak − 1
// unit; every smaller height is asked through an assumption, so learned
// clauses carry over. Every plan better than the incumbent — including the
// first-fit packing when incumbent is nil — is passed to onImprove (may be
// nil), in order of decreasing peak.
// It returns the best plan and the best lower bound proven: the largest of
// lowerBound, max-live and, when a height was refuted on an exact item
// model, that height + 1 unit (then equal to the peak: the plan is
// optimal). Plans above the capacity of pool 0 (when it has one) are
// neither returned nor offered. Unless Options.NoProbe, the search
// alternates between probing the lower bound itself (a refutation raises it
// by one unit) and descending from the incumbent, each for Options.ProbeTime
// at first, doubling every round. Stats.Reason says why it stopped
// early.
func Minimise(ctx context.Context, p *model.Problem, incumbent *model.Plan, lowerBound int64, opt Options,
	onImprove func(*model.Plan)) (*model.Plan, int64, Stats, error) {
	in, err := newInstance(p, opt.RoundUp)
	if u, ok := declined(err); ok {
		return incumbent, max(lowerBound, p.ComputeSweep().MaxLive), Stats{Reason: u}, nil
	}
	if err != nil {
		return nil, 0, Stats{}, err
	}
	st := Stats{Scale: in.g}
	g := in.g
	s := in.positive()
	lb := max(lowerBound, p.ComputeSweep().MaxLive)
	best := incumbent
	off := s.gravity(incumbent)
	if off == nil {
		best = nil
		off = s.firstFit()
		if err := checkItems(s.items, off, peakOf(s.items, off)); err != nil {
			return nil, lb, st, fmt.Errorf("encode: no valid starting packing (conflicting pins?): %w", err)
		}
	}
	capacity := p.PoolList()[0].Capacity
	// improve records a better packing; one above pool 0's capacity is not
	// a valid plan, so it is neither kept nor offered.
	improve := func(o []int64, pk int64) {
		if capacity > 0 && pk*g > capacity {
			return
		}
		best = in.toPlan(s.full(o))
		if onImprove != nil {
			onImprove(best)
		}
	}
	peak := peakOf(s.items, off)
	if best == nil || peak*g < best.Peak(p) {
		improve(off, peak)
	}
	// Stop descending at the item model's own bound (units, rounded up).
	stop := max((lb+g-1)/g, maxLive(s.items, seq(len(s.items))), floorHeight(s.items))
	if !in.exact {
		st.Reason = "conservative item model (" + in.why + "): refutations prove nothing"
	}
	if peak <= stop {
		if in.exact {
			lb = max(lb, peak*g)
		}
		return best, lb, st, nil
	}
	e, inf, refused := newEncoder(s.items, peak-1, opt)
	if inf {
		if in.exact {
			lb = max(lb, peak*g)
		}
		return best, lb, st, nil
	}
	if refused != "" {
		st.Reason = refused
		if opt.LNS {
			pl, ist, ierr := Improve(ctx, p, best, opt, onImprove)
			if err = ierr; err == nil {
				best = pl
			}
			st.add(ist)
			st.Reason = refused + "; large-neighbourhood search: " + ist.Reason
		}
		return best, lb, st, err
	}
	done := func(err error) (*model.Plan, int64, Stats, error) {
		st.add(e.stats())
		return best, lb, st, err
	}
	// Alternate: probe the bound (when reachable — often, on tight
	// instances — the descent is skipped; a refutation raises it), then
	// descend from the incumbent for as long, doubling the budget each
	// round. With NoProbe, only descend.
	budget := opt.probeTime()
	for peak > stop {
		if !opt.NoProbe && peak > stop+1 {
			pctx, cancel := context.WithTimeout(ctx, budget)
			r := e.solve(pctx, e.height(stop))
			cancel()
			switch {
			case r == 1:
				o := e.offsets()
				if err := checkItems(s.items, o, stop); err != nil {
					return done(err)
				}
				peak = peakOf(s.items, o)
				improve(o, peak)
				continue
			case r == -1 && !e.dead:
				stop++ // refuted: the item model's optimum is above
				if in.exact {
					lb = max(lb, stop*g)
				}
				continue
			}
		}
		dctx, cancel := ctx, context.CancelFunc(func() {})
		if !opt.NoProbe {
			dctx, cancel = context.WithTimeout(ctx, budget)
		}
		for peak > stop && dctx.Err() == nil {
			h := peak - 1
			r := e.solve(dctx, e.height(h))
			if r == 1 {
				o := e.offsets()
				if err := checkItems(s.items, o, h); err != nil {
					cancel()
					return done(err)
				}
				peak = peakOf(s.items, o)
				improve(o, peak)
				continue
			}
			if r == -1 {
				cancel()
				if in.exact {
					lb = max(lb, peak*g)
				}
				return done(nil)
			}
		}
		cancel()
		if ctx.Err() != nil {
			st.Reason = "stopped: " + context.Cause(ctx).Error()
			return done(nil)
		}
		budget *= 2
	}
	if in.exact {
		lb = max(lb, peak*g)
	}
	return done(nil)
}
