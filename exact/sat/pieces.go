package sat

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/optalloc/optalloc/model"
)

// piece is a rectangle an item occupies relative to its offset o: during
// [start, end) the bytes [o+lo, o+hi). An item without gaps or aliases is
// one full piece [start, end) × [0, size) and keeps pieces nil; otherwise
// its pieces are exactly what verify.Check sees of its buffers: nothing in
// an absent gap, the window of a partial gap, each alias member at its
// delta. The pieces of one item that share a time are byte-disjoint (the
// union of its members' bytes), so their widths add up to its load.
type piece struct{ start, end, lo, hi int64 }

// span is a range of the relative offset d = o_b − o_a of two items that
// is forbidden: lo < d < hi. For full rectangles it is (−s_b, s_a).
type span struct{ lo, hi int64 }

// rects returns the item's pieces (the full rectangle when pieces is nil).
func (it *item) rects() []piece {
	if it.pieces != nil {
		return it.pieces
	}
	if it.size == 0 || it.end <= it.start {
		return nil
	}
	return []piece{{it.start, it.end, 0, it.size}}
}

// fullWidth reports whether every piece covers all of the item's bytes
// (absent gaps allowed): then an item resting on another sits exactly on
// its top, as the push-down argument of the subset-sum filter needs.
func (it *item) fullWidth() bool {
	for _, p := range it.pieces {
		if p.lo != 0 || p.hi != it.size {
			return false
		}
	}
	return true
}

// mirrored reports whether the item's occupancy is symmetric under
// reflection of its bytes ([lo, hi) ↦ [size−hi, size−lo)), as the
// reflection symmetry needs.
func (it *item) mirrored() bool {
	for _, p := range it.pieces {
		if !slices.Contains(it.pieces, piece{p.start, p.end, it.size - p.hi, it.size - p.lo}) {
			return false
		}
	}
	return true
}

// normalise drops pieces when they are the full rectangle and sets the
// item's lifetime to the hull of its pieces.
func (it *item) normalise() {
	if it.pieces == nil {
		return
	}
	if len(it.pieces) == 0 {
		it.end = it.start // occupies nothing
		return
	}
	it.start, it.end = it.pieces[0].start, it.pieces[0].end
	for _, p := range it.pieces {
		it.start, it.end = min(it.start, p.start), max(it.end, p.end)
	}
	if len(it.pieces) == 1 && it.pieces[0] == (piece{it.start, it.end, 0, it.size}) {
		it.pieces = nil
	}
}

// forbidden appends to dst[:0] the forbidden ranges of d = o_b − o_a,
// merged and in increasing order: for every pair of pieces p of a and q of
// b that share a time, (p.lo − q.hi, p.hi − q.lo). Two ranges that leave
// no integer between them are merged. Empty when a and b never share
// bytes whatever their offsets (they do not conflict).
func forbidden(a, b *item, dst []span) []span {
	dst = dst[:0]
	if a.size == 0 || b.size == 0 || a.end <= b.start || b.end <= a.start {
		return dst
	}
	if a.pieces == nil && b.pieces == nil {
		return append(dst, span{-b.size, a.size})
	}
	for _, p := range a.rects() {
		for _, q := range b.rects() {
			if p.start < q.end && q.start < p.end && p.hi > p.lo && q.hi > q.lo {
				dst = append(dst, span{p.lo - q.hi, p.hi - q.lo})
			}
		}
	}
	if len(dst) < 2 {
		return dst
	}
	slices.SortFunc(dst, func(x, y span) int { return cmp.Compare(x.lo, y.lo) })
	k := 0
	for _, s := range dst[1:] {
		if s.lo < dst[k].hi { // no integer d with dst[k].hi ≤ d ≤ s.lo
			dst[k].hi = max(dst[k].hi, s.hi)
			continue
		}
		k++
		dst[k] = s
	}
	return dst[:k+1]
}

// bufferRects returns the rectangles of buffer b relative to its alias
// root's offset (delta = its byte delta in the root), exactly as verify
// expands a placed buffer (model.Buffer.Rects), as pieces.
func bufferRects(b *model.Buffer, delta int64, dst []piece) []piece {
	for _, r := range b.Rects(delta, nil) {
		dst = append(dst, piece{r.Start, r.End, r.Lo, r.Hi})
	}
	return dst
}

