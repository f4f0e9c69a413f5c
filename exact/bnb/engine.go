package bnb

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/verify"
)

// engine is a problem prepared for search: folded, scaled, split.
type engine struct {
	p      *model.Problem
	f      *folded
	comps  []*compSolver
	exact  bool // the folded model equals the problem (no gaps, alias members inside their roots)
	lb     int64
	opt    Options
	offset []int64 // scaled item offsets of the current plan
}

func prepare(p *model.Problem, opt Options) (*engine, error) {
	if p == nil {
		return nil, errors.New("bnb: nil problem")
	}
	if len(p.PoolList()) > 1 {
		return nil, fmt.Errorf("bnb: %d pools: the exact engine plans a single pool", len(p.PoolList()))
	}
	for _, name := range opt.Orders {
		if err := checkOrder(name); err != nil {
			return nil, err
		}
	}
	f, err := fold(p)
	if err != nil {
		return nil, err
	}
	if why := opt.overBudget(f); why != "" {
		return nil, errors.New(why)
	}
	e := &engine{p: p, f: f, exact: true, opt: opt, offset: make([]int64, len(f.items))}
	var root []int
	for i := range p.Buffers {
		b := &p.Buffers[i]
		if len(b.Gaps) > 0 {
			e.exact = false
		}
		if b.Alias != nil {
			if root == nil {
				root, _ = p.AliasRoots(p.Index())
			}
			// The group's item spans the union of lifetimes; a member
			// outside the root's own lifetime makes the item larger than
			// the real occupancy.
			if r := p.Buffers[root[i]]; b.Start < r.Start || b.End > r.End {
				e.exact = false
			}
		}
	}
	var comps []*comp
	if opt.NoComponents {
		all := make([]int, 0, len(f.items))
		for k, it := range f.items {
			if it.size > 0 {
				all = append(all, k)
			}
		}
		if len(all) > 0 {
			comps = append(comps, f.build(all))
		}
	} else {
		comps = f.components()
	}
	for _, c := range comps {
		e.comps = append(e.comps, newCompSolver(c, opt))
		if e.exact {
			e.lb = max(e.lb, c.maxLive*f.scale)
		}
		e.lb = max(e.lb, c.maxPin*f.scale)
	}
	e.lb = max(e.lb, p.ComputeSweep().MaxLive, opt.LowerBound)
	for k, it := range f.items {
		if it.size == 0 && it.pin >= 0 {
			e.offset[k] = it.pin
		}
	}
	return e, nil
}

// Admits reports whether the engine takes p on at all (its input is valid
// and its pairs of buffers alive at the same time are within
// Options.MaxPairs), and why not, in O(n log n) and without building
// anything: the solve pipeline gives the heuristics the whole time when no
// exact engine would run.
func Admits(p *model.Problem, opt Options) (bool, string) {
	if p == nil || len(p.PoolList()) > 1 {
		return false, "bnb: one pool only"
	}
	// Each alias root with bytes is an item: too many of them decline the
	// problem in O(n), before the fold (0.45 s on 1 000 000 buffers).
	roots := 0
	for i := range p.Buffers {
		if p.Buffers[i].Alias == nil && p.Buffers[i].Size > 0 {
			roots++
		}
	}
	if roots > opt.maxItems() {
		return false, fmt.Sprintf("bnb: %d buffers, over the engine's budget of %d", roots, opt.maxItems())
	}
	f, err := fold(p)
	if err != nil {
		return false, err.Error()
	}
	if why := opt.overBudget(f); why != "" {
		return false, why
	}
	return true, ""
}

// plan turns the current item offsets into a plan and checks it.
func (e *engine) plan() (*model.Plan, error) {
	pl := model.NewPlan(e.p)
	g := e.f.scale
	for i := range pl.Placements {
		pl.Placements[i].Offset = e.offset[e.f.of[i]]*g + e.f.delta[i]
	}
	if v := verify.Check(e.p, pl); len(v) > 0 {
		return nil, fmt.Errorf("bnb: internal error, plan rejected by verify: %s", v[0])
	}
	return pl, nil
}

