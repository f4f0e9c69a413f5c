package encode

import (
	"context"
	"time"

	"github.com/optalloc/optalloc/model"
)

// Gallop lowers the peak of pool 0 from the incumbent (nil: a first-fit
// packing) like Minimise, but with a fresh encoding for every height it
// asks, and heights that gallop downwards. The first step below the best
// peak is a quarter of the gap to the bound; a plan found doubles it, a
// refutation raises the bound (on an exact item model) and halves it, a
// call that runs out of time quarters it, and no later call goes at or
// below that height again (they bisect between it and the best peak)
// until the time per call doubles: after two misses in a row, or when
// nothing is left between the miss and the best peak.
//
// Minimise builds one encoding at the incumbent's height and descends one
// unit at a time; that suits small problems, where the encoding is cheap
// and learned clauses pay. Where the incumbent is far above the optimum it
// crawls: MiniMalloc K with alignment 65536 on its buffers ≥ 64 KiB
// (454 buffers), from a first-fit packing at 1430 KiB, is at 1426 KiB
// after 90 s (77 calls, 32 M clauses), while single decisions from scratch answer
// 1300 KiB in 2.7 s, 1250 KiB in 5 s, 1200 KiB in 11 s. Each encoding is
// also smaller the lower its height.
//
// The returned plan, bound and onImprove calls follow Minimise's contract.
// Stats add up the encodings; Stats.Reason says why it stopped early.
func Gallop(ctx context.Context, p *model.Problem, incumbent *model.Plan, lowerBound int64, opt Options,
	onImprove func(*model.Plan)) (*model.Plan, int64, Stats, error) {
	d, err := startDescent(p, incumbent, lowerBound, opt, onImprove)
	if err != nil {
		return nil, 0, Stats{}, err
	}
	if d.in == nil { // declined
		return d.best, d.lb, d.st, nil
	}
	g := d.in.g
	// Every height asked is below the starting one, whose encoding is the
	// largest: when that is over budget, decline at once, before any
	// decision pays for a first fit (mindspore bert_base with alignment
	// 64, 5 620 buffers: 5 s of the race's 7 s).
	top := d.capacity / g
	if d.best != nil {
		top = (d.best.Peak(p) - 1) / g
	}
	if _, _, _, _, refused := admit(d.s.items, top, opt); refused != "" {
		d.st.Reason = refused
		return d.best, d.lb, d.st, nil
	}
	if d.best == nil {
		// Nothing to descend from: a first-fit packing above the pool's
		// capacity is no plan. Ask the capacity itself first.
		return gallopFrom(ctx, p, nil, d.capacity+g, d.lb, g, d.in.exact, opt, onImprove, d.st)
	}
	return gallopFrom(ctx, p, d.best, d.best.Peak(p), d.lb, g, d.in.exact, opt, onImprove, d.st)
}

// gallopFrom runs Gallop's descent below ub (bytes; the peak of best when
// best is not nil).
func gallopFrom(ctx context.Context, p *model.Problem, best *model.Plan, ub, lb, g int64, exact bool, opt Options,
	onImprove func(*model.Plan), st Stats) (*model.Plan, int64, Stats, error) {
	// The first step is a quarter of the gap: heuristic incumbents of the
	// problems Gallop is for sit far above the optimum (K with alignment:
	// 1328 units against a bound of 1110).
	step := max(1, ((ub-1)/g-(lb+g-1)/g)/4) // units below the largest height under ub
	budget := opt.gallopTime()
	hard := int64(-1) // the highest height (units) that ran out of this budget
	misses := 0       // calls in a row that ran out of time
	for ctx.Err() == nil {
		hi, lo := (ub-1)/g, (lb+g-1)/g
		if hi < lo {
			// No multiple of g lies in [lb, ub): every pushed-down
			// plan's peak is one, so ub is optimal.
			if best != nil && exact {
				lb = ub
			}
			break
		}
		if hard >= hi || misses == 2 {
			// Close to what this budget can reach: allow twice as much,
			// forget which heights ran out, and start again a quarter of
			// the gap below the best peak.
			budget *= 2
			hard, misses = -1, 0
			step = max(1, (hi-lo)/4)
		}
		h := max(lo, hi-step+1)
		if h <= hard {
			h = hard + (hi-hard+1)/2 // between what ran out and the best peak
		}
		dctx, cancel := context.WithTimeout(ctx, budget)
		pl, status, dst, err := Decide(dctx, p, h*g, opt)
		cancel()
		st.add(dst)
		if err != nil {
			return best, lb, st, err
		}
		if status != Unknown {
			misses = 0
		}
		switch status {
		case Feasible:
			best, ub = pl, pl.Peak(p)
			if onImprove != nil {
				onImprove(best)
			}
			step *= 2
		case Infeasible:
			lb = max(lb, (h+1)*g)
			step = max(1, step/2)
		default:
			if ctx.Err() != nil {
				st.Reason = "stopped: " + context.Cause(ctx).Error()
				return best, min(lb, ub), st, nil
			}
			if dctx.Err() == nil {
				// Declined (over budget). A lower height's encoding is
				// smaller, but not by much (K: 7.6 M clauses at 1351
				// units, 6.2 M at 1110), and each refusal costs a first
				// fit: on mindspore bert_base with alignment 64, trying
				// every lower height made the race wait about 5 s.
				st.Reason = dst.Reason
				return best, min(lb, ub), st, nil
			}
			hard = h
			misses++
			step = max(1, step/4)
		}
	}
	if ctx.Err() != nil && st.Reason == "" {
		st.Reason = "stopped: " + context.Cause(ctx).Error()
	}
	if best == nil {
		return nil, lb, st, nil
	}
	return best, min(lb, ub), st, nil
}

// gallopTime is the first time limit of each of Gallop's decisions.
func (o *Options) gallopTime() time.Duration {
	if o.ProbeTime > 0 {
		return o.ProbeTime
	}
	return 8 * time.Second
}
