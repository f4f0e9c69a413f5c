package sat

import (
	"cmp"
	"context"
	"slices"

	"github.com/optalloc/optalloc/model"
)

// sub is the part of an instance the SAT solver sees: the items of size > 0.
type sub struct {
	in    *instance
	idx   []int  // sub item → instance item
	items []item // copies, size > 0
}

func (in *instance) positive() *sub {
	s := &sub{in: in}
	for i := range in.items {
		if in.items[i].size > 0 {
			s.idx = append(s.idx, i)
			s.items = append(s.items, in.items[i])
		}
	}
	return s
}

// full expands offsets of the sub items to all items: zero-size items go
// to their pin or lowest admissible offset (they occupy nothing, so no
// capacity applies to them).
func (s *sub) full(off []int64) []int64 {
	all := make([]int64, len(s.in.items))
	for i := range s.in.items {
		if it := &s.in.items[i]; it.size == 0 {
			all[i] = max(it.lowest(0, max(it.pin, lcmAll(it))), 0)
		}
	}
	for k, i := range s.idx {
		all[i] = off[k]
	}
	return all
}

// peakOf returns the height of a packing of the items (units).
func peakOf(items []item, off []int64) int64 {
	var m int64
	for i := range items {
		if items[i].size > 0 {
			m = max(m, off[i]+items[i].size)
		}
	}
	return m
}

// gravity turns a plan into unit offsets of the sub items without raising
// its peak: items in offset order, each at the lowest admissible offset
// above the tops of the conflicting items already placed. With pieces
// (gaps, aliases) an item may sit inside another one's free bytes, so
// items go to the lowest offset where they share no bytes with the items
// placed, and when that packing is not lower the plan's own offsets
// (rounded down to units, which keeps them valid) are taken. It returns
// nil when the plan does not fit the item model (it is then ignored).
func (s *sub) gravity(ctx context.Context, pl *model.Plan) []int64 {
	if pl == nil || len(pl.Placements) != len(s.in.p.Buffers) {
		return nil
	}
	n := len(s.items)
	old := make([]int64, n)
	for k := range s.items {
		old[k] = pl.Placements[s.items[k].root].Offset
	}
	order := seq(n)
	slices.SortStableFunc(order, func(a, b int) int { return int(min(max(old[a]-old[b], -1), 1)) })
	off := make([]int64, n)
	var placed []int
	pieces := s.hasPieces()
	for x, k := range order {
		if x%pollEvery == 0 && ctx.Err() != nil {
			return nil
		}
		it := &s.items[k]
		if it.pin >= 0 {
			off[k] = it.pin
			placed = append(placed, k)
			continue
		}
		if pieces {
			off[k] = s.lowestFree(k, off, placed)
			placed = append(placed, k)
			continue
		}
		var top int64
		for _, j := range placed {
			if it.conflicts(&s.items[j]) {
				top = max(top, off[j]+s.items[j].size)
			}
		}
		v := it.lowest(top, top+lcmAll(it))
		if v < 0 {
			return nil
		}
		off[k] = v
		placed = append(placed, k)
	}
	if pieces {
		units := make([]int64, n)
		for k := range units {
			units[k] = -1
			if old[k] >= 0 && pl.Placements[s.items[k].root].Pool == 0 {
				units[k] = old[k] / s.in.g
			}
		}
		if checkItems(s.items, units, peakOf(s.items, units)) == nil &&
			(checkItems(s.items, off, peakOf(s.items, off)) != nil || peakOf(s.items, units) < peakOf(s.items, off)) {
			return units
		}
	}
	if checkItems(s.items, off, peakOf(s.items, off)) != nil {
		return nil
	}
	return off
}

// hasPieces reports whether some item has gaps or alias members.
func (s *sub) hasPieces() bool {
	for i := range s.items {
		if s.items[i].pieces != nil {
			return true
		}
	}
	return false
}

func lcmAll(it *item) int64 {
	l := int64(1)
	for _, c := range it.congs {
		l = model.LCM(l, c.m)
	}
	return l
}