// compPeak is the (scaled) top of a component in the current offsets.
func (e *engine) compPeak(cs *compSolver) int64 {
	var top int64
	for i, k := range cs.c.items {
		top = max(top, e.offset[k]+cs.c.size[i])
	}
	return top
}

// decideAll decides every component whose current peak exceeds capacity
// (all of them when force is set).
// Each runs the portfolio's rounds from, from+1, ... (at most rounds of
// them when rounds > 0; compSolver.decide).
func (e *engine) decideAll(ctx context.Context, capacity int64, force bool, from, rounds int, st *Stats) Status {
	// Largest components first: they are the likeliest to fail.
	for _, cs := range e.comps {
		if !force && e.compPeak(cs) <= capacity {
			continue
		}
		r := cs.decide(ctx, capacity, from, rounds)
		cs.stats(st)
		st.Rounds, st.Winner = r.rounds, r.winner
		switch r.status {
		case Unknown:
			return Unknown
		case Infeasible:
			return Infeasible
		}
		for i, k := range cs.c.items {
			e.offset[k] = r.off[i]
		}
	}
	return Feasible
}

// decide answers a decision at the scaled capacity. Tighter capacities
// prune harder and are often found faster, and a plan that fits under a
// tighter capacity fits under this one, so when the lower bound is below
// the capacity, every round decides the bound, the capacity and one of
// the rungs of a ladder between them (in turn), each with bounded effort
// that grows every round, until the capacity gets an answer or a probe a
// plan. A probe proven infeasible takes every capacity below it out.
func (e *engine) decide(ctx context.Context, capacity int64, st *Stats) Status {
	lo := (e.lb + e.f.scale - 1) / e.f.scale
	if !e.exact || lo >= capacity || e.opt.NoProbe {
		st.Decisions++
		return e.decideAll(ctx, capacity, true, 0, e.opt.MaxRounds, st)
	}
	var rungs []int64 // strictly between lo and capacity
	for k := int64(1); k < probeSteps; k++ {
		if c := lo + (capacity-lo)*k/probeSteps; c > lo && c < capacity && (len(rungs) == 0 || c > rungs[len(rungs)-1]) {
			rungs = append(rungs, c)
		}
	}
	// Step k runs one portfolio round (round k − probeWarmup, whose limit
	// doubles from step to step) at each probe; earlier rounds are not run
	// again (their work is in the table of failed states).
	for step := 0; ; step++ {
		type probe struct {
			c     int64
			round int
		}
		round := step - probeWarmup
		probes := []probe{{lo, round}, {capacity, round}}
		if len(rungs) > 0 && step > 0 {
			probes = append(probes, probe{rungs[step%len(rungs)], round - 1})
		}
		for _, pr := range probes {
			if pr.c < lo {
				continue
			}
			st.Decisions++
			switch e.decideAll(ctx, pr.c, true, pr.round, 1, st) {
			case Feasible:
				return Feasible
			case Infeasible:
				if pr.c == capacity {
					return Infeasible
				}
				lo = pr.c + 1
				for len(rungs) > 0 && rungs[0] < lo {
					rungs = rungs[1:]
				}
			}
			if ctx.Err() != nil {
				return Unknown
			}
		}
	}
}

// probeWarmup is how many rounds with a fraction of the node limit
// (NodeLimit/2^probeWarmup, then doubling) decide's probes take before the
// first full round: a plan that one order finds in a few hundred nodes at
// the capacity is not kept waiting behind full rounds at the bound.
const probeWarmup = 4

// probeSteps is the number of steps of the ladder of capacities decide
// probes between the lower bound and the capacity.
const probeSteps = 4

func (e *engine) newStats() Stats {
	return Stats{Prunes: map[string]int64{}, Components: len(e.comps), Scale: e.f.scale, Exact: e.exact}
}

