package sat

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/optalloc/optalloc/model"
)

// Gallop lowers the peak of pool 0 from the incumbent (nil: a first-fit
// packing) like Minimise, with heights that gallop downwards. The first
// step below the best peak is a quarter of the gap to the bound; a plan
// found doubles it, a refutation raises the bound (on an exact item model)
// and halves it, a call that runs out of time quarters it, and no later
// call goes at or below that height again (they bisect between it and the
// best peak) until the time per call doubles: after two misses in a row,
// or when nothing is left between the miss and the best peak. An encoding
// is built at the first height asked and reused, through the height
// assumption, for every height below it (learned clauses carry over); a
// height above it gets a new one.
//
// Minimise instead descends one unit at a time from the incumbent; that
// suits small problems. Where the incumbent is far above the optimum it
// crawls: MiniMalloc K with alignment 65536 on its buffers ≥ 64 KiB
// (454 buffers), from a first-fit packing at 1430 KiB, is at 1426 KiB
// after 90 s (77 calls, 32 M clauses). Gallop from the same start reaches
// 1203 KiB in 28 s on one encoding built at 1351 KiB (a fresh encoding per
// height: 1213 KiB in 26 s, each call 3–5 s instead of 1.5–1.7 s).
//
// The returned plan, bound and onImprove calls follow Minimise's contract.
// Stats add up the encodings; Stats.Reason says why it stopped early.
func Gallop(ctx context.Context, p *model.Problem, incumbent *model.Plan, lowerBound int64, opt Options,
	onImprove func(*model.Plan)) (*model.Plan, int64, Stats, error) {
	return descend(ctx, p, incumbent, lowerBound, opt, onImprove, func(d *descent) (*model.Plan, int64, Stats, error) {
		return gallopFrom(ctx, d, opt)
	})
}

// gallopFrom runs Gallop's descent from d.
func gallopFrom(ctx context.Context, d *descent, opt Options) (*model.Plan, int64, Stats, error) {
	g := d.in.g
	// Nothing to descend from when the first-fit packing is above the
	// pool's capacity (no plan): then the capacity itself is asked first.
	ub := (d.capacity/g + 1) * g
	if d.best != nil {
		ub = d.best.Peak(d.p)
	}
	// Every height asked is below ub, and the encoding just below it is the
	// largest: when that is over budget, decline at once, even where the
	// descent would end before building one (mindspore bert_base with
	// alignment 64, 5 620 buffers, far over budget: the first version
	// tried every lower height, each with a first fit, and made the race
	// wait 5 s).
	if _, _, _, _, refused := admit(ctx, d.s.items, (ub-1)/g, opt); refused != "" {
		d.st.Reason = refused
		return d.best, d.lb, d.st, nil
	}
	in, items, lb, st := d.in, d.s.items, d.lb, d.st
	var e *encoder
	finish := func(reason string) (*model.Plan, int64, Stats, error) {
		if e != nil {
			st.add(e.stats())
			e = nil
		}
		if reason != "" && st.Reason == "" {
			st.Reason = reason
		}
		if d.best == nil {
			return nil, lb, st, nil
		}
		return d.best, min(lb, ub), st, nil
	}
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
			if d.best != nil && in.exact {
				lb = ub
			}
			return finish("")
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
		if e == nil || h > e.hmax {
			if e != nil {
				st.add(e.stats())
			}
			var inf bool
			var refused string
			e, inf, refused = newEncoder(ctx, items, h, opt)
			switch {
			case refused != "":
				// Lower heights have smaller encodings, but not by much
				// (K: 7.6 M clauses at 1351 units, 6.2 M at 1110).
				return finish(refused)
			case inf: // some item has no offset under h
				if !in.exact {
					return finish("conservative item model (" + in.why + "): no proof")
				}
				lb = max(lb, (h+1)*g)
				step = max(1, step/2)
				continue
			}
		}
		dctx, cancel := context.WithTimeout(ctx, budget)
		r := e.solve(dctx, e.height(h))
		cancel()
		if r != 0 {
			misses = 0
		}
		switch r {
		case 1:
			off := e.offsets()
			if err := checkItems(items, off, h); err != nil {
				pl, bound, st, _ := finish("")
				return pl, bound, st, err
			}
			d.improve(off, peakOf(items, off))
			ub = d.best.Peak(d.p)
			step *= 2
		case -1:
			if !in.exact {
				return finish("conservative item model (" + in.why + "): no proof")
			}
			if e.dead { // refuted without the height: every height up to hmax
				lb = max(lb, (e.hmax+1)*g)
				st.add(e.stats())
				e = nil
			}
			lb = max(lb, (h+1)*g)
			step = max(1, step/2)
		default:
			if ctx.Err() != nil {
				break
			}
			hard = h
			misses++
			step = max(1, step/4)
		}
	}
	return finish("stopped: " + context.Cause(ctx).Error())
}

