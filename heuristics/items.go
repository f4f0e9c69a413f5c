package heuristics

import "github.com/optalloc/optalloc/model"

// item is what a heuristic places: a buffer, or an alias group folded into
// its root (the group spans the union of its members' lifetimes and the
// root's bytes). Gaps are ignored: an item occupies its whole rectangle,
// which is conservative and so always valid.
type item struct {
	start, end int64
	size       int64
	align      int64
	pin        int64 // -1 when free
	root       int   // buffer index of the root
}

// items folds the problem into items and returns, for every buffer, the
// item it belongs to and its byte delta inside the item's root.
func items(p *model.Problem) (its []item, of []int, delta []int64) {
	n := len(p.Buffers)
	of = make([]int, n)
	delta = make([]int64, n)
	var index map[string]int
	pos := make([]int, n)
	for i := range p.Buffers {
		b := &p.Buffers[i]
		pos[i] = -1
		if b.Alias != nil {
			continue
		}
		it := item{start: b.Start, end: b.End, size: b.Size, align: b.Alignment(), pin: -1, root: i}
		if b.Pin != nil {
			it.pin = *b.Pin
		}
		pos[i] = len(its)
		of[i] = len(its)
		its = append(its, it)
	}
	for i := range p.Buffers {
		b := &p.Buffers[i]
		if b.Alias == nil {
			continue
		}
		if index == nil {
			index = p.Index()
		}
		r, d := p.Root(i, index)
		of[i], delta[i] = pos[r], d
		it := &its[pos[r]]
		it.start, it.end = min(it.start, b.Start), max(it.end, b.End)
		it.align = lcm(it.align, b.Alignment())
	}
	return its, of, delta
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func lcm(a, b int64) int64 { return a / gcd(a, b) * b }

// toPlan turns item offsets into a plan (pool 0, minimum sizes).
func toPlan(p *model.Problem, offsets []int64, of []int, delta []int64) *model.Plan {
	pl := model.NewPlan(p)
	for i := range pl.Placements {
		pl.Placements[i].Offset = offsets[of[i]] + delta[i]
	}
	return pl
}

func alignUp(v, a int64) int64 {
	if r := v % a; r != 0 {
		return v + a - r
	}
	return v
}