// Decide looks for a plan of p with peak ≤ capacity (and within pool 0's
// capacity when that is set; capacity ≤ 0 means the pool's). It returns
// Feasible with a plan that passed verify.Check, Infeasible when the search
// was exhausted, or Unknown when ctx ended first. Problems with gaps, or
// with alias members that outlive their root, are searched conservatively
// (whole rectangles), so there a failed search gives Unknown, never
// Infeasible.
func Decide(ctx context.Context, p *model.Problem, capacity int64, opt Options) (*model.Plan, Status, Stats, error) {
	t0 := time.Now()
	e, err := prepare(p, opt)
	if err != nil {
		return nil, Unknown, Stats{}, err
	}
	st := e.newStats()
	if pc := p.PoolList()[0].Capacity; pc > 0 && (capacity <= 0 || pc < capacity) {
		capacity = pc
	}
	if capacity <= 0 {
		return nil, Unknown, st, errors.New("bnb: Decide needs a capacity (argument or pool capacity)")
	}
	status := e.decide(ctx, capacity/e.f.scale, &st)
	st.Elapsed = time.Since(t0)
	switch status {
	case Feasible:
		pl, err := e.plan()
		if err != nil {
			return nil, Unknown, st, err
		}
		return pl, Feasible, st, nil
	case Infeasible:
		if !e.exact {
			st.Note = "search exhausted on the conservative model (gaps or alias lifetimes): not a proof"
			return nil, Unknown, st, nil
		}
	}
	return nil, status, st, nil
}

