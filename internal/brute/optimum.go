package brute

import (
	"github.com/optalloc/optalloc/model"
)

// MaxBuffers is the largest problem Optimum accepts (it enumerates up to
// MaxBuffers! orderings).
const MaxBuffers = 9

// Optimum returns the exact minimum peak of a tiny single-pool problem and
// offsets (one per buffer) achieving it. Pool capacities are ignored: the
// caller compares the peak with a capacity. It returns (-1, nil) when no
// valid packing exists (pins that overlap) and for problems it does not
// handle: more than MaxBuffers buffers, aliases, gaps,
// elastic sizes or several pools.
//
// Method: every ordering of the buffers is tried; each buffer in turn goes
// to its pushed-down offset, i.e. a free buffer goes to the lowest offset
// that is a multiple of its alignment and at or above the tops of all
// already placed buffers it conflicts with, and a pinned buffer goes to its
// pin (the branch dies when that overlaps a placed buffer).
//
// Why this is complete: take any valid packing with peak H. While some free
// buffer b sits above v = alignUp(max top of the conflicting buffers below
// it) (0 when none), move it down to v. The move keeps the packing valid
// (every conflicting buffer below ends at or under v, every one above starts
// at or over b's old top, pinned ones included), keeps the peak ≤ H and
// lowers the sum of offsets, so it stops, with every free buffer at exactly
// v. Now list the buffers by offset: when a buffer is reached, the
// conflicting buffers below it are exactly the conflicting ones already
// placed (conflicting buffers of positive size cannot share an offset), so
// the rule above puts every buffer where the packing has it. That ordering
// is among those enumerated, so the search finds a packing with peak ≤ H
// for every achievable H, in particular for the optimum.
func Optimum(p *model.Problem) (peak int64, offsets []int64) {
	n := len(p.Buffers)
	if n > MaxBuffers || len(p.Pools) > 1 {
		return -1, nil
	}
	for i := range p.Buffers {
		b := &p.Buffers[i]
		if b.Alias != nil || len(b.Gaps) > 0 || b.Elastic() {
			return -1, nil
		}
	}
	s := &search{p: p, off: make([]int64, n), placed: make([]bool, n), best: -1}
	s.dfs(0, 0)
	return s.best, s.bestOff
}

type search struct {
	p       *model.Problem
	off     []int64
	placed  []bool
	best    int64
	bestOff []int64
}

func conflict(a, b *model.Buffer) bool {
	return a.Size > 0 && b.Size > 0 && a.Start < b.End && b.Start < a.End
}

func (s *search) dfs(depth int, peak int64) {
	n := len(s.p.Buffers)
	if s.best >= 0 && peak >= s.best {
		return
	}
	if depth == n {
		s.best = peak
		s.bestOff = append(s.bestOff[:0], s.off...)
		return
	}
	for i := 0; i < n; i++ {
		if s.placed[i] {
			continue
		}
		b := &s.p.Buffers[i]
		var o int64
		if b.Pin != nil {
			o = *b.Pin
			ok := true
			for j := 0; j < n && ok; j++ {
				c := &s.p.Buffers[j]
				if s.placed[j] && conflict(b, c) && s.off[j] < o+b.Size && o < s.off[j]+c.Size {
					ok = false
				}
			}
			if !ok {
				continue
			}
		} else {
			for j := 0; j < n; j++ {
				c := &s.p.Buffers[j]
				if s.placed[j] && conflict(b, c) {
					o = max(o, s.off[j]+c.Size)
				}
			}
			if a := b.AlignmentIn(&s.p.PoolList()[0]); o%a != 0 {
				o += a - o%a
			}
		}
		s.placed[i] = true
		s.off[i] = o
		top := peak
		if b.Size > 0 {
			top = max(top, o+b.Size)
		}
		s.dfs(depth+1, top)
		s.placed[i] = false
	}
}

// Plan turns the offsets returned by Optimum into a plan (pool 0).
func Plan(p *model.Problem, offsets []int64) *model.Plan {
	pl := model.NewPlan(p)
	for i := range pl.Placements {
		pl.Placements[i].Offset = offsets[i]
	}
	return pl
}