// quickGuard refuses, in O(n) and without building anything, a problem
// whose offset variables under height are over the budget for sure
// (building the instance took 0.6 s on 1 000 000 buffers, to refuse it).
// Every offset an item may take is a multiple of lcm(its alignment in the
// pool, the encoding's unit), and that unit divides the GCD of the sizes,
// so counting the multiples of lcm(alignment, GCD of sizes) up to height
// − size undercounts them. Sizes rounded up (RoundUp) are not counted here.
func quickGuard(p *model.Problem, height int64, opt Options) string {
	if opt.RoundUp > 1 || len(p.PoolList()) != 1 {
		return ""
	}
	var g int64
	for i := range p.Buffers {
		g = model.GCD(g, p.Buffers[i].Size)
	}
	if g <= 0 {
		return ""
	}
	pool := &p.PoolList()[0]
	var vars int64
	n := 0
	for i := range p.Buffers {
		b := &p.Buffers[i]
		if b.Alias != nil || b.Size <= 0 {
			continue
		}
		n++
		if b.Pin != nil {
			vars++
			continue
		}
		a := b.AlignmentIn(pool)
		if a <= 0 || a/model.GCD(a, g) > math.MaxInt64/g {
			return "" // not valid, or no small step: newInstance decides
		}
		step := a / model.GCD(a, g) * g
		vars += max(height-b.Size, 0)/step + 1
		if vars > opt.maxVars() {
			return fmt.Sprintf("encoding of more than %d buffers under %d bytes would need more than %d variables for the offsets alone (over budget)",
				n, height, opt.maxVars())
		}
	}
	return ""
}

// gallopTime is the first time limit of each of Gallop's solver calls.
func (o *Options) gallopTime() time.Duration {
	if o.ProbeTime > 0 {
		return o.ProbeTime
	}
	return 8 * time.Second
}

// Admits reports whether the encoding of p under height bytes stays within
// opt's budget, without building it, and why not when it does not (Gallop
// declines such a problem at once). A problem the encoder does not
// support, or with no offset for some buffer under height, is not admitted.
func Admits(p *model.Problem, height int64, opt Options) (bool, string) {
	return AdmitsContext(context.Background(), p, height, opt)
}

// AdmitsContext is Admits that stops, not admitting p, when ctx ends: on
// large problems the check costs the pairs of buffers alive together.
func AdmitsContext(ctx context.Context, p *model.Problem, height int64, opt Options) (bool, string) {
	if why := quickGuard(p, height, opt); why != "" {
		return false, why
	}
	in, err := newInstance(p, opt.RoundUp)
	if err != nil {
		return false, err.Error()
	}
	_, _, _, inf, refused := admit(ctx, in.positive().items, height/in.g, opt)
	switch {
	case refused != "":
		return false, refused
	case inf:
		return false, "a buffer has no offset under the height"
	}
	return true, ""
}
