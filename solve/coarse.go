package solve

import (
	"context"
	"fmt"
	"time"

	"github.com/optalloc/optalloc/bounds"
	"github.com/optalloc/optalloc/model"
)

// Coarse restrictions. When a few buffers have a large alignment (say
// 65536) and the rest only the problem's grid g (1024 on MiniMalloc's
// instances), the plain buffers may also be aligned to 2g, 4g or 8g: every
// plan of that restricted problem is a plan of the original (it only adds
// constraints), and the coarser offsets shrink both engines' search (the SAT
// encoding keeps only offsets on the grid). Where the large alignments
// already waste the space the restriction costs, the restricted optimum is
// the original's lower bound, which proves it: MiniMalloc G with alignment
// 65536 on its buffers of at least 64 KiB is solved to its alignment bound
// 1 246 208 by SAT at grid 4096 in 4.5 s, where the unrestricted race stays
// at 1 348 608 after 60 s. A restricted search never refutes anything: its
// "infeasible" says nothing of the original.

// coarseShare: the restrictions get 1/coarseShare of the time left, shared
// equally by the levels.
const coarseShare = 3

// coarseDefault is each level's time when the solve has no deadline.
const coarseDefault = 5 * time.Second

// earlyRace bounds the exact race run before the restrictions when
// minimising (at most a tenth of the time left); a variable so that tests
// can send every problem to the restrictions.
var earlyRace = 2 * time.Second

// part is 1/n of the time left before ctx ends (timeLeft: counted in CPU
// time), or coarseDefault without an end.
func part(ctx context.Context, n int) time.Duration {
	if d, ok := shareOf(ctx, n); ok {
		return d
	}
	return coarseDefault
}

// coarseLevels returns the grids worth a restriction: 2g, 4g and 8g, where g
// is the problem's grid (gridOf: sizes, alignments, pins, deltas), each at
// most a quarter of the largest alignment, when some plain buffer (see
// plainBuffer) is off that grid.
func coarseLevels(p *model.Problem) []int64 {
	pool := &p.PoolList()[0]
	g := bounds.Grid(p)
	var amax int64
	for i := range p.Buffers {
		amax = max(amax, p.Buffers[i].AlignmentIn(pool))
	}
	var levels []int64
	if 8*g > amax {
		return nil // no level (wholeBuffers alone took 0.37 s on 1 000 000 buffers)
	}
	whole := bounds.WholeBuffers(p)
	for k := int64(2); k <= 8; k *= 2 {
		a := k * g
		if 4*a > amax {
			break
		}
		for i := range p.Buffers {
			if restrictable(p, whole, i, a) && p.Buffers[i].AlignmentIn(pool) < a {
				levels = append(levels, a)
				break
			}
		}
	}
	return levels
}

// largeAlign is the alignment, in units of the grid (gridOf), from which a
// buffer counts as largely aligned: the aligned-first restriction solves
// those alone, and a problem where a third of the buffers are is sparsely
// aligned (sparselyAligned).
const largeAlign = 8

// alignedFirst is the other restriction: the plain buffers whose alignment
// is at least 8g are solved alone (with half of ctx's time), beside the
// pinned buffers where they are pinned, and p is returned with them pinned
// where that plan puts them (nil when it found none). Alone they often
// pack at their own bound, and the small buffers then fill around them:
// MiniMalloc C with alignment 65536 on its buffers of at least 64 KiB,
// 1 327 104 → 1 241 088. Without the pinned buffers the plan put an aligned
// buffer over a pinned one and the solve ended in "a bug"
// (../shared/hostile/r4/plans/aligned_first_bug.json). A pinned buffer
// tied to others (an alias group) leaves the restriction out.
func (s *solver) alignedFirst(ctx context.Context) (*model.Problem, error) {
	p := s.p
	pool := &p.PoolList()[0]
	g := bounds.Grid(p)
	whole := bounds.WholeBuffers(p)
	sub := &model.Problem{Name: p.Name, Pools: append([]model.Pool(nil), p.Pools...)}
	var idx []int // the restricted buffers, first in sub
	var pinned []model.Buffer
	for i := range p.Buffers {
		b := &p.Buffers[i]
		switch {
		case plainBuffer(p, whole, i) && b.AlignmentIn(pool) >= largeAlign*g:
			idx = append(idx, i)
			sub.Buffers = append(sub.Buffers, *b)
		case b.Pin != nil && b.Size > 0:
			if !whole[i] {
				return nil, nil
			}
			pinned = append(pinned, *b)
		}
	}
	if len(idx) == 0 || len(idx) == len(p.Buffers) {
		return nil, nil
	}
	sub.Buffers = append(sub.Buffers, pinned...)
	c := s.child(sub)
	c.restricted = true
	cctx, cancel := context.WithTimeout(ctx, part(ctx, 2))
	defer cancel()
	r, err := c.solveSingle(cctx)
	if err != nil || r.Plan == nil {
		return nil, err
	}
	q := ownBuffers(p)
	for k, i := range idx {
		off := r.Plan.Placements[k].Offset
		q.Buffers[i].Pin = &off
	}
	return q, nil
}

