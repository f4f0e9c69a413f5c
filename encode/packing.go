package encode

import (
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
// above the tops of the conflicting items already placed. It returns nil
// when the plan does not fit the item model (it is then ignored).
func (s *sub) gravity(pl *model.Plan) []int64 {
	if pl == nil || len(pl.Placements) != len(s.in.p.Buffers) {
		return nil
	}
	n := len(s.items)
	old := make([]int64, n)
	for k, i := range s.idx {
		old[k] = pl.Placements[s.items[k].root].Offset
		_ = i
	}
	order := seq(n)
	slices.SortStableFunc(order, func(a, b int) int { return int(min(max(old[a]-old[b], -1), 1)) })
	off := make([]int64, n)
	var placed []int
	for _, k := range order {
		it := &s.items[k]
		if it.pin >= 0 {
			off[k] = it.pin
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
	if checkItems(s.items, off, peakOf(s.items, off)) != nil {
		return nil
	}
	return off
}

func lcmAll(it *item) int64 {
	l := int64(1)
	for _, c := range it.congs {
		l = l / gcd(l, c.m) * c.m
	}
	return l
}

// firstFit packs the sub items greedily (pinned first, then largest first,
// each at the lowest admissible offset that overlaps nothing placed).
func (s *sub) firstFit() []int64 {
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
	for _, k := range order {
		it := &s.items[k]
		if it.pin >= 0 {
			off[k] = it.pin
			placed = append(placed, k)
			continue
		}
		cands := []int64{0}
		for _, j := range placed {
			if it.conflicts(&s.items[j]) {
				cands = append(cands, off[j]+s.items[j].size)
			}
		}
		slices.Sort(cands)
		best := int64(-1)
		for _, c := range cands {
			for v := it.lowest(c, c+lcmAll(it)); v >= 0; v = it.lowest(v+1, v+1+lcmAll(it)) {
				ok := true
				for _, j := range placed {
					if it.conflicts(&s.items[j]) && v < off[j]+s.items[j].size && off[j] < v+it.size {
						ok = false
						break
					}
				}
				if ok {
					best = v
				}
				break
			}
			if best >= 0 {
				break
			}
		}
		if best < 0 { // on top of everything
			var top int64
			for _, j := range placed {
				top = max(top, off[j]+s.items[j].size)
			}
			best = it.lowest(top, top+lcmAll(it))
		}
		off[k] = best
		placed = append(placed, k)
	}
	return off
}
