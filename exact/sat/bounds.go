package sat

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/optalloc/optalloc/model"
)

// ProveLowerBound returns the best lower bound on the peak of pool 0 it can
// prove before ctx is done, and how it was proven. It starts from max-live
// and tries two relaxations, each of which proves "the peak exceeds C" when
// gini refutes it at height C:
//
//   - time windows: the buffers live in consecutive sections, clipped to
//     them. Windows grow around the sections of highest load, towards the
//     heavier neighbour, up to Options.WindowBuffers buffers or the budget;
//     each is asked at the current bound, and every refutation raises it by
//     one unit (then the same window is asked again).
//   - rounding: sizes rounded down to multiples of each of
//     Options.RoundUnits bytes (a smaller address axis).
//
// Gaps and alias members are encoded exactly (their pieces); only with
// Options.RoundUp (not exact) is the answer max-live alone. Stats.Reason repeats how and tallies the relaxations
// tried.
func ProveLowerBound(ctx context.Context, p *model.Problem, opt Options) (int64, string, Stats, error) {
	in, err := newInstance(p, opt.RoundUp)
	if u, ok := declined(err); ok {
		how := "max-live (" + u + ")"
		return p.ComputeSweep().MaxLive, how, Stats{Reason: how}, nil
	}
	if err != nil {
		return 0, "", Stats{}, err
	}
	st := Stats{Scale: in.g}
	lb := p.ComputeSweep().MaxLive
	how := "max-live"
	if f := floorHeight(in.items) * in.g; f > lb && in.exact {
		lb, how = f, fmt.Sprintf("a pinned or aligned buffer ends at %d", f)
	}
	if !in.exact {
		how = "max-live (SAT bounds need an exact item model: " + in.why + ")"
		st.Reason = how
		return lb, how, st, nil
	}
	s := in.positive()
	pr := &prover{ctx: ctx, opt: opt, g: in.g, lb: lb, how: how, st: &st}
	for _, k := range opt.RoundUnits {
		if ctx.Err() != nil {
			break
		}
		pr.rounded(s.items, k)
	}
	pr.windows(s.items)
	st.Windows = pr.tried
	st.Reason = fmt.Sprintf("%s; %d relaxations tried: %d fit under the bound of their time (the largest of %d buffers), %d timed out, %d over budget",
		pr.how, pr.tried, pr.fit, pr.maxFit, pr.timeouts, pr.refusals)
	return pr.lb, pr.how, st, nil
}

type prover struct {
	ctx context.Context
	opt Options
	g   int64 // bytes per unit of the items
	lb  int64 // bytes
	how string
	st  *Stats

	tried, fit, maxFit, timeouts, refusals int
}

func (o *Options) windowTime() time.Duration {
	if o.WindowTime > 0 {
		return o.WindowTime
	}
	return 5 * time.Second
}

// Outcomes of refute: the relaxation fits under the bound, a call timed
// out, or the encoding was refused.
const (
	fits = iota
	timedOut
	refusedBudget
)