// pollEvery is how many items the starting packings (gravity, firstFit)
// place between two looks at the context. Their cost grows with the square
// of the number of items: before they looked, `plan --method sat
// --time-limit 1s` took 19 s on a 5 000-buffer transformer trace and 156 s
// on one of 10 000.
const pollEvery = 64

// firstFitMaxItems bounds the problems that still get a first-fit packing
// when the encoding is over budget and the caller has no plan (Decide,
// Minimise, Gallop): above it they are declined at once.
const firstFitMaxItems = 4096

// firstFit packs the sub items greedily (pinned first, then largest first,
// each at the lowest admissible offset that overlaps nothing placed). It
// returns nil when ctx ends first.
func (s *sub) firstFit(ctx context.Context) []int64 {
	n := len(s.items)
	order := seq(n)
	slices.SortStableFunc(order, func(a, b int) int {
		x, y := &s.items[a], &s.items[b]
		if (x.pin >= 0) != (y.pin >= 0) {
			if x.pin >= 0 {
				return -1
			}
			return 1
		}
		return int(min(max(y.size-x.size, -1), 1))
	})
	off := make([]int64, n)
	var placed []int
	var buf []span
	pieces := s.hasPieces()
	for x, k := range order {
		if x%pollEvery == 0 && ctx.Err() != nil {
			return nil
		}
		switch it := &s.items[k]; {
		case it.pin >= 0:
			off[k] = it.pin
		case pieces:
			off[k] = s.lowestFree(k, off, placed)
		default:
			off[k], buf = s.lowestFreeRect(k, off, placed, buf)
		}
		placed = append(placed, k)
	}
	return off
}

// lowestFree returns the lowest admissible offset of item k at which it
// shares no bytes with the placed items. Being free only begins where a
// forbidden range of some placed item ends (o_j + U), so the candidates
// are 0 and those ends; above them all the item is free everywhere. It
// returns −1 when the item has no admissible offset at all.
func (s *sub) lowestFree(k int, off []int64, placed []int) int64 {
	it := &s.items[k]
	cands := []int64{0}
	var sp []span
	for _, j := range placed {
		if sp = forbidden(&s.items[j], it, sp); len(sp) > 0 {
			for _, x := range sp {
				if off[j]+x.hi > 0 {
					cands = append(cands, off[j]+x.hi)
				}
			}
		}
	}
	slices.Sort(cands)
	for _, c := range cands {
		v := it.lowest(c, c+lcmAll(it))
		if v < 0 {
			continue
		}
		ok := true
		for _, j := range placed {
			if overlapAt(&s.items[j], it, off[j], v, &sp) {
				ok = false
				break
			}
		}
		if ok {
			return v
		}
	}
	var top int64 // on top of everything
	for _, j := range placed {
		top = max(top, off[j]+s.items[j].size)
	}
	return it.lowest(top, top+lcmAll(it))
}

// lowestFreeRect is lowestFree when no item has pieces: the byte ranges
// [o, o+size) of the conflicting placed items, sorted by their start, are
// swept once from 0 (buf is scratch space, returned for reuse).
func (s *sub) lowestFreeRect(k int, off []int64, placed []int, buf []span) (int64, []span) {
	it := &s.items[k]
	buf = buf[:0]
	for _, j := range placed {
		if it.conflicts(&s.items[j]) {
			buf = append(buf, span{off[j], off[j] + s.items[j].size})
		}
	}
	slices.SortFunc(buf, func(a, b span) int { return cmp.Compare(a.lo, b.lo) })
	step := lcmAll(it)
	v := it.lowest(0, step)
	for _, x := range buf {
		if v < 0 || v+it.size <= x.lo {
			break // free below x, and every later range starts above x's start
		}
		if x.hi > v {
			v = it.lowest(x.hi, x.hi+step)
		}
	}
	return v, buf
}

// overlapAt reports whether items a and b at offsets oa and ob share bytes.
func overlapAt(a, b *item, oa, ob int64, buf *[]span) bool {
	if a.pieces == nil && b.pieces == nil {
		return a.conflicts(b) && oa < ob+b.size && ob < oa+a.size
	}
	*buf = forbidden(a, b, *buf)
	d := ob - oa
	for _, x := range *buf {
		if x.lo < d && d < x.hi {
			return true
		}
	}
	return false
}
