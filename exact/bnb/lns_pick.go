package bnb

import (
	"cmp"
	"math/rand/v2"
	"slices"

	"github.com/optalloc/optalloc/model"
)

// neighbourhoods picks the free buffers of LNS's next neighbourhood.
type neighbourhoods struct {
	p       *model.Problem
	off     []int64 // the current plan (shared with LNS)
	rng     *rand.Rand
	maxFree int
}

func (nb *neighbourhoods) top(i int) int64 { return nb.off[i] + nb.p.Buffers[i].Size }

// pinnedAtPeak reports whether a pinned buffer reaches peak (then no
// neighbourhood can lower it).
func (nb *neighbourhoods) pinnedAtPeak(peak int64) bool {
	for i := range nb.p.Buffers {
		if nb.p.Buffers[i].Pin != nil && nb.top(i) >= peak {
			return true
		}
	}
	return false
}

// pick returns the free set of a neighbourhood of the plan at peak: every
// unpinned buffer that reaches the peak, and up to maxFree buffers in all
// (more only when more reach the peak), or nil when a pinned buffer
// reaches the peak.
func (nb *neighbourhoods) pick(peak int64) []bool {
	if nb.pinnedAtPeak(peak) {
		return nil
	}
	p, rng := nb.p, nb.rng
	n := len(p.Buffers)
	var peakers []int
	for i := range p.Buffers {
		if p.Buffers[i].Size > 0 && nb.top(i) >= peak {
			peakers = append(peakers, i)
		}
	}
	a := &p.Buffers[peakers[rng.IntN(len(peakers))]]
	free := make([]bool, n)
	for _, i := range peakers {
		free[i] = true
	}
	in := func(i int) bool { return !free[i] && p.Buffers[i].Pin == nil && p.Buffers[i].Size > 0 }
	// Each kind ranks a pool of candidates by a distance from the anchor;
	// the nearest k, k random in [maxFree/3, maxFree], are freed with the
	// buffers at the peak.
	var cand []int
	var dist func(i int) int64
	timeDist := func(i int) int64 {
		b := &p.Buffers[i]
		return max(0, a.Start-b.End, b.Start-a.End)
	}
	switch rng.IntN(8) {
	case 6, 7: // ejection: the cheapest corridor for the anchor, its blockers and their neighbours
		y := nb.corridor(a, peak)
		var blockers []int
		for i := range p.Buffers {
			b := &p.Buffers[i]
			if in(i) && b.Start < a.End && a.Start < b.End && nb.off[i] < y+a.Size && y < nb.top(i) {
				blockers = append(blockers, i)
			}
		}
		for i := range p.Buffers {
			if in(i) {
				cand = append(cand, i)
			}
		}
		dist = func(i int) int64 {
			d := int64(-1)
			for _, j := range blockers {
				if i == j {
					return -1
				}
				b, c := &p.Buffers[i], &p.Buffers[j]
				dt := max(0, c.Start-b.End, b.Start-c.End)
				dy := max(0, nb.off[j]-nb.top(i), nb.off[i]-nb.top(j))
				if v := dt + dy*(c.End-c.Start)/max(c.Size, 1); d < 0 || v < d {
					d = v
				}
			}
			return d
		}
	case 0: // band: the highest tops
		for i := range p.Buffers {
			if in(i) {
				cand = append(cand, i)
			}
		}
		dist = func(i int) int64 { return peak - nb.top(i) }
	case 1: // window: the nearest in time
		for i := range p.Buffers {
			if in(i) {
				cand = append(cand, i)
			}
		}
		dist = timeDist
	case 2: // random: buffers that conflict with one at the peak
		for i := range p.Buffers {
			if !in(i) {
				continue
			}
			b := &p.Buffers[i]
			for _, j := range peakers {
				c := &p.Buffers[j]
				if b.Start < c.End && c.Start < b.End {
					cand = append(cand, i)
					break
				}
			}
		}
		dist = func(int) int64 { return 0 }
	default: // corridor: across a horizontal strip over the anchor's lifetime
		for i := range p.Buffers {
			b := &p.Buffers[i]
			if in(i) && b.Start < a.End && a.Start < b.End {
				cand = append(cand, i)
			}
		}
		mid := rng.Int64N(max(peak, 1))
		dist = func(i int) int64 {
			lo, hi := nb.off[i], nb.top(i)
			return max(0, lo-mid, mid-hi)
		}
	}
	rng.Shuffle(len(cand), func(x, y int) { cand[x], cand[y] = cand[y], cand[x] })
	slices.SortStableFunc(cand, func(x, y int) int { return cmp.Compare(dist(x), dist(y)) })
	k := nb.maxFree/3 + rng.IntN(nb.maxFree-nb.maxFree/3+1)
	room := max(k-len(peakers), 0)
	for _, i := range cand[:min(len(cand), room)] {
		free[i] = true
	}
	return free
}

// corridor returns a height y at which a, moved to offset y, would overlap
// few bytes of the buffers live with it in the current plan: one of the
// four cheapest, at random.
func (nb *neighbourhoods) corridor(a *model.Buffer, peak int64) int64 {
	p := nb.p
	type opt struct{ cost, y int64 }
	var ys []int64
	for i := range p.Buffers {
		b := &p.Buffers[i]
		if b.Size > 0 && b != a && b.Start < a.End && a.Start < b.End {
			ys = append(ys, nb.top(i))
		}
	}
	ys = append(ys, 0)
	var opts []opt
	for _, y := range ys {
		if y+a.Size >= peak {
			continue
		}
		var c int64
		for i := range p.Buffers {
			b := &p.Buffers[i]
			if b.Size > 0 && b != a && b.Start < a.End && a.Start < b.End && nb.off[i] < y+a.Size && y < nb.top(i) {
				c += b.Size
			}
		}
		opts = append(opts, opt{c, y})
	}
	if len(opts) == 0 {
		return 0
	}
	slices.SortFunc(opts, func(x, y opt) int { return cmp.Or(cmp.Compare(x.cost, y.cost), cmp.Compare(x.y, y.y)) })
	return opts[nb.rng.IntN(min(4, len(opts)))].y
}