// plainBuffer reports whether buffer i may be restricted: positive size, no
// pin, no gaps, no hint, not in an alias group (a member's offset follows its
// root's, so their alignments are tied); whole is bounds.WholeBuffers(p).
func plainBuffer(p *model.Problem, whole []bool, i int) bool {
	b := &p.Buffers[i]
	return b.Size > 0 && b.Pin == nil && len(b.Gaps) == 0 && b.Hint == nil && whole[i]
}

// restrictable reports whether buffer i may be aligned to a: a plain
// buffer whose alignment divides a.
func restrictable(p *model.Problem, whole []bool, i int, a int64) bool {
	return plainBuffer(p, whole, i) && a%p.Buffers[i].AlignmentIn(&p.PoolList()[0]) == 0
}

// ownBuffers returns a shallow copy of p with its own buffer slice, to be
// changed without touching p; the buffers keep their order, so a plan of
// the copy is a plan of p.
func ownBuffers(p *model.Problem) *model.Problem {
	q := *p
	q.Buffers = append([]model.Buffer(nil), p.Buffers...)
	return &q
}

// restrict returns a copy of p whose restrictable buffers are aligned to a,
// so a plan of the copy is a plan of p.
func restrict(p *model.Problem, a int64) *model.Problem {
	q := ownBuffers(p)
	whole := bounds.WholeBuffers(p)
	for i := range q.Buffers {
		if restrictable(p, whole, i, a) {
			q.Buffers[i].Align = a
		}
	}
	return q
}

// coarseRun is one restriction tried, for the statistics.
type coarseRun struct {
	Grid    int64   `json:"grid,omitempty"` // 0: the aligned-first restriction
	Status  Status  `json:"status"`
	Peak    int64   `json:"peak,omitempty"`
	Method  string  `json:"method,omitempty"`
	Seconds float64 `json:"seconds"`
	// Error is why the restriction dropped out (tryRestriction).
	Error string `json:"error,omitempty"`
}

// coarseApplies reports whether restrictions may be tried: methods auto
// and exact, more than one thread (one thread promises a result independent
// of timing, and restrictions are cut by their share of the time), not
// within a restriction, and some level exists.
func (s *solver) coarseApplies() bool {
	return !s.opt.NoCoarse && !s.restricted && s.opt.Threads != 1 &&
		(s.opt.Method == "auto" || s.opt.Method == "exact") && len(coarseLevels(s.p)) > 0
}

// restrictionLevels are the grids of coarseLevels, then 0 for the
// aligned-first restriction.
func (s *solver) restrictionLevels() []int64 {
	return append(coarseLevels(s.p), 0)
}

