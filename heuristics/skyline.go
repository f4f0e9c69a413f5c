package heuristics

import (
	"context"

	"github.com/optalloc/optalloc/model"
)

func init() {
	Register(&Skyline{})
}

// Skyline packs bottom-up on a skyline over time: every step it places,
// of all unplaced items, the one that can sit lowest on the current
// skyline (with Waste: the one that leaves the least hole area under it,
// relative to its own area — measured much worse, kept as a knob), ties
// going to the larger area; the skyline rises to the item's top over its
// lifetime. Holes under the skyline are never reused, so the plan is a
// stack; it is strong where lifetimes nest (accelerator traces). It costs
// O(n · Σ lifetime ranks); above MaxWork (default 3e8) it falls back to
// greedy-size.
type Skyline struct {
	Waste   bool
	MaxWork float64
}

// Name implements Planner.
func (s *Skyline) Name() string {
	if s.Waste {
		return "skyline-waste"
	}
	return "skyline"
}

// Plan implements Planner.
func (s *Skyline) Plan(ctx context.Context, p *model.Problem) (*model.Plan, error) {
	return perPool(ctx, p, s.plan)
}

func (s *Skyline) plan(ctx context.Context, its []item) ([]int64, error) {
	off, _, err := s.order(ctx, its)
	if off == nil && err == nil {
		return (&BestFit{Order: "size"}).planItems(ctx, its)
	}
	return off, err
}

// order runs the skyline and returns the offsets and the order in which
// the items were placed; nil, nil, nil when the work would exceed MaxWork.
func (s *Skyline) order(ctx context.Context, its []item) ([]int64, []int32, error) {
	rs, re := timeRanks(its)
	limit := s.MaxWork
	if limit <= 0 {
		limit = 3e8
	}
	var work float64
	for k := range its {
		work += float64(re[k] - rs[k])
	}
	if work*float64(len(its)) > limit {
		return nil, nil, nil
	}
	var seq []int32
	T := 0
	for _, e := range re {
		T = max(T, int(e))
	}
	sky := make([]int64, T+1)
	off := make([]int64, len(its))
	done := make([]bool, len(its))
	left := 0
	// pinned items first: the skyline rises over them (holes below are lost)
	for k := range its {
		if its[k].pin >= 0 {
			off[k], done[k] = its[k].pin, true
			if its[k].size > 0 {
				for t := rs[k]; t < re[k]; t++ {
					sky[t] = max(sky[t], its[k].pin+its[k].size)
				}
			}
		} else if its[k].size == 0 {
			off[k], done[k] = its[k].up(0), true
		} else {
			left++
		}
	}
	for ; left > 0; left-- {
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		best := -1
		var bh int64
		var bw float64
		for k := range its {
			if done[k] {
				continue
			}
			var h int64
			for t := rs[k]; t < re[k]; t++ {
				h = max(h, sky[t])
			}
			h = its[k].up(h)
			var w float64
			if s.Waste {
				var hole int64
				for t := rs[k]; t < re[k]; t++ {
					hole += h - sky[t]
				}
				w = float64(hole) / float64(its[k].size*int64(re[k]-rs[k]))
			} else {
				w = float64(h)
			}
			if best < 0 || w < bw || (w == bw && (h < bh || (h == bh && area(&its[k]) > area(&its[best])))) {
				best, bh, bw = k, h, w
			}
		}
		off[best], done[best] = bh, true
		seq = append(seq, int32(best))
		for t := rs[best]; t < re[best]; t++ {
			sky[t] = bh + its[best].size
		}
	}
	return off, seq, nil
}

func area(it *item) float64 { return float64(it.size) * float64(it.end-it.start) }
