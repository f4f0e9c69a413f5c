package bounds

import (
	"math"

	"github.com/optalloc/optalloc/model"
)

// RoundedGrid returns the grid A to which p's sizes may be rounded (see
// above), or 0 when rounding does not apply: some offset is free to be off
// a common grid larger than the sizes', or a piece of a buffer may start
// off the grid (a gap window, an alias member at a delta that is not a
// multiple of A), or a pin is off the grid, or the rounded sizes would
// overflow int64. Alias members at deltas on the grid (views at delta 0)
// round like whole buffers: a member ending at d+s inside its parent of
// size P ends, rounded, at d+⌈s⌉ = ⌈d+s⌉ ≤ ⌈P⌉, and whatever else sits
// above it starts on the grid.
func RoundedGrid(p *model.Problem) int64 {
	pools := p.PoolList()
	if len(pools) != 1 || len(p.Buffers) == 0 {
		return 0
	}
	pool := &pools[0]
	var a int64
	for i := range p.Buffers {
		b := &p.Buffers[i]
		if len(b.Gaps) > 0 {
			return 0
		}
		a = model.GCD(a, b.AlignmentIn(pool))
		if a == 1 {
			return 0
		}
	}
	offGrid := false
	var total int64 // the rounded sizes' sum, which must not overflow
	for i := range p.Buffers {
		b := &p.Buffers[i]
		if b.Pin != nil && *b.Pin%a != 0 || b.Alias != nil && b.Alias.Delta%a != 0 {
			return 0
		}
		offGrid = offGrid || b.Size%a != 0
		top := max(b.Size, b.MaxSize)
		pad := padTo(top, a)
		if pad < 0 || top+pad > math.MaxInt64-total {
			return 0
		}
		total += top + pad
	}
	if !offGrid {
		return 0 // already on the grid: nothing to round
	}
	return a
}

// RoundUp returns a copy of p with every size rounded up to a multiple of
// a (elastic maxima too), and the smallest remainder rem(s) of a positive
// size.
func RoundUp(p *model.Problem, a int64) (*model.Problem, int64) {
	q := ownBuffers(p)
	rmin := a
	for i := range q.Buffers {
		b := &q.Buffers[i]
		if b.Size > 0 {
			rmin = min(rmin, a-padTo(b.Size, a))
		}
		b.Size += padTo(b.Size, a)
		b.MaxSize += padTo(b.MaxSize, a)
	}
	return q, rmin
}

// ownBuffers returns a shallow copy of p with its own buffer slice, to be
// changed without touching p; the buffers keep their order, so a plan of
// the copy is a plan of p.
func ownBuffers(p *model.Problem) *model.Problem {
	q := *p
	q.Buffers = append([]model.Buffer(nil), p.Buffers...)
	return &q
}

// RoundedBound is what a lower bound l of the problem rounded up to the
// grid a (RoundUp, whose smallest remainder is rmin) proves of the
// original: the top buffer t of any plan of the original ends at
// a·k + rem(t), where a·(k+1) ≥ l is the rounded peak, so the original's
// peak is at least l − a + the smallest rem over the buffers
// (rem(s) = s − a·(⌈s/a⌉−1)).
func RoundedBound(l, a, rmin int64) int64 { return l - a + rmin }