// unionPieces turns rectangles (possibly overlapping: an alias member
// inside its root) into byte-disjoint pieces: in every elementary time
// interval the union of the live byte ranges (model.UnionRects), with a
// piece extended in time while its byte range stays part of the union.
func unionPieces(rects []piece) []piece {
	ms := make([]model.Rect, len(rects))
	for k, r := range rects {
		ms[k] = model.Rect{Start: r.start, End: r.end, Lo: r.lo, Hi: r.hi}
	}
	var out []piece
	// By byte range: the pieces of the previous interval (open) and of the
	// current one (next), as indices in out.
	open, next := map[[2]int64]int{}, map[[2]int64]int{}
	cur := int64(math.MinInt64) // start of the current interval
	for _, u := range model.UnionRects(ms) {
		if u.Start != cur {
			open, next = next, open
			clear(next)
			cur = u.Start
		}
		iv := [2]int64{u.Lo, u.Hi}
		if j, ok := open[iv]; ok && out[j].end == u.Start {
			out[j].end = u.End
			next[iv] = j
			continue
		}
		next[iv] = len(out)
		out = append(out, piece{u.Start, u.End, u.Lo, u.Hi})
	}
	slices.SortFunc(out, func(a, b piece) int {
		if c := cmp.Compare(a.start, b.start); c != 0 {
			return c
		}
		return cmp.Compare(a.lo, b.lo)
	})
	return out
}

// groupPieces returns the pieces of the item rooted at buffer r with the
// given alias members (bytes, relative to the root's offset), or a reason
// why no plan can be valid: two members, neither inside the other, that
// share bytes of the root while both are live (verify.Check forbids it
// whatever the offset; model.Validate does not compare members with gaps).
func groupPieces(p *model.Problem, r int, members []int, deltas []int64, index map[string]int) ([]piece, string) {
	rects := bufferRects(&p.Buffers[r], 0, nil)
	per := make([][]piece, len(members))
	for k, m := range members {
		per[k] = bufferRects(&p.Buffers[m], deltas[k], nil)
		rects = append(rects, per[k]...)
	}
	// Two members without gaps were compared by Validate (model.AliasConflict,
	// near-linear); the pairs left are those with a member a that has gaps
	// (each pair of two such members once).
	gapped := func(k int) bool { return len(p.Buffers[members[k]].Gaps) > 0 }
	for a := range members {
		if !gapped(a) {
			continue
		}
		for b := range members {
			if b == a || b < a && gapped(b) {
				continue
			}
			x, y := members[a], members[b]
			if p.IsAncestor(x, y, index) || p.IsAncestor(y, x, index) {
				continue
			}
			for _, u := range per[a] {
				for _, v := range per[b] {
					if u.start < v.end && v.start < u.end && u.lo < v.hi && v.lo < u.hi {
						return nil, fmt.Sprintf("alias members %q and %q share bytes of %q at time %d, neither inside the other: no plan is valid",
							p.Buffers[x].ID, p.Buffers[y].ID, p.Buffers[r].ID, max(u.start, v.start))
					}
				}
			}
		}
	}
	return unionPieces(rects), ""
}

// part is one piece of item i live in a section: bytes [lo, hi) above o_i.
type part struct {
	i      int
	lo, hi int64
}

// section is an elementary time slot with the pieces live in it and its
// load (the bytes they occupy, units).
type section struct {
	start, end int64
	parts      []part
	load       int64
}

// sections returns the elementary slots of the selected items' pieces in
// time order, with their loads and the parts live in each: max-live, cover
// clauses and windows use the bytes actually occupied, not bounding
// rectangles.
func sections(items []item, sel []int) []section { return sweepSections(items, sel, true) }

// loads is sections without the parts, whose lists cost the sum over
// slots of what is live (a 62 000-buffer transformer trace: 12 GB for
// bounds --prove); max-live and the windows need only the loads.
func loads(items []item, sel []int) []section { return sweepSections(items, sel, false) }

func sweepSections(items []item, sel []int, withParts bool) []section {
	type ev struct {
		t   int64
		pt  part
		add bool
	}
	evs := make([]ev, 0, 2*len(sel))
	for _, i := range sel {
		if items[i].size == 0 {
			continue
		}
		for _, r := range items[i].rects() {
			pt := part{i, r.lo, r.hi}
			evs = append(evs, ev{r.start, pt, true}, ev{r.end, pt, false})
		}
	}
	slices.SortFunc(evs, func(a, b ev) int { return cmp.Compare(a.t, b.t) })
	live := map[part]int{}
	var load int64
	nlive := 0
	var out []section
	for k := 0; k < len(evs); {
		t := evs[k].t
		for ; k < len(evs) && evs[k].t == t; k++ {
			pt := evs[k].pt
			if evs[k].add {
				nlive++
				load += pt.hi - pt.lo
				if withParts {
					live[pt]++
				}
			} else {
				nlive--
				load -= pt.hi - pt.lo
				if withParts {
					if live[pt]--; live[pt] == 0 {
						delete(live, pt)
					}
				}
			}
		}
		if k < len(evs) && nlive > 0 {
			s := section{start: t, end: evs[k].t, load: load}
			for pt := range live {
				s.parts = append(s.parts, pt)
			}
			slices.SortFunc(s.parts, func(a, b part) int {
				if a.i != b.i {
					return a.i - b.i
				}
				return cmp.Compare(a.lo, b.lo)
			})
			out = append(out, s)
		}
	}
	return out
}

// maxLive returns the largest section load of the selected items (units).
func maxLive(items []item, sel []int) int64 {
	var m int64
	for _, s := range loads(items, sel) {
		m = max(m, s.load)
	}
	return m
}
