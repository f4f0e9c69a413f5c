package sat

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/optalloc/optalloc/model"
)

func (o *Options) lnsBuffers() int {
	if o.LNSBuffers > 0 {
		return o.LNSBuffers
	}
	return 30
}

func (o *Options) lnsTime() time.Duration {
	if o.LNSTime > 0 {
		return o.LNSTime
	}
	return time.Second
}

// Improve lowers the peak of pool 0 by large-neighbourhood search when the
// whole problem is too big to encode. To go below the current peak P, it
// takes each buffer that reaches P, frees it together with the buffers
// nearest to it in time (Options.LNSBuffers of them), pins every buffer
// that conflicts with a freed one at its current offset, and asks gini to
// place the freed buffers below P − 1 unit. When no buffer reaches P any
// more the peak has dropped: the plan is passed to onImprove and the next
// round starts. Rounds without progress enlarge the neighbourhood; it
// stops at ctx, at max-live, or when a neighbourhood is over budget. It
// proves nothing (the neighbourhoods are restrictions). The incumbent may
// be nil (a first-fit packing is used). Plans above the capacity of pool 0
// are neither returned nor offered.
func Improve(ctx context.Context, p *model.Problem, incumbent *model.Plan, opt Options, onImprove func(*model.Plan)) (*model.Plan, Stats, error) {
	in, err := newInstance(p, opt.RoundUp)
	if u, ok := declined(err); ok {
		return incumbent, Stats{Reason: u}, nil
	}
	if err != nil {
		return nil, Stats{}, err
	}
	st := Stats{Scale: in.g}
	s := in.positive()
	off := s.gravity(ctx, incumbent)
	best := incumbent
	if off == nil {
		best = nil
		if off = s.firstFit(ctx); off == nil {
			return incumbent, Stats{Scale: in.g, Reason: "stopped: " + context.Cause(ctx).Error()}, nil
		}
		if err := checkItems(s.items, off, peakOf(s.items, off)); err != nil {
			return nil, st, fmt.Errorf("encode: no valid starting packing (conflicting pins?): %w", err)
		}
	}
	capacity := p.PoolList()[0].Capacity
	offer := func() {
		pk := peakOf(s.items, off)
		if capacity > 0 && pk*in.g > capacity {
			return
		}
		if best != nil && pk*in.g >= best.Peak(p) {
			return
		}
		best = in.toPlan(s.full(off))
		if onImprove != nil {
			onImprove(best)
		}
	}
	offer()
	n := len(s.items)
	stop := max(maxLive(s.items, seq(n)), floorHeight(s.items))
	k := opt.lnsBuffers()
	step := int64(1) // aim at peak − step; doubled on success, halved on failure
	for ctx.Err() == nil {
		peak := peakOf(s.items, off)
		if peak <= stop || k > n+opt.lnsBuffers() {
			break
		}
		t := max(stop, peak-step)
		progress, refused := false, false
		for _, x := range offenders(s.items, off, t) {
			if ctx.Err() != nil {
				break
			}
			if off[x]+s.items[x].size <= t {
				continue // an earlier neighbourhood moved it
			}
			if s.items[x].pin >= 0 {
				if step > 1 {
					break
				}
				st.Reason = fmt.Sprintf("buffer %q is pinned at the peak", p.Buffers[s.items[x].root].ID)
				return best, st, nil
			}
			r, ist := s.reoptimise(ctx, x, k, t, off, opt)
			st.add(ist)
			if r == 2 {
				refused = true
				break
			}
			if r == 1 {
				progress = true
			} else if step > 1 {
				break // aim lower less: retry with a smaller step
			}
		}
		if err := checkItems(s.items, off, peakOf(s.items, off)); err != nil {
			return best, st, err
		}
		now := peakOf(s.items, off)
		if now < peak {
			offer()
		}
		switch {
		case now <= t:
			step *= 2
		case step > 1:
			step = max(1, step/2)
		case refused && k <= 4:
			st.Reason = "neighbourhood over budget"
			return best, st, nil
		case refused:
			k = k * 3 / 4
		case !progress:
			k += max(k/4, 5)
		}
	}
	if ctx.Err() != nil {
		st.Reason = "stopped: " + context.Cause(ctx).Error()
	}
	return best, st, nil
}

// offenders lists the items whose top is above t, by start time.
func offenders(items []item, off []int64, t int64) []int {
	var out []int
	for i := range items {
		if off[i]+items[i].size > t {
			out = append(out, i)
		}
	}
	slices.SortStableFunc(out, func(a, b int) int { return int(min(max(items[a].start-items[b].start, -1), 1)) })
	return out
}

// reoptimise frees x and the k−1 items nearest to it in time, pins the
// items that conflict with them, and asks for the freed items below t.
// It returns 1 when off was improved, 0 when not (unsat or time out), 2
// when the neighbourhood is over budget.
func (s *sub) reoptimise(ctx context.Context, x, k int, t int64, off []int64, opt Options) (int, Stats) {
	items := s.items
	dist := func(i int) int64 {
		a, b := &items[i], &items[x]
		switch {
		case a.end <= b.start:
			return b.start - a.end + 1
		case b.end <= a.start:
			return a.start - b.end + 1
		}
		return 0
	}
	order := seq(len(items))
	slices.SortStableFunc(order, func(a, b int) int {
		if a == x || b == x {
			return map[bool]int{true: -1, false: 1}[a == x]
		}
		da, db := dist(a), dist(b)
		if da != db {
			return int(min(max(da-db, -1), 1))
		}
		return int(min(max(items[b].size-items[a].size, -1), 1))
	})
	free := make([]bool, len(items))
	var subIdx []int
	for _, i := range order {
		if len(subIdx) == k {
			break
		}
		if items[i].pin < 0 {
			free[i] = true
			subIdx = append(subIdx, i)
		}
	}
	nFree := len(subIdx)
	hmax := t
	for j := range items {
		if free[j] {
			continue
		}
		for _, i := range subIdx[:nFree] {
			if items[i].conflicts(&items[j]) {
				subIdx = append(subIdx, j)
				hmax = max(hmax, off[j]+items[j].size)
				break
			}
		}
	}
	sub := make([]item, len(subIdx))
	for a, i := range subIdx {
		sub[a] = items[i]
		if a < nFree {
			sub[a].limit = t
		} else {
			sub[a].pin, sub[a].congs = off[i], nil
		}
	}
	e, inf, refused := newEncoder(ctx, sub, hmax, opt)
	if refused != "" {
		return 2, Stats{}
	}
	if inf {
		return 0, Stats{}
	}
	lctx, cancel := context.WithTimeout(ctx, opt.lnsTime())
	r := e.solve(lctx, e.height(hmax))
	cancel()
	st := e.stats()
	if r != 1 {
		return 0, st
	}
	o := e.offsets()
	for a, i := range subIdx[:nFree] {
		off[i] = o[a]
	}
	return 1, st
}
