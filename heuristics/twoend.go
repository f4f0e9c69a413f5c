package heuristics

import (
	"context"

	"github.com/optalloc/optalloc/model"
)

// TwoEnd (an experiment of issue 44 item 3, not registered: measured no
// better than sweep-peak, docs/experiments.md) is sweep-peak with the arena's two ends given to two classes of
// items. An item whose lifetime meets a high-load time — the highest load
// over its lifetime is at least Theta × max-live — is placed as sweep-peak
// places it (the smallest blocks, against the neighbour ending nearest);
// the others, which live only while the load is low, go top-down under a
// roof of max-live × (1 + Slack): into the highest free block that holds
// them, at its top, so that they churn above the high-load items instead
// of cutting up the holes those will need. Its name is "sweep-twoend".
type TwoEnd struct {
	// Theta is the share of max-live from which an item is a high-load
	// one (0: 0.9).
	Theta float64
	// Slack sets the roof above max-live (0: 0.01).
	Slack float64
	Short int64
	// Mode: experiment.
	Mode int
}

// Name implements Planner.
func (s *TwoEnd) Name() string { return "sweep-twoend" }

// Plan implements Planner.
func (s *TwoEnd) Plan(ctx context.Context, p *model.Problem) (*model.Plan, error) {
	return perPool(ctx, p, s.plan)
}

func (s *TwoEnd) plan(ctx context.Context, its []item) ([]int64, error) {
	theta, slack := s.Theta, s.Slack
	if theta <= 0 {
		theta = 0.9
	}
	if slack <= 0 {
		slack = 0.01
	}
	ml := maxLive(its)
	load, _ := lifetimeLoads(its)
	high := make([]bool, len(its))
	for k := range its {
		high[k] = float64(load[k]) < theta*float64(ml)
		if s.Short > 0 {
			high[k] = its[k].end-its[k].start <= s.Short
		}
	}
	ps := &PeakSweep{}
	ps.high, ps.roof = high, int64(float64(ml)*(1+slack))
	ps.mode = s.Mode
	return ps.plan(ctx, its)
}

// highScan is how many free blocks allocHigh looks at, from the top down,
// before it falls back to alloc.
const highScan = 32

// allocHigh places it, which ends at e in the sweep's time, as high as it
// fits under the roof: in fresh memory right under it, else at the top of
// the highest of the highScan highest free blocks that holds it; else as
// alloc does.
func (a *sweepArena) allocHigh(it *item, e int64) int32 {
	b := &a.b
	if x := it.down(a.roof - it.size); x >= a.top {
		b.pad(a.top, x, true)
		a.top = x + it.size
		return a.held(b.push(x, it.size, false), e)
	}
	seen := 0
	for n := b.tail; n != 0 && seen < highScan; n = b.ns[n].prev {
		if !b.ns[n].free {
			continue
		}
		seen++
		lo, hi := b.ns[n].lo, min(b.hi(n), a.roof)
		x := it.down(hi - it.size)
		if x < lo || x < it.up(lo) {
			continue
		}
		return a.held(b.take(n, x, it.size), e)
	}
	return a.alloc(it, e)
}

// allocLow places it at the bottom of the lowest free block that holds it
// (first fit by address), else as alloc does.
func (a *sweepArena) allocLow(it *item, e int64) int32 {
	b := &a.b
	for n := b.head; n != 0; n = b.ns[n].next {
		if !b.ns[n].free {
			continue
		}
		lo, hi := b.ns[n].lo, b.hi(n)
		x := it.up(lo)
		if x+it.size > hi {
			continue
		}
		return a.held(b.take(n, x, it.size), e)
	}
	return a.alloc(it, e)
}
