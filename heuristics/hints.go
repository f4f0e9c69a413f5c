package heuristics

import (
	"context"
	"slices"

	"github.com/optalloc/optalloc/model"
)

// HonourHints moves hinted buffers of a plan to their hints where that
// costs nothing. A MiniMalloc hint is a preferred offset; a buffer (an
// alias root: its alias members move with it; a pinned buffer never moves)
// goes to its hint when, at the hint,
//
//   - every member of its alias group is aligned (its own and its pool's
//     alignment, at hint + delta),
//   - it ends within its pool's capacity,
//   - it does not raise its pool's peak (hint + granted size ≤ the peak),
//   - its whole footprint (every member, gaps honoured, granted sizes) is
//     free: no other buffer of the pool occupies those bytes at those times.
//
// Hinted buffers are taken in problem order, each seeing the moves made
// before it. It returns a new plan (the input is not modified) and the
// number of hinted alias roots that sit at their hint in it (moved or
// already there). Hints on aliased buffers (not roots) are not used. When
// the problem is invalid or the plan does not match it, the plan is
// returned as it is with 0.
func HonourHints(p *model.Problem, pl *model.Plan) (*model.Plan, int) {
	return HonourHintsContext(context.Background(), p, pl)
}

// HonourHintsContext is HonourHints that stops moving buffers once ctx
// ends: the moves made by then are kept (each was checked against the
// plan as it stood), and the count still includes every hinted root that
// already sits at its hint. Each move looks at every buffer alive with
// it, so on a 62 000-buffer trace with half its buffers hinted the pass
// took 7 s.
func HonourHintsContext(ctx context.Context, p *model.Problem, pl *model.Plan) (*model.Plan, int) {
	if pl == nil || len(pl.Placements) != len(p.Buffers) {
		return pl, 0
	}
	hinted := false
	for i := range p.Buffers {
		if p.Buffers[i].Hint != nil {
			hinted = true
			break
		}
	}
	if !hinted || p.Validate() != nil {
		return pl, 0
	}
	pools := p.PoolList()
	for _, q := range pl.Placements {
		if q.Pool < 0 || q.Pool >= len(pools) {
			return pl, 0
		}
	}
	out := pl.Clone()
	h := newHinter(p, out)
	peaks := out.PoolPeaks(p)
	n, tried := 0, 0
	stopped := false
	for i := range p.Buffers {
		b := &p.Buffers[i]
		if b.Hint == nil || b.Alias != nil {
			continue
		}
		if out.Placements[i].Offset == *b.Hint {
			n++
			continue
		}
		tried++
		if !stopped && tried%64 == 0 {
			stopped = ctx.Err() != nil
		}
		if !stopped && b.Pin == nil && h.fits(i, *b.Hint, peaks) {
			h.move(i, *b.Hint)
			n++
		}
	}
	return out, n
}

// hinter holds the occupancy of a plan for HonourHints: every buffer's
// rectangles (relative to its offset), in an interval tree over time.
type hinter struct {
	p       *model.Problem
	pl      *model.Plan
	root    []int   // buffer → alias root
	delta   []int64 // buffer → delta inside its root
	members map[int][]int
	rb      []int32 // rectangle → buffer
	rr      []rect  // rectangle (relative to the buffer's offset)
	rs, re  []int32
	tree    *itree
	found   []int32
}

func newHinter(p *model.Problem, pl *model.Plan) *hinter {
	h := &hinter{p: p, pl: pl, members: map[int][]int{}}
	h.root, h.delta = p.AliasRoots(p.Index())
	for i := range p.Buffers {
		h.members[h.root[i]] = append(h.members[h.root[i]], i)
		b := p.Buffers[i]
		b.Size = pl.Placements[i].Size // granted
		for _, r := range bufferRects(&b, 0, nil) {
			h.rb = append(h.rb, int32(i))
			h.rr = append(h.rr, r)
		}
	}
	ts := make([]int64, 0, 2*len(h.rr))
	for _, r := range h.rr {
		ts = append(ts, r.start, r.end)
	}
	slices.Sort(ts)
	ts = slices.Compact(ts)
	h.rs, h.re = make([]int32, len(h.rr)), make([]int32, len(h.rr))
	for x, r := range h.rr {
		a, _ := slices.BinarySearch(ts, r.start)
		b, _ := slices.BinarySearch(ts, r.end)
		h.rs[x], h.re[x] = int32(a), int32(b)
	}
	h.tree = newITree(h.rs, h.re)
	for x := range h.rr {
		h.tree.add(x, h.re[x])
	}
	return h
}

// fits reports whether alias root i can move to offset o.
func (h *hinter) fits(i int, o int64, peaks []int64) bool {
	if o < 0 {
		return false
	}
	q := h.pl.Placements[i]
	pool := h.p.PoolList()[q.Pool]
	// o > peak − size, written so that a hint near 2^63 cannot overflow.
	if q.Size > 0 && (o > peaks[q.Pool]-q.Size || (pool.Capacity > 0 && o > pool.Capacity-q.Size)) {
		return false
	}
	for _, m := range h.members[i] {
		if (o+h.delta[m])%h.p.Buffers[m].AlignmentIn(&pool) != 0 {
			return false
		}
	}
	shift := o - q.Offset
	for _, m := range h.members[i] {
		lo, _ := slices.BinarySearch(h.rb, int32(m))
		for x := lo; x < len(h.rb) && h.rb[x] == int32(m); x++ {
			a := h.pl.Placements[m].Offset + shift + h.rr[x].lo
			z := h.pl.Placements[m].Offset + shift + h.rr[x].hi
			h.found = h.tree.query(h.rs[x], h.re[x], h.found[:0])
			for _, y := range h.found {
				j := int(h.rb[y])
				if h.root[j] == i || h.pl.Placements[j].Pool != q.Pool {
					continue
				}
				oj := h.pl.Placements[j].Offset
				if a < oj+h.rr[y].hi && oj+h.rr[y].lo < z {
					return false
				}
			}
		}
	}
	return true
}

// move puts alias root i (and its members) at offset o.
func (h *hinter) move(i int, o int64) {
	shift := o - h.pl.Placements[i].Offset
	for _, m := range h.members[i] {
		h.pl.Placements[m].Offset += shift
	}
}