// refute asks whether items (in units of g bytes) fit under the current
// bound lb, raising lb for every refutation, until they fit, a call times
// out or the encoding is refused.
func (pr *prover) refute(items []item, g int64, what string) (out int) {
	pr.tried++
	n := len(items)
	defer func() {
		switch out {
		case fits:
			pr.fit++
			pr.maxFit = max(pr.maxFit, n)
		case timedOut:
			pr.timeouts++
		case refusedBudget:
			pr.refusals++
		}
	}()
	items, g2 := rescale(items)
	g *= g2
	var e *encoder
	for pr.ctx.Err() == nil {
		h := pr.lb / g // the largest height of at most lb bytes
		if m := maxLive(items, seq(len(items))); m > h {
			pr.raise(m*g, fmt.Sprintf("%s: max-live %d", what, m*g))
			continue
		}
		if f := floorHeight(items); f > h {
			pr.raise(f*g, fmt.Sprintf("%s: a pinned or aligned buffer ends at %d", what, f*g))
			continue
		}
		if e == nil || h > e.hmax {
			var inf bool
			var refused string
			e, inf, refused = newEncoder(pr.ctx, items, h+4, pr.opt)
			if refused != "" {
				return refusedBudget
			}
			if inf { // an item has no offset under h+4 clear of the pins
				pr.raise((h+5)*g, fmt.Sprintf("%s: a buffer has no room below %d between the pins", what, (h+5)*g))
				e = nil
				continue
			}
			pr.st.add(Stats{Vars: e.vars, Clauses: e.clauses, Encodings: 1})
		}
		ctx, cancel := context.WithTimeout(pr.ctx, pr.opt.windowTime())
		v0, c0, f0, k0 := e.vars, e.clauses, e.conflicts, e.calls
		r := e.solve(ctx, e.height(h))
		cancel()
		pr.st.add(Stats{Vars: e.vars - v0, Clauses: e.clauses - c0, Conflicts: e.conflicts - f0, Calls: e.calls - k0})
		switch r {
		case 1:
			return fits
		case 0:
			return timedOut
		}
		if e.dead { // refuted at hmax itself
			pr.raise((e.hmax+1)*g, fmt.Sprintf("%s unsat at %d", what, e.hmax*g))
			e = nil
			continue
		}
		pr.raise((h+1)*g, fmt.Sprintf("%s unsat at %d", what, h*g))
	}
	return timedOut
}

func (pr *prover) raise(lb int64, how string) {
	// The optimum is a multiple of the problem's unit.
	lb = (lb + pr.g - 1) / pr.g * pr.g
	if lb > pr.lb {
		pr.lb, pr.how = lb, how
	}
}

// rounded refutes the problem with sizes rounded down to k bytes.
func (pr *prover) rounded(items []item, k int64) {
	if k%pr.g != 0 || k <= pr.g {
		return
	}
	u := k / pr.g
	var r []item
	for _, it := range items {
		if it.pin >= 0 || len(it.congs) > 0 {
			return // rounding would move pins and congruences
		}
		it.size = it.size / u * u
		if it.pieces != nil { // shrunk inwards: still a relaxation
			var ps []piece
			for _, p := range it.pieces {
				if lo, hi := (p.lo+u-1)/u*u, p.hi/u*u; hi > lo {
					ps = append(ps, piece{p.start, p.end, lo, hi})
				}
			}
			if len(ps) == 0 {
				continue
			}
			it.pieces = ps
			it.normalise()
		}
		if it.size > 0 {
			r = append(r, it)
		}
	}
	pr.refute(r, pr.g, fmt.Sprintf("sizes rounded down to %d bytes", k))
}

// windows grows time windows around the heaviest sections.
func (pr *prover) windows(items []item) {
	secs := loads(items, seq(len(items)))
	if len(secs) == 0 {
		return
	}
	order := seq(len(secs))
	slices.SortStableFunc(order, func(a, b int) int { return int(min(max(secs[b].load-secs[a].load, -1), 1)) })
	tried := map[[2]int]bool{}
	limit := pr.opt.windowBuffers()
	for _, c := range order {
		if pr.ctx.Err() != nil {
			return
		}
		w := window{a: c, b: c}
		last := -1
		for {
			w.t0, w.t1 = secs[w.a].start, secs[w.b].end
			its := windowItems(items, w)
			if len(its) > limit {
				break
			}
			if len(its) != last && !tried[[2]int{w.a, w.b}] {
				tried[[2]int{w.a, w.b}] = true
				last = len(its)
				what := fmt.Sprintf("window [%d,%d) of %d buffers", w.t0, w.t1, len(its))
				if pr.refute(its, pr.g, what) != fits {
					break
				}
			}
			if !w.grow(secs) {
				break
			}
		}
	}
}
