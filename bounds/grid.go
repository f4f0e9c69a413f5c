package bounds

import (
	"math"

	"github.com/optalloc/optalloc/model"
)

// Grid returns the GCD of all sizes, alignments, pins, alias deltas and
// gap window bounds: the peak of every pushed-down plan is a multiple of it.
func Grid(p *model.Problem) int64 {
	var g int64
	for i := range p.Buffers {
		b := &p.Buffers[i]
		g = model.GCD(g, b.Size)
		if b.Align > 1 {
			g = model.GCD(g, b.Align)
		}
		if b.Pin != nil {
			g = model.GCD(g, *b.Pin)
		}
		if b.Alias != nil {
			g = model.GCD(g, b.Alias.Delta)
		}
		for _, w := range b.Gaps {
			// A window's piece [offset+Lo, offset+Hi) is what a pushed-down
			// buffer rests on or is pushed onto.
			if w.Window {
				g = model.GCD(model.GCD(g, w.Lo), w.Hi)
			}
		}
	}
	for _, q := range p.PoolList() {
		if q.Align > 1 {
			g = model.GCD(g, q.Align)
		}
	}
	return max(g, 1)
}

// padTo returns the bytes from size up to the next multiple of a, or -1
// when that overflows.
func padTo(size, a int64) int64 {
	r := size % a
	if r == 0 {
		return 0
	}
	if size > math.MaxInt64-(a-r) {
		return -1
	}
	return a - r
}

func satAdd(a, b int64) int64 {
	if b < 0 || a > math.MaxInt64-b {
		return math.MaxInt64 / 2
	}
	return a + b
}
