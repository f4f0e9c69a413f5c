package heuristics

import (
	"cmp"
	"context"
	"slices"

	"github.com/optalloc/optalloc/model"
)

// rect is a piece of an item's footprint: during [start, end) it occupies
// the bytes [lo, hi) relative to the item's offset.
type rect struct {
	start, end int64
	lo, hi     int64
}

// boundingKey marks a context in which items are whole bounding rectangles
// (the behaviour before exact occupancy; kept to measure its effect).
type boundingKey struct{}

// BoundingRectangles returns a context in which every planner of this
// package reserves an alias group's or a gapped buffer's whole bounding
// rectangle (the root's bytes over the union of the members' lifetimes)
// instead of its exact footprint. It is an option for measurements: plans
// are valid either way, exact footprints are never worse on their own.
func BoundingRectangles(ctx context.Context) context.Context {
	return context.WithValue(ctx, boundingKey{}, true)
}

func bounding(ctx context.Context) bool {
	v, _ := ctx.Value(boundingKey{}).(bool)
	return v
}

type stopAtKey struct{}

// withStopAt returns a context in which the improving planners (hillclimb,
// lns) stop once their plan is at most lb bytes high, as they stop at
// max-live: Portfolio passes its LowerBound on a single pool.
func withStopAt(ctx context.Context, lb int64) context.Context {
	return context.WithValue(ctx, stopAtKey{}, lb)
}

// stopAt is the height set by withStopAt (0 when none).
func stopAt(ctx context.Context) int64 {
	v, _ := ctx.Value(stopAtKey{}).(int64)
	return v
}

// bufferRects appends the rectangles buffer b occupies at byte delta inside
// its item (model.Buffer.Rects: its whole size outside its gaps, nothing in
// an absent gap, the window [Lo, Hi) inside a partial gap).
func bufferRects(b *model.Buffer, delta int64, dst []rect) []rect {
	for _, r := range b.Rects(delta, nil) {
		dst = append(dst, rect{r.Start, r.End, r.Lo, r.Hi})
	}
	return dst
}

// footprint sets the exact footprint of item k: nil when the item is a
// plain rectangle [start, end) × [0, size) (the fast path), else the
// rectangles of its root and members (members at their deltas, gaps
// honoured) and its load pieces (the bytes of the union of the rectangles
// in every elementary time interval), which give the exact max-live.
func (in *instance) footprint(k int) {
	it := &in.its[k]
	root := &in.p.Buffers[it.root]
	ms := in.members[it.root]
	if len(ms) == 0 && len(root.Gaps) == 0 {
		return
	}
	rs := bufferRects(root, 0, nil)
	for _, m := range ms {
		rs = bufferRects(&in.p.Buffers[m], in.delta[m], rs)
	}
	if len(rs) == 1 && rs[0] == (rect{it.start, it.end, 0, it.size}) {
		return
	}
	if len(rs) == 0 { // nothing occupies memory: a zero-byte item
		it.fp = &shape{rects: []rect{}, load: []rect{}}
		return
	}
	it.fp = &shape{rects: rs}
	if len(ms) == 0 { // one gapped buffer: its rectangles are disjoint in time
		for _, r := range rs {
			it.fp.load = append(it.fp.load, rect{r.start, r.end, 0, r.hi - r.lo})
		}
		return
	}
	it.fp.load = unionLoad(rs)
}

// unionLoad returns, for every elementary interval of the rectangles, the
// number of bytes covered by their union (as rect{start, end, 0, bytes}).
func unionLoad(rs []rect) []rect {
	ms := make([]model.Rect, len(rs))
	for k, r := range rs {
		ms[k] = model.Rect{Start: r.start, End: r.end, Lo: r.lo, Hi: r.hi}
	}
	var out []rect
	for _, u := range model.UnionLoad(ms) {
		out = append(out, rect{u.Start, u.End, 0, u.Hi})
	}
	return out
}

// entries returns the rectangles an item occupies relative to its offset:
// its footprint, or its whole rectangle.
func (it *item) entries() []rect {
	if it.fp != nil {
		return it.fp.rects
	}
	if it.size == 0 {
		return nil
	}
	return []rect{{it.start, it.end, 0, it.size}}
}

// fitCompound returns the offset of item k, which has an exact footprint:
// every placed entry e live at the time of a rectangle r of the item
// forbids the offsets o with [o+r.lo, o+r.hi) ∩ [e.lo, e.hi) ≠ ∅, that is
// o ∈ [e.lo−r.hi+1, e.hi−r.lo). The free offsets are the complement of the
// union of these intervals in [0, ∞): first-fit takes the lowest aligned
// free offset, best-fit the lowest aligned offset of the shortest bounded
// free interval that has one (for a plain rectangle these are exactly the
// placer's gaps), else the lowest aligned offset above every interval.
func (pc *placer) fitCompound(k int, firstFit bool) int64 {
	it := &pc.its[k]
	cp := pc.comp[k]
	for ci := range cp.cls {
		cp.cls[ci].last = span{1, 0}
	}
	pc.forb = pc.forb[:0]
	visit := func(xs, xe int32, x span) {
		for ci := range cp.cls {
			c := &cp.cls[ci]
			if !c.meets(xs, xe) {
				continue
			}
			f := span{x.lo - c.hi + 1, x.hi - c.lo}
			if f != c.last {
				pc.forb = append(pc.forb, f)
				c.last = f
			}
		}
	}
	s, e := pc.rs[k], pc.re[k]
	if pc.tree != nil {
		pc.found = pc.tree.query(s, e, pc.found[:0])
		for _, x := range pc.found {
			visit(pc.es[x], pc.ee[x], pc.entrySpan(x))
		}
	} else {
		for _, ch := range pc.chunks {
			if ch.minS >= e || s >= ch.maxE {
				continue
			}
			for j, v := range ch.se {
				xs, xe := int32(v>>32), int32(uint32(v))
				if xs >= e || s >= xe {
					continue
				}
				visit(xs, xe, ch.sp[j])
			}
		}
	}
	slices.SortFunc(pc.forb, func(a, b span) int { return cmp.Compare(a.lo, b.lo) })
	var a int64 // the lowest offset not yet known to be forbidden
	best, bestLen := int64(-1), int64(-1)
	for _, f := range pc.forb {
		if f.lo > a {
			if c := it.up(a); c < f.lo && (bestLen < 0 || f.lo-a < bestLen) {
				if firstFit {
					return c
				}
				best, bestLen = c, f.lo-a
			}
		}
		a = max(a, f.hi)
	}
	if best >= 0 {
		return best
	}
	return it.up(a)
}
