package heuristics

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/optalloc/optalloc/model"
)

func init() {
	Register(&Squeaky{})
}

// Squeaky is squeaky-wheel optimisation of the first-fit greedy: it places
// the items in an order, first fit, then repeatedly moves the items that
// stick out above max-live (even rounds) or reach the peak (odd rounds) —
// the squeaky wheels — to the front of the order, keeping their relative
// order, and places everything again (alternating: on mindspore resnet50
// from the textbook plan, 0.64% above max-live → 0.35% with the first rule
// alone, 0.19% alternating). Items it
// moved stay ahead of the rest, so long-lived small buffers, which the size
// order places last and which then find no hole through their whole
// lifetime, end up low. The best plan is kept. It stops at max-live, after
// Patience rounds without a lower peak, after Rounds rounds, or when ctx is
// done.
//
// As a planner ("squeaky") it starts from the textbook order (size, ties by
// start); Improve starts from a plan, taking its items in the order of
// their offsets, which first fit places no higher than the plan has them.
type Squeaky struct {
	// Rounds caps the rounds; 0 means 1000.
	Rounds int
	// Patience is the number of rounds without a lower peak after which
	// it stops; 0 means 10⁶ / items, at least 40 and at most 200.
	Patience int
}

// SqueakyStats is what a Squeaky run did.
type SqueakyStats struct {
	Rounds    int    `json:"rounds"`
	Improved  int    `json:"lowered"`
	StartPeak int64  `json:"start_peak"`
	Peak      int64  `json:"peak"`
	Stopped   string `json:"stopped,omitempty"`
}

// Name implements Planner.
func (s *Squeaky) Name() string { return "squeaky" }

// Plan implements Planner.
func (s *Squeaky) Plan(ctx context.Context, p *model.Problem) (*model.Plan, error) {
	in, err := newInstance(ctx, p)
	if err != nil {
		return nil, err
	}
	off, err := in.perPool(ctx, func(ctx context.Context, its []item) ([]int64, error) {
		return s.run(ctx, its, textbookOrder(its), nil, &SqueakyStats{})
	})
	if err != nil {
		return nil, err
	}
	return in.plan(off, nil), nil
}

// Improve runs the search from plan, a valid plan of p (a single pool),
// and returns the best plan found (plan itself when nothing lower was) with
// what the search did. onImprove, when set, is called with every plan of a
// lower peak. Every plan it returns or reports must still be verified by
// the caller.
func (s *Squeaky) Improve(ctx context.Context, p *model.Problem, plan *model.Plan, onImprove func(*model.Plan)) (*model.Plan, SqueakyStats, error) {
	var st SqueakyStats
	if len(p.PoolList()) != 1 {
		return nil, st, fmt.Errorf("squeaky: %d pools, want one", len(p.PoolList()))
	}
	in, err := newInstance(ctx, p)
	if err != nil {
		return nil, st, err
	}
	its := in.its
	start := make([]int64, len(its))
	for i := range p.Buffers {
		if k := in.of[i]; i == its[k].root {
			start[k] = plan.Placements[i].Offset
		}
	}
	order := make([]int32, len(its))
	for k := range order {
		order[k] = int32(k)
	}
	slices.SortFunc(order, func(a, b int32) int {
		if c := cmp.Compare(start[a], start[b]); c != 0 {
			return c
		}
		if c := cmp.Compare(its[b].size, its[a].size); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	var on func([]int64)
	if onImprove != nil {
		on = func(off []int64) { onImprove(in.plan(off, nil)) }
	}
	off, err := s.run(ctx, its, order, on, &st)
	if err != nil {
		return nil, st, err
	}
	if st.Peak >= plan.Peak(p) {
		return plan, st, nil
	}
	return in.plan(off, nil), st, nil
}

// run is the search from order; it returns the best offsets.
func (s *Squeaky) run(ctx context.Context, its []item, order []int32, on func([]int64), st *SqueakyStats) ([]int64, error) {
	rounds, patience := s.Rounds, s.Patience
	if rounds <= 0 {
		rounds = 1000
	}
	if patience <= 0 {
		// small problems have cheap rounds: mindspore tiny_bert (1 821
		// buffers) reached max-live after 99 rounds, 59 after the last
		// lower peak
		patience = min(max(1_000_000/max(len(its), 1), 40), 200)
	}
	lb := maxLive(its)
	pc := newPlacer(its)
	peak, err := pc.run(ctx, order, true)
	if err != nil {
		return nil, err
	}
	best, bestPeak := slices.Clone(pc.off), peak
	st.StartPeak, st.Peak = peak, peak
	var wheels []int32
	since := 0
	for {
		switch {
		case bestPeak <= lb:
			st.Stopped = "max-live reached"
		case since >= patience:
			st.Stopped = fmt.Sprintf("no lower peak in %d rounds", patience)
		case st.Rounds >= rounds:
			st.Stopped = "round limit"
		case ctx.Err() != nil:
			st.Stopped = "time limit"
		}
		if st.Stopped != "" {
			break
		}
		// The wheels, to the front: every movable item above max-live on
		// even rounds, those at the peak on odd ones.
		line := lb + 1
		if st.Rounds%2 == 1 {
			line = peak
		}
		above := func(k int32) bool { return its[k].pin < 0 && its[k].size > 0 && pc.off[k]+its[k].size >= line }
		wheels = wheels[:0]
		for _, k := range order {
			if above(k) {
				wheels = append(wheels, k)
			}
		}
		if len(wheels) == 0 {
			st.Stopped = "pinned buffers are above max-live"
			break
		}
		rest := slices.DeleteFunc(order, above)
		order = append(slices.Clone(wheels), rest...)
		st.Rounds++
		if peak, err = pc.run(ctx, order, true); err != nil {
			st.Stopped = "time limit"
			break
		}
		since++
		if peak < bestPeak {
			copy(best, pc.off)
			bestPeak, since = peak, 0
			st.Improved++
			st.Peak = peak
			if on != nil {
				on(best)
			}
		}
	}
	return best, nil
}