// Minimise lowers the peak of p from the incumbent plan (nil: the engine
// finds a first plan itself) down to lowerBound or as far as ctx allows. It
// decides capacity peak−g (g: the GCD of sizes, alignments and pins), then
// the peak of the plan found minus g, and so on, keeping every worker's
// table of failed states across steps (a state that failed at capacity C
// fails below C too). It calls onImprove (when non-nil) with every better
// plan; each passed verify.Check. It returns the best plan and a proven
// lower bound: equal to the best plan's peak when optimality was proven.
func Minimise(ctx context.Context, p *model.Problem, incumbent *model.Plan, lowerBound int64, opt Options, onImprove func(*model.Plan)) (*model.Plan, int64, Stats, error) {
	t0 := time.Now()
	e, err := prepare(p, opt)
	if err != nil {
		return nil, 0, Stats{}, err
	}
	st := e.newStats()
	defer func() { st.Elapsed = time.Since(t0) }()
	g := e.f.scale
	lb := max(lowerBound, e.lb)
	best := incumbent
	var ub int64
	if best != nil {
		if v := verify.Check(p, best); len(v) > 0 {
			return nil, lb, st, fmt.Errorf("bnb: the incumbent plan is invalid: %s", v[0])
		}
		ub = best.Peak(p)
		// Start from the incumbent's offsets (item offset = root's).
		for i := range p.Buffers {
			if p.Buffers[i].Alias == nil {
				e.offset[e.f.of[i]] = best.Placements[i].Offset / g
			}
		}
		if !e.offsetsScaled(best) {
			// The incumbent is not on the g grid: every component must be
			// re-planned before a plan is assembled.
			ub = math.MaxInt64
		}
	} else {
		ub = math.MaxInt64
	}
	// accept makes pl the best plan, the peak of the last step.
	accept := func(pl *model.Plan) {
		best, ub = pl, pl.Peak(p)
		st.Steps[len(st.Steps)-1].Peak = ub
		if onImprove != nil {
			onImprove(best.Clone())
		}
	}
	if ub == math.MaxInt64 {
		// A first plan: decide at a capacity everything fits under.
		// Every item of a pushed-down plan rests on a chain of items that
		// starts at 0 or on a pin, so this capacity loses no plan.
		// Saturating sums: sizes near 2^63 must not wrap into a negative
		// capacity (whose "refutation" would be no proof at all).
		var total, pinTop int64
		for _, it := range e.f.items {
			total = satAdd(total, satAdd(it.size, it.align))
			pinTop = max(pinTop, satAdd(it.pin, it.size))
		}
		total = min(satAdd(total, pinTop), math.MaxInt64/g)
		if pc := p.PoolList()[0].Capacity; pc > 0 {
			total = min(total, pc/g)
		}
		step := time.Now()
		status := e.decideAll(ctx, total, true, 0, 0, &st)
		st.Decisions++
		st.Steps = append(st.Steps, Step{Capacity: total * g, Status: status, Nodes: st.Nodes, Elapsed: time.Since(step)})
		if status != Feasible {
			if status == Infeasible && !e.exact {
				status = Unknown
			}
			if status == Infeasible {
				return nil, math.MaxInt64, st, nil
			}
			return best, lb, st, nil
		}
		pl, err := e.plan()
		if err != nil {
			return nil, lb, st, err
		}
		accept(pl)
	}
	// Descend from above with bounded effort (a few portfolio rounds per
	// decision): first probe the lower bound, then gallop down from the
	// best peak: a decision that finds a plan doubles the step, one that
	// runs out of rounds quarters it. When even the capacity just below the
	// best peak runs out of rounds, the effort grows by a round and the
	// descent starts again from the lower bound. Tables of failed states
	// persist throughout. Infeasible answers are exhausted searches (proofs)
	// and raise the lower bound.
	step := int64(-1) // -1: first probe at the lower bound
	rounds := probeRounds
	// The lower bound is probed again, with one more round each time,
	// whenever its probes have had less than lbShare of the time: when it
	// is the optimum (max-live often is), the proof comes as soon as the
	// effort suffices, not after the whole descent (E took 11.9 s before).
	// With MaxNodes the share is counted in nodes, not time, so that a
	// one-thread search stays deterministic as MaxNodes promises.
	tLoop, nodesLoop := time.Now(), st.Nodes
	var lbTime time.Duration
	var lbNodes int64
	lbStarved := func() bool {
		if opt.MaxNodes > 0 {
			return lbShare*lbNodes < st.Nodes-nodesLoop
		}
		return lbShare*lbTime < time.Since(tLoop)
	}
	lbRounds := rounds + 1
	for ub > lb && (opt.MaxNodes <= 0 || st.Nodes < opt.MaxNodes) {
		hi := (ub - 1) / g // largest scaled capacity strictly below ub
		lo := (lb + g - 1) / g
		if hi < lo {
			// No multiple of g lies in [lb, ub): every peak of a
			// pushed-down plan is one, so ub is optimal.
			lb = ub
			break
		}
		target, r, lbProbe := hi, rounds, false
		switch {
		case step < 0:
			target, lbProbe = lo, true
		case lo < hi && lbStarved():
			target, r, lbProbe = lo, lbRounds, true
			lbRounds++
		case step > 1:
			target = max(lo, hi-step+1)
		}
		nodes0 := st.Nodes
		t1 := time.Now()
		status := e.decideAll(ctx, target, false, 0, r, &st)
		st.Decisions++
		st.Steps = append(st.Steps, Step{Capacity: target * g, Status: status, Nodes: st.Nodes - nodes0, Elapsed: time.Since(t1)})
		if lbProbe {
			lbTime += time.Since(t1)
			lbNodes += st.Nodes - nodes0
		}
		if status == Unknown {
			if ctx.Err() != nil {
				break
			}
			if lbProbe && step >= 0 {
				continue // the descent goes on where it was
			}
			if target == hi {
				// Even just below the best peak the effort ran out:
				// allow more and start again from the lower bound.
				rounds++
				step = -1
			} else {
				step = max(1, (hi-target+1)/4)
			}
			continue
		}
		if status == Infeasible {
			if !e.exact {
				st.Note = "search exhausted on the conservative model (gaps or alias lifetimes): not a proof"
				break
			}
			lb = max(lb, min(ub, target*g+g))
			step = 1
			continue
		}
		pl, err := e.plan()
		if err != nil {
			return best, lb, st, err
		}
		accept(pl)
		if step < 0 {
			step = 1
		}
		step *= 2
	}
	return best, min(lb, ub), st, nil
}

// lbShare: Minimise's probes at the lower bound get about 1/lbShare of its
// time.
const lbShare = 2

// probeRounds is the initial bound on the portfolio rounds of a decision
// in Minimise (each round doubles the node limit of every static order).
const probeRounds = 2

// offsetsScaled reports whether every placement of pl is a multiple of the
// scale (plus its alias delta), so that its offsets can seed the search.
func (e *engine) offsetsScaled(pl *model.Plan) bool {
	g := e.f.scale
	for i := range e.p.Buffers {
		if e.p.Buffers[i].Alias == nil && pl.Placements[i].Offset%g != 0 {
			return false
		}
	}
	return true
}

// satAdd adds non-negative a and b, saturating at math.MaxInt64.
func satAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}
