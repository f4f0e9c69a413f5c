package solve

import (
	"context"
	"time"

	"github.com/optalloc/optalloc/bounds"
	"github.com/optalloc/optalloc/model"
)

// Rounded sizes. When every offset must be a multiple of some A (every
// buffer's alignment, or the pool's, is a multiple of A) and some size is
// not, no buffer can use the bytes between its end and the next multiple
// of A: whoever sits above it starts on a multiple of A. Rounding every size
// up to a multiple of A then changes no conflict, only the peak, by less
// than A: a plan of the rounded problem is a plan of the original (the same
// offsets), and every plan of the original is a plan of the rounded one,
// whose peak is the original's rounded up to A. The rounded problem is the
// same search on a grid A times coarser, and both exact engines do better
// on it: MiniMalloc A–K with a pool alignment of 4096 (auto 10 s, median of
// 3) reach E 1 075 200 instead of 1 094 656, F 1 079 296 instead of
// 1 100 800 and K 1 130 496 instead of 1 152 000 (mean gap 1.77% → 1.22%;
// J is worse, 1 154 048 instead of 1 143 808).
//
// Its lower bound carries over: if L bounds the rounded problem, the top
// buffer t of any plan of the original ends at A·k + rem(t), where
// A·(k+1) ≥ L is the rounded peak, so the original's peak is at least
// L − A + the smallest rem over the buffers (rem(s) = s − A·(⌈s/A⌉−1)).

// roundedShare: the rounded problem gets all but 1/roundedShare of the
// time; the original's race closes the last gap (below A) with the rest.
const roundedShare = 10

// roundedApplies reports whether the pipeline minimises the rounded
// problem: methods auto and exact, minimising (a decision is asked of the
// original: deciding MiniMalloc D, I, J and K with a pool alignment of
// 4096 at nine capacities, 10 s and one thread each, the rounded problem
// was faster twice, slower three times and found nothing twice where the
// original found a plan in 2.4 s and 4.2 s), not a fit test, and a grid
// (roundedGrid).
func (s *solver) roundedApplies() bool {
	return !s.opt.NoRound && !s.quick && s.p.PoolList()[0].Capacity == 0 &&
		(s.opt.Method == "auto" || s.opt.Method == "exact") && bounds.RoundedGrid(s.p) > 0
}

// roundedRun is what the rounded problem gave, for the statistics.
type roundedRun struct {
	Grid       int64   `json:"grid"`
	Status     Status  `json:"status"`
	Peak       int64   `json:"peak,omitempty"` // of the rounded problem
	LowerBound int64   `json:"lower_bound"`    // of the rounded problem
	Bound      int64   `json:"bound"`          // what it proves of the original
	Method     string  `json:"method,omitempty"`
	Seconds    float64 `json:"seconds"`
	Stats      *Stats  `json:"stats,omitempty"`
}

// runRounded minimises the rounded problem (see roundedApplies) after the
// portfolio on the original left a gap, with all but 1/roundedShare of the
// time, keeps its plan when lower (offer) and raises the lower bound with
// its bound.
func (s *solver) runRounded(ctx context.Context) error {
	a := bounds.RoundedGrid(s.p)
	q, rmin := bounds.RoundUp(s.p, a)
	child := s.child(q) // it does not round again: its sizes are on the grid
	child.onBest = func(plan *model.Plan, method string) {
		// Progress only: the plan is verified when the child returns.
		if s.opt.Progress != nil {
			s.report(s.unround(plan).Peak(s.p), "rounded-"+method)
		}
	}
	cctx := ctx
	if d, ok := timeLeft(ctx); ok {
		var cancel context.CancelFunc
		cctx, cancel = withCPU(ctx, d-d/roundedShare, s.parallelism()) // cpuclock.go
		defer cancel()
	}
	t := time.Now()
	r, err := child.solveSingle(cctx)
	if err != nil {
		return err
	}
	s.res.Stats.phase("rounded", t)
	run := roundedRun{Grid: a, Status: r.Status, LowerBound: r.LowerBound, Method: r.Method,
		Seconds: time.Since(t).Seconds(), Stats: &r.Stats}
	if r.Plan != nil {
		run.Peak = r.Peak
		if err := s.offer(s.unround(r.Plan), "rounded-"+r.Method); err != nil {
			return err
		}
	}
	if lb := bounds.RoundedBound(r.LowerBound, a, rmin); lb > s.res.LowerBound {
		s.res.LowerBound, s.boundName = lb, "the rounded problem's bound"
	}
	run.Bound = s.res.LowerBound
	s.res.Stats.engine("rounded", run)
	s.roundedGave = s.res.Plan != nil
	return nil
}

// roundedStartBound raises the starting lower bound with what the rounded
// problem's own starting bound proves of the original (bounds.RoundedBound;
// the rounded problem is built, not solved): it costs a second bounds
// stage, and the portfolio on the original then stops at a plan the
// rounded problem's bound proves optimal. The shared Silero VAD v5 (68
// buffers, alignment 64) starts at 10 309, and the portfolio's 10 497 was
// proven optimal by SAT after 3.5 s with --no-round; the rounded bound is
// 10 497.
func (s *solver) roundedStartBound(ctx context.Context) error {
	a := bounds.RoundedGrid(s.p)
	q, rmin := bounds.RoundUp(s.p, a)
	ctx, cancel := boundShare(ctx)
	defer cancel()
	b, err := bounds.Best(ctx, q, bounds.Start...)
	if err != nil {
		return err
	}
	if lb := bounds.RoundedBound(b.Value, a, rmin); lb > s.res.LowerBound {
		s.res.LowerBound, s.boundName = lb, "the rounded problem's bound"
	}
	return nil
}

// unround returns a plan of the rounded problem as a plan of s.p: the same
// offsets, each buffer granted its own size (an elastic one what the
// rounded plan granted, within its own range).
func (s *solver) unround(plan *model.Plan) *model.Plan {
	out := &model.Plan{Placements: append([]model.Placement(nil), plan.Placements...)}
	for i := range out.Placements {
		b := &s.p.Buffers[i]
		out.Placements[i].Size = min(max(out.Placements[i].Size, b.Size), max(b.Size, b.MaxSize))
	}
	return out
}