// solveRestriction solves restriction a (a grid, or 0: aligned first) of
// the problem (a decision when its pool has a capacity) within ctx and at
// most d, and appends what it gave to runs. It returns nil when the
// aligned-first restriction has nothing to pin.
func (s *solver) solveRestriction(ctx context.Context, a int64, d time.Duration, runs *[]coarseRun) (*Result, error) {
	ctx, cancel := withCPU(ctx, d, s.parallelism())
	defer cancel()
	t := time.Now()
	name := fmt.Sprintf("restriction to grid %d", a)
	var q *model.Problem
	if a > 0 {
		q = restrict(s.p, a)
	} else {
		name = "aligned-first restriction"
		var err error
		if q, err = s.alignedFirst(ctx); err != nil || q == nil {
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			return nil, nil
		}
	}
	if why := bounds.PinConflicts(q); why != "" {
		return nil, fmt.Errorf("%s: the pins conflict: %s", name, why)
	}
	c := s.child(q)
	c.restricted = true
	r, err := c.solveSingle(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	*runs = append(*runs, coarseRun{Grid: a, Status: r.Status, Peak: r.Peak, Method: r.Method, Seconds: time.Since(t).Seconds()})
	return r, nil
}

// tryRestriction is solveRestriction for the race: a restriction that
// fails drops out (its error is kept in runs, for the statistics) and never
// ends the solve, since the original problem does not depend on it.
func (s *solver) tryRestriction(ctx context.Context, a int64, d time.Duration, runs *[]coarseRun) *Result {
	r, err := s.solveRestriction(ctx, a, d, runs)
	if err != nil {
		*runs = append(*runs, coarseRun{Grid: a, Status: Unknown, Error: err.Error()})
		return nil
	}
	return r
}

// coarseMinimises reports whether the coarse stage solves the
// restrictions ahead of the race: minimising only (a decision races the
// restrictions against the exact engines, coarseEngine: a refutation must
// not wait for them), with the best plan above the bound (at the bound it
// is optimal already), and unless SAT minimises the whole problem
// (sat.Gallop), where the restrictions only take its time (MiniMalloc
// with alignment 65536 on buffers ≥ 64 KiB, auto 60 s, three runs each
// with and without them: C 1 192 960–1 221 632 → 1 174 528–1 189 888, K
// 1 259 520–1 273 856 → 1 235 968–1 257 472; G is still proven, by SAT on
// the whole problem, 10.0–10.5 s instead of 7.9–8.6 s).
func (s *solver) coarseMinimises(ctx context.Context) bool {
	return s.p.PoolList()[0].Capacity == 0 && !s.atBound() && !s.satMinimisesWhole(ctx)
}

// runCoarse solves the restrictions (see coarseApplies and
// coarseMinimises) and offers their plans, until one reaches the lower
// bound.
func (s *solver) runCoarse(ctx context.Context) error {
	if early := min(earlyRace, part(ctx, 10)); early > 0 {
		// A short exact race first: what it closes at once (a proof at the
		// bound) is not delayed by the restrictions.
		ectx, cancel := withCPU(ctx, early, s.parallelism())
		var err error
		if s.exactApplies(ectx) {
			err = s.runExact(ectx)
		}
		cancel()
		if err != nil || ctx.Err() != nil || s.atBound() {
			return err
		}
	}
	t := time.Now()
	defer s.res.Stats.phase("coarse", t)
	levels := s.restrictionLevels()
	per := part(ctx, coarseShare*len(levels))
	var runs []coarseRun
	defer func() { s.res.Stats.engine("coarse", runs) }()
	for _, a := range levels {
		r := s.tryRestriction(ctx, a, per, &runs)
		if r != nil && r.Plan != nil {
			if err := s.offer(r.Plan, "coarse-"+r.Method); err != nil {
				return err
			}
		}
		if ctx.Err() != nil || s.atBound() {
			break
		}
	}
	return nil
}

// coarseEngine joins a decision race (see coarseApplies) with the
// restrictions, one after the other, each with 1/coarseShare of the time
// left: a plan of a restriction that fits the
// capacity answers the decision. It starts after portfolioRaceDelay, so
// what the exact engines answer at once costs nothing. A restriction's
// "infeasible" is no answer.
func (s *solver) coarseEngine() engine {
	return engine{
		name:  "coarse",
		delay: portfolioRaceDelay,
		decide: func(ctx context.Context, p *model.Problem, c int64) (*model.Plan, outcome, any, error) {
			var runs []coarseRun
			for _, a := range s.restrictionLevels() {
				r := s.tryRestriction(ctx, a, part(ctx, coarseShare), &runs)
				if r != nil && r.Plan != nil && r.Plan.Peak(p) <= c {
					return r.Plan, fits, runs, nil
				}
				if ctx.Err() != nil {
					break
				}
			}
			return nil, undecided, runs, nil
		},
	}
}
