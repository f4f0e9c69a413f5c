package sat

import (
	"context"
	"fmt"

	"github.com/optalloc/optalloc/model"
)

// descent is where Minimise and Gallop start: the item model, the lower
// bound (the given one, at least max-live), and the best plan — the
// incumbent, or its push-down when that is lower, or a first-fit packing
// when there is no incumbent — offered through onImprove when new.
type descent struct {
	p         *model.Problem
	in        *instance
	s         *sub
	lb        int64
	best      *model.Plan
	peak      int64 // the starting packing's peak, in units
	capacity  int64 // pool 0's, in bytes (0: none)
	onImprove func(*model.Plan)
	st        Stats
}

// startDescent returns the start of a descent; its item model is nil when
// the encoding declines p (Stats.Reason says why: the callers return the
// incumbent and the bound). The error is newInstance's, or says that p has
// no valid starting packing (colliding pins).
func startDescent(ctx context.Context, p *model.Problem, incumbent *model.Plan, lowerBound int64, opt Options, onImprove func(*model.Plan)) (*descent, error) {
	lb := max(lowerBound, p.ComputeSweep().MaxLive)
	in, err := newInstance(p, opt.RoundUp)
	if u, ok := declined(err); ok {
		return &descent{lb: lb, best: incumbent, st: Stats{Reason: u}}, nil
	}
	if err != nil {
		return nil, err
	}
	d := &descent{p: p, in: in, s: in.positive(), lb: lb, best: incumbent, capacity: p.PoolList()[0].Capacity,
		onImprove: onImprove, st: Stats{Scale: in.g}}
	decline := func(reason string) (*descent, error) {
		return &descent{lb: lb, best: incumbent, st: Stats{Scale: in.g, Reason: reason}}, nil
	}
	if !opt.LNS && (incumbent != nil || len(d.s.items) > firstFitMaxItems) {
		// Every height asked is at least the bound, where the encoding is
		// smallest: over the budget there, decline before the starting
		// packing, whose cost grows with the square of the number of
		// buffers (a 62 000-buffer trace kept a race waiting for minutes).
		// A caller without a plan still gets a first fit when it is cheap,
		// and with LNS the starting packing is what Improve works on.
		if refused := domainGuard(d.s.items, (lb+in.g-1)/in.g, opt); refused != "" {
			return decline(refused)
		}
	}
	off := d.s.gravity(ctx, incumbent)
	if off == nil {
		d.best = nil
		if off = d.s.firstFit(ctx); off == nil {
			return decline("stopped: " + context.Cause(ctx).Error())
		}
		if err := checkItems(d.s.items, off, peakOf(d.s.items, off)); err != nil {
			return nil, fmt.Errorf("encode: no valid starting packing (conflicting pins?): %w", err)
		}
	}
	d.peak = peakOf(d.s.items, off)
	if d.best == nil || d.peak*in.g < d.best.Peak(p) {
		d.improve(off, d.peak)
	}
	return d, nil
}

// improve records a better packing (units, peak pk); one above pool 0's
// capacity is not a valid plan, so it is neither kept nor offered.
func (d *descent) improve(o []int64, pk int64) {
	if d.capacity > 0 && pk*d.in.g > d.capacity {
		return
	}
	d.best = d.in.toPlan(d.s.full(o))
	if d.onImprove != nil {
		d.onImprove(d.best)
	}
}

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
	return descend(ctx, p, incumbent, lowerBound, opt, onImprove, func(d *descent) (*model.Plan, int64, Stats, error) {
		return minimiseFrom(ctx, d, opt)
	})
}

// descend starts a descent (startDescent) and runs from on it; a problem
// the encoding declines gets the incumbent and the bound back.
func descend(ctx context.Context, p *model.Problem, incumbent *model.Plan, lowerBound int64, opt Options, onImprove func(*model.Plan),
	from func(d *descent) (*model.Plan, int64, Stats, error)) (*model.Plan, int64, Stats, error) {
	d, err := startDescent(ctx, p, incumbent, lowerBound, opt, onImprove)
	if err != nil {
		return nil, 0, Stats{}, err
	}
	if d.in == nil { // declined
		return d.best, d.lb, d.st, nil
	}
	return from(d)
}

// minimiseFrom runs Minimise's descent from d.
func minimiseFrom(ctx context.Context, d *descent, opt Options) (*model.Plan, int64, Stats, error) {
	in, s, g, lb, peak, st := d.in, d.s, d.in.g, d.lb, d.peak, d.st
	// Stop descending at the item model's own bound (units, rounded up).
	stop := max((lb+g-1)/g, maxLive(s.items, seq(len(s.items))), floorHeight(s.items))
	if !in.exact {
		st.Reason = "conservative item model (" + in.why + "): refutations prove nothing"
	}
	if peak <= stop {
		if in.exact {
			lb = max(lb, peak*g)
		}
		return d.best, lb, st, nil
	}
	e, inf, refused := newEncoder(ctx, s.items, peak-1, opt)
	if inf {
		if in.exact {
			lb = max(lb, peak*g)
		}
		return d.best, lb, st, nil
	}
	if refused != "" {
		st.Reason = refused
		if opt.LNS {
			pl, ist, err := Improve(ctx, d.p, d.best, opt, d.onImprove)
			if err == nil {
				d.best = pl
			}
			st.add(ist)
			st.Reason = refused + "; large-neighbourhood search: " + ist.Reason
			return d.best, lb, st, err
		}
		return d.best, lb, st, nil
	}
	done := func(err error) (*model.Plan, int64, Stats, error) {
		st.add(e.stats())
		return d.best, lb, st, err
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
				d.improve(o, peak)
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
				d.improve(o, peak)
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
