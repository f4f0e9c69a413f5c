package solve

import (
	"context"
	"fmt"
	"time"

	"github.com/optalloc/optalloc/heuristics"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/verify"
)

// The passes after the engines: they change the best plan only where that
// costs no peak.

// fillScratch runs the scratch gap-filling pass (seed 004) on the best plan
// when the problem has scratch buffers: elastic scratch is grown into free
// space, and the result is kept only when it verifies and its peak is no
// higher.
func (s *solver) fillScratch() error {
	// When its time (passContext) runs out, the plan is kept without the
	// pass (elastic scratch at its minimum), which
	// stats.engines.scratch_pass says.
	ctx, cancel := s.passContext()
	defer cancel()
	filled, err := heuristics.FillScratchContext(ctx, s.p, s.res.Plan, s.opt.Scratch)
	if err != nil && ctx.Err() != nil {
		s.res.Stats.engine("scratch_pass", "stopped at the time limit: scratch buffers keep the engines' placement")
		return nil
	}
	if err != nil {
		return fmt.Errorf("scratch pass: %w", err)
	}
	if v := verify.Check(s.p, filled); len(v) > 0 {
		return fmt.Errorf("internal error: the scratch pass produced an invalid plan (%s); please report it", v[0])
	}
	if filled.Peak(s.p) <= s.res.Peak {
		s.setPlan(filled, s.res.Method+"+scratch")
	}
	return nil
}

// honourHints moves hinted buffers of the final plan (whichever engine made
// it) to their hints where that costs nothing; the count goes to the stats.
func (s *solver) honourHints() error {
	ctx, cancel := s.passContext()
	defer cancel()
	moved, n := heuristics.HonourHintsContext(ctx, s.p, s.res.Plan)
	if v := verify.Check(s.p, moved); len(v) > 0 {
		return fmt.Errorf("internal error: honouring hints produced an invalid plan (%s); please report it", v[0])
	}
	if moved.Peak(s.p) <= s.res.Peak {
		s.setPlan(moved, s.res.Method)
		s.res.Stats.HintsHonoured = n
	}
	return nil
}

// passContext bounds a pass after the engines (scratch, hints): they have
// used the time limit, so it gets a fiftieth of it more (at least 20 ms),
// which a small problem never needs and a huge one cannot overrun.
func (s *solver) passContext() (context.Context, context.CancelFunc) {
	if s.opt.TimeLimit <= 0 || s.opt.Work > 0 {
		return context.Background(), func() {}
	}
	return context.WithTimeout(context.Background(), max(s.opt.TimeLimit/50, 20*time.Millisecond))
}

func hasHints(p *model.Problem) bool {
	for i := range p.Buffers {
		if p.Buffers[i].Hint != nil && *p.Buffers[i].Hint >= 0 {
			return true
		}
	}
	return false
}

func hasScratch(p *model.Problem) bool {
	for i := range p.Buffers {
		if p.Buffers[i].Kind == model.Scratch {
			return true
		}
	}
	return false
}
