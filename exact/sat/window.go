package sat

import (
	"slices"

	"github.com/optalloc/optalloc/model"
)

// window is a time range [t0, t1) covering the consecutive sections a..b.
type window struct {
	a, b   int
	t0, t1 int64
}

// grow widens the window by one section towards its heavier neighbour
// (the left one on a tie); false when it already spans every section.
func (w *window) grow(secs []section) bool {
	left, right := int64(-1), int64(-1)
	if w.a > 0 {
		left = secs[w.a-1].load
	}
	if w.b+1 < len(secs) {
		right = secs[w.b+1].load
	}
	switch {
	case left < 0 && right < 0:
		return false
	case left >= right:
		w.a--
	default:
		w.b++
	}
	return true
}

// windowItems returns the items live in the window, their lifetimes
// clipped to it. Clipping only removes constraints, so the window is a
// relaxation: a height the window cannot fit under, the whole problem
// cannot fit under either.
func windowItems(items []item, w window) []item {
	var out []item
	for i := range items {
		it := items[i]
		if it.size == 0 || it.end <= w.t0 || it.start >= w.t1 {
			continue
		}
		it.start, it.end = max(it.start, w.t0), min(it.end, w.t1)
		it.congs = slices.Clone(it.congs)
		if it.pieces != nil {
			var ps []piece
			for _, p := range it.pieces {
				if p.end > w.t0 && p.start < w.t1 {
					ps = append(ps, piece{max(p.start, w.t0), min(p.end, w.t1), p.lo, p.hi})
				}
			}
			if len(ps) == 0 {
				continue // nothing occupied in the window
			}
			it.pieces = ps
			it.normalise()
		}
		out = append(out, it)
	}
	return out
}

// rescale divides sizes, pieces, pins and congruences by their GCD (another
// relaxation-free step: the push-down argument of the package doc) and
// returns the factor.
func rescale(items []item) ([]item, int64) {
	var g int64
	for i := range items {
		it := &items[i]
		g = model.GCD(g, it.size)
		if it.pin > 0 {
			g = model.GCD(g, it.pin)
		}
		for _, c := range it.congs {
			g = model.GCD(model.GCD(g, c.m), c.r)
		}
		for _, p := range it.pieces {
			g = model.GCD(model.GCD(g, p.lo), p.hi)
		}
	}
	if g <= 1 {
		return items, 1
	}
	for i := range items {
		it := &items[i]
		it.size /= g
		if it.pieces != nil {
			ps := make([]piece, len(it.pieces)) // pieces may be shared with other copies
			for k, p := range it.pieces {
				ps[k] = piece{p.start, p.end, p.lo / g, p.hi / g}
			}
			it.pieces = ps
		}
		if it.pin > 0 {
			it.pin /= g
		}
		for k := range it.congs {
			it.congs[k].m /= g
			it.congs[k].r /= g
		}
	}
	return items, g
}
