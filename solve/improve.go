package solve

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/optalloc/optalloc/heuristics"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/refine"
)

// Squeaky-wheel improvement of large problems (heuristics.Squeaky.Improve):
// after the portfolio, the refinement and the exact race, the best plan is
// re-placed first fit in the order of its offsets (no higher), and the
// buffers above max-live are moved to the front of the order round after
// round. On training traces the peak is set by long-lived small buffers
// that the size order places last, which time windows cannot isolate (the
// refinement declines them as too dense); see docs/heuristics.md.

// squeakyMin and squeakyMax bound the problems the pass runs on: below,
// the exact engines and the refinement do better; above, one round (a
// first-fit pass over every buffer) takes seconds.
const (
	squeakyMin = refine.MinBuffers
	squeakyMax = 100000
)

// squeakyApplies reports whether the pass runs: on the best plan when it
// is above the lower bound, minimising (no capacity), methods auto, exact
// and heuristic, problems of squeakyMin to squeakyMax buffers, not a
// restriction, not switched off.
func (s *solver) squeakyApplies(ctx context.Context) bool {
	n := len(s.p.Buffers)
	return !s.opt.NoSqueaky && !s.quick && !s.restricted && n >= squeakyMin && n <= squeakyMax && ctx.Err() == nil &&
		s.res.Plan != nil && s.res.Peak > s.res.LowerBound && s.p.PoolList()[0].Capacity == 0 &&
		(s.opt.Method == "auto" || s.opt.Method == "exact" || s.opt.Method == "heuristic")
}

// runSqueaky runs the pass on the best plan (see squeakyApplies).
func (s *solver) runSqueaky(ctx context.Context) error {
	t := time.Now()
	defer s.res.Stats.phase("squeaky", t)
	name := s.res.Method
	if !strings.HasSuffix(name, "+squeaky") {
		name += "+squeaky"
	}
	var offerErr error
	_, st, err := (&heuristics.Squeaky{}).Improve(ctx, s.p, s.res.Plan, func(pl *model.Plan) {
		if offerErr == nil {
			offerErr = s.offer(pl, name)
		}
	})
	s.res.Stats.engine("squeaky", st)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return fmt.Errorf("squeaky: %w", err)
	}
	return offerErr
}
