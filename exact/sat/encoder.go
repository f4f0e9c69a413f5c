package sat

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/go-air/gini"
	"github.com/go-air/gini/z"
)

// encoder is the CNF of "the items fit under height H" for every H up to
// hmax. Offsets are order-encoded over sparse domains: le[k][t] is the
// literal [o_k ≤ dom[k][t]] (the last value is implied). A conflicting
// pair (a, b) has one orientation literal per forbidden range (L, U) of
// d = o_b − o_a (see forbidden): l → d ≥ U, ¬l → d ≤ L; for full
// rectangles that is the single range (−s_b, s_a). A height H < hmax is a literal h(H)
// that implies o_k ≤ H − s_k for every item, so the solver is asked for H
// through an assumption and keeps its learned clauses for the next H.
type encoder struct {
	s     *gini.Gini
	items []item // all of size > 0, units
	hmax  int64
	opt   Options
	dom   [][]int64
	le    [][]z.Lit
	tru   z.Lit
	pairs map[[2]int][]z.Lit // (i, j), i < j → [o_j − o_i ≥ U_k] per forbidden range k
	hs    []hlit             // height literals by ascending H
	cov   map[[3]int64]z.Lit
	secs  []section
	refl  int // the item kept in the lower half, -1 for none

	// dead is set when gini refuted the encoding without assumptions: the
	// items do not fit under hmax at all. gini v1.0.4 must not be called
	// again then (a later Solve reports a bogus model and exits).
	dead bool

	vars, clauses int64
	conflicts     int64
	calls         int
}

type hlit struct {
	h int64
	l z.Lit
}

// domains computes the candidate offsets of every item under height hmax:
// admissible values in [0, hmax − s], restricted to subset sums of the
// other sizes (push-down normal form) when no item is pinned or aligned
// and every piece spans its item's bytes (an item resting on a partial
// piece or an alias member does not sit on a top). With pinFilter, values
// at which an item would share bytes with a pinned item are dropped too
// (pinned items are fixed obstacles); the encoder then needs no clauses
// for pairs with a pinned item.
func domains(ctx context.Context, items []item, hmax int64, filter, pinFilter bool) ([][]int64, bool) {
	var pinned []int
	for i := range items {
		if items[i].pin >= 0 || len(items[i].congs) > 0 || !items[i].fullWidth() {
			filter = false
		}
		if items[i].pin >= 0 {
			pinned = append(pinned, i)
		}
	}
	var sums [][]uint64
	if filter {
		if sums = subsetSums(ctx, items, hmax); sums == nil {
			return nil, false
		}
	}
	dom := make([][]int64, len(items))
	for i := range items {
		if i%stopEvery == 0 && ctx.Err() != nil {
			return nil, false
		}
		it := &items[i]
		top := hmax - it.size
		if it.limit > 0 {
			top = min(top, it.limit-it.size)
		}
		var d []int64
		if it.pin >= 0 {
			if it.pin <= top && it.admissible(it.pin) {
				d = []int64{it.pin}
			}
		} else {
			for v := int64(0); v <= top; v++ {
				if it.admissible(v) && (sums == nil || sums[i][v/64]&(1<<(v%64)) != 0) {
					d = append(d, v)
				}
			}
		}
		if pinFilter {
			d = avoidPins(items, pinned, i, d)
		}
		dom[i] = d
	}
	return dom, true
}

// avoidPins drops from d, the candidate offsets of item i, every value at
// which i would share bytes with a pinned item (pinned lists them; i itself
// excepted): the forbidden differences (lo, hi) of o_j − o_i put o_i in
// (pin_j − hi, pin_j − lo), that is the integers pin_j − hi + 1 … pin_j −
// lo − 1.
func avoidPins(items []item, pinned []int, i int, d []int64) []int64 {
	var bad, sp []span // closed integer ranges
	for _, j := range pinned {
		if j == i {
			continue
		}
		sp = forbidden(&items[i], &items[j], sp)
		for _, s := range sp {
			if lo, hi := items[j].pin-s.hi+1, items[j].pin-s.lo-1; lo <= hi {
				bad = append(bad, span{lo, hi})
			}
		}
	}
	if len(bad) == 0 {
		return d
	}
	slices.SortFunc(bad, func(x, y span) int { return cmp.Compare(x.lo, y.lo) })
	m := 0 // merge overlapping ranges: disjoint and increasing after
	for _, r := range bad[1:] {
		if r.lo <= bad[m].hi {
			bad[m].hi = max(bad[m].hi, r.hi)
			continue
		}
		m++
		bad[m] = r
	}
	bad = bad[:m+1]
	k, w := 0, d[:0]
	for _, v := range d {
		for k < len(bad) && bad[k].hi < v {
			k++
		}
		if k == len(bad) || v < bad[k].lo {
			w = append(w, v)
		}
	}
	return w
}

// pinnedPair reports whether the pair (a, b) involves a pinned item, so
// that, with the pin filter, their domains already keep them apart.
func pinnedPair(a, b *item, pinFilter bool) bool {
	return pinFilter && (a.pin >= 0 || b.pin >= 0)
}

// subsetSums returns for every item the bitset of the sums ≤ hmax of
// subsets of the other items' sizes (bits above hmax are not meaningful),
// or nil when ctx ended first. Items of one size share one bitset: the
// other items' sizes are the same multiset, in which a size s counts at
// most hmax/s times (more copies sum above hmax). That costs O(d · n ·
// hmax / 64) for d distinct sizes instead of O(n² · hmax / 64): a chain of
// 100 000 buffers of one size took a minute.
func subsetSums(ctx context.Context, items []item, hmax int64) [][]uint64 {
	w := int(hmax/64 + 1)
	counts := map[int64]int64{}
	for i := range items {
		if s := items[i].size; s > 0 && s <= hmax {
			counts[s]++
		}
	}
	sizes := make([]int64, 0, len(counts))
	for s := range counts {
		sizes = append(sizes, s)
	}
	slices.Sort(sizes)
	shared := map[int64][]uint64{}
	out := make([][]uint64, len(items))
	for i := range items {
		own := items[i].size // the size i takes out of the multiset
		if own <= 0 || own > hmax {
			own = 0
		}
		if set, ok := shared[own]; ok {
			out[i] = set
			continue
		}
		set := make([]uint64, w)
		set[0] = 1
		for _, s := range sizes {
			if ctx.Err() != nil {
				return nil
			}
			c := counts[s]
			if s == own {
				c--
			}
			ws, bs := int(s/64), uint(s%64)
			for c = min(c, hmax/s); c > 0; c-- {
				for k := w - 1; k >= ws; k-- {
					v := set[k-ws] << bs
					if bs > 0 && k-ws-1 >= 0 {
						v |= set[k-ws-1] >> (64 - bs)
					}
					set[k] |= v
				}
			}
		}
		shared[own] = set
		out[i] = set
	}
	return out
}

// estimate returns upper bounds on the variables and clauses of the
// encoding before it is built. It stops counting once either is over
// budget, or ctx ends (ok false).
func estimate(ctx context.Context, items []item, dom [][]int64, pinFilter bool, opt Options) (vars, clauses int64, ok bool) {
	for i := range items {
		vars += int64(len(dom[i]))
		clauses += int64(len(dom[i]))
	}
	var buf []span
	ok = sweepPairs(ctx, items, func(i, j int) bool {
		if pinnedPair(&items[i], &items[j], pinFilter) {
			return true
		}
		k := int64(0)
		if items[i].pieces == nil && items[j].pieces == nil {
			if items[i].conflicts(&items[j]) {
				k = 1
			}
		} else {
			buf = forbidden(&items[i], &items[j], buf)
			k = int64(len(buf))
		}
		if k == 0 {
			return true
		}
		vars += k
		clauses += k - 1 // the ranges' literals are chained
		if len(dom[i]) == 1 || len(dom[j]) == 1 {
			clauses += 4 * k // a fixed item bounds the other once per side
		} else {
			clauses += k * int64(len(dom[i])+len(dom[j])+2)
		}
		return vars <= opt.maxVars() && clauses <= opt.maxClauses()
	})
	return vars, clauses, ok || vars > opt.maxVars() || clauses > opt.maxClauses()
}

// newEncoder builds the base encoding of the items under hmax, or refuses
// with a reason when it would exceed the budget. infeasible is true when
// some item cannot be placed under hmax at all.
func newEncoder(ctx context.Context, items []item, hmax int64, opt Options) (e *encoder, infeasible bool, refused string) {
	dom, v, c, infeasible, refused := admit(ctx, items, hmax, opt)
	if infeasible || refused != "" {
		return nil, infeasible, refused
	}
	after, ok := orderedPairs(ctx, items)
	if !ok {
		return nil, false, stopped(ctx)
	}
	e = &encoder{s: gini.NewVc(int(v)+16, int(c)+16), items: items, hmax: hmax, opt: opt, dom: dom,
		pairs: map[[2]int][]z.Lit{}, cov: map[[3]int64]z.Lit{}, refl: -1}
	e.tru = e.lit()
	e.s.Add(e.tru)
	e.s.Add(0)
	e.clauses++
	e.le = make([][]z.Lit, len(items))
	for k := range items {
		m := len(dom[k])
		e.le[k] = make([]z.Lit, m-1)
		for t := range e.le[k] {
			e.le[k][t] = e.lit()
			if t > 0 {
				e.add(e.le[k][t-1].Not(), e.le[k][t])
			}
		}
	}
	same := func(a, b *item) bool {
		return sameShape(a, b) && a.pin < 0 && b.pin < 0 && a.limit == b.limit && slices.Equal(a.congs, b.congs)
	}
	var sp []span
	for i := range items {
		for _, j32 := range after[i] {
			j := int(j32)
			if pinnedPair(&items[i], &items[j], !opt.NoPinFilter) {
				continue
			}
			if sp = forbidden(&items[i], &items[j], sp); len(sp) == 0 {
				continue
			}
			ls := make([]z.Lit, len(sp))
			for k := range ls {
				ls[k] = e.lit()
				if k > 0 {
					e.add(ls[k].Not(), ls[k-1]) // d ≥ U_k implies d ≥ U_{k−1}
				}
			}
			e.pairs[[2]int{i, j}] = ls
			// Identical items: swapping them maps d to −d, so the lower
			// index may be kept below: d beyond the range around 0.
			fix := -1
			if !opt.NoSymmetry && same(&items[i], &items[j]) {
				for k, s := range sp {
					if s.lo < 0 && 0 < s.hi {
						fix = k
					}
				}
			}
			for k, s := range sp {
				if k == fix {
					e.add(ls[k])
				} else {
					e.diff(ls[k].Not(), j, i, -s.lo) // d ≤ L: o_i ≥ o_j − L
				}
				e.diff(ls[k], i, j, s.hi) // d ≥ U: o_j ≥ o_i + U
			}
		}
	}
	e.secs = sections(items, seq(len(items)))
	if !opt.NoSymmetry {
		e.refl = reflectable(items)
	}
	return e, false, ""
}

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// sameShape reports whether two items occupy the same (relative) pieces.
func sameShape(a, b *item) bool {
	return a.start == b.start && a.end == b.end && a.size == b.size && slices.Equal(a.pieces, b.pieces)
}

// reflectable picks the item kept in the lower half: the largest (then the
// longest-lived, then the first), or -1 when reflection is not a symmetry
// (pins, congruences, or pieces not symmetric in their item's bytes).
func reflectable(items []item) int {
	best := -1
	for i := range items {
		it := &items[i]
		if it.pin >= 0 || len(it.congs) > 0 || !it.mirrored() {
			return -1
		}
		if best < 0 || it.size > items[best].size ||
			(it.size == items[best].size && it.end-it.start > items[best].end-items[best].start) {
			best = i
		}
	}
	// Identical items are ordered by index, so the lowest of the group is
	// the one that may be constrained.
	for i := 0; i < best; i++ {
		if sameShape(&items[i], &items[best]) && items[i].limit == items[best].limit {
			return i
		}
	}
	return best
}

func (e *encoder) lit() z.Lit {
	e.vars++
	return e.s.Lit()
}

// add adds a clause, dropping false literals and skipping satisfied clauses.
func (e *encoder) add(ls ...z.Lit) {
	fal := e.tru.Not()
	n := 0
	for _, l := range ls {
		if l == e.tru {
			return
		}
		if l == fal {
			continue
		}
		ls[n] = l
		n++
	}
	for _, l := range ls[:n] {
		e.s.Add(l)
	}
	e.s.Add(0)
	e.clauses++
}

// leq returns the literal [o_k ≤ a] (possibly the constant true or false).
func (e *encoder) leq(k int, a int64) z.Lit {
	d := e.dom[k]
	if a < d[0] {
		return e.tru.Not()
	}
	if a >= d[len(d)-1] {
		return e.tru
	}
	t, found := slices.BinarySearch(d, a)
	if !found {
		t--
	}
	return e.le[k][t]
}

// diff adds l → o_j ≥ o_i + c (c may be negative): for every v in the
// domain of i, o_i ≥ v implies o_j ≥ v + c. With c = s_i it puts i below j.
func (e *encoder) diff(l z.Lit, i, j int, c int64) {
	var prev z.Lit
	for t, v := range e.dom[i] {
		b := e.leq(j, v+c-1)
		if b == e.tru.Not() || b == prev {
			continue
		}
		prev = b
		a := e.tru.Not()
		if t > 0 {
			a = e.le[i][t-1]
		}
		e.add(l.Not(), a, b.Not())
		if b == e.tru {
			break
		}
	}
}

// height returns the literal "every item ends at or below h", creating it
// (with its cover and reflection clauses) on first use. ok is false when
// the cover clauses would exceed the budget; they are then left out.
func (e *encoder) height(h int64) z.Lit {
	k, found := slices.BinarySearchFunc(e.hs, h, func(x hlit, h int64) int { return int(x.h - h) })
	if found {
		return e.hs[k].l
	}
	l := e.lit()
	e.hs = slices.Insert(e.hs, k, hlit{h, l})
	if k+1 < len(e.hs) {
		e.add(l.Not(), e.hs[k+1].l)
	}
	if k > 0 {
		e.add(e.hs[k-1].l.Not(), l)
	}
	for i := range e.items {
		e.add(l.Not(), e.leq(i, h-e.items[i].size))
	}
	if e.refl >= 0 {
		r := e.refl
		e.add(l.Not(), e.leq(r, (h-e.items[r].size)/2))
	}
	if !e.opt.NoCover {
		e.cover(l, h)
	}
	return l
}

// cover adds, for every section whose load L is at least h − maxSlack,
// that any σ+1 consecutive address units below h (σ = h − L, the
// section's slack) meet one of the section's pieces: they are
// byte-disjoint, so only σ units can be free. With σ = 0 every unit is
// covered.
func (e *encoder) cover(l z.Lit, h int64) {
	seen := map[string]bool{}
	maxSlack := int64(0)
	if !e.opt.NoSlackCover {
		maxSlack = h / 32
	}
	for _, s := range e.secs {
		sigma := h - s.load
		if sigma < 0 || sigma > maxSlack {
			continue
		}
		key := fmt.Sprint(s.parts)
		if seen[key] {
			continue
		}
		seen[key] = true
		if e.clauses+h*int64(2*len(s.parts)+1) > e.opt.maxClauses() {
			return
		}
		cl := make([]z.Lit, 0, len(s.parts)+1)
		for u := int64(0); u+sigma < h; u++ {
			cl = append(cl[:0], l.Not())
			done := false
			for _, pt := range s.parts {
				c := e.meets(pt, u, u+sigma)
				if c == e.tru {
					done = true
					break
				}
				if c != e.tru.Not() {
					cl = append(cl, c)
				}
			}
			if !done {
				e.add(cl...)
			}
		}
	}
}

// meets returns a literal that implies the piece pt meets the units
// [lo, hi]: o_i + pt.lo ≤ hi and o_i + pt.hi > lo.
func (e *encoder) meets(pt part, lo, hi int64) z.Lit {
	i := pt.i
	a, b := e.leq(i, hi-pt.lo), e.leq(i, lo-pt.hi)
	fal := e.tru.Not()
	if a == fal || b == e.tru {
		return fal
	}
	if a == e.tru && b == fal {
		return e.tru
	}
	key := [3]int64{int64(i), hi - pt.lo, lo - pt.hi}
	if c, ok := e.cov[key]; ok {
		return c
	}
	c := e.lit()
	e.add(c.Not(), a)
	e.add(c.Not(), b.Not())
	e.cov[key] = c
	return c
}

// offsets decodes the model of the last satisfiable call.
func (e *encoder) offsets() []int64 {
	off := make([]int64, len(e.items))
	for k, d := range e.dom {
		off[k] = d[len(d)-1]
		for t, l := range e.le[k] {
			if e.s.Value(l) {
				off[k] = d[t]
				break
			}
		}
	}
	return off
}

// domainGuard is admit's cheap first check, in O(n): the domains alone must
// fit the variable budget (a huge axis, e.g. byte sizes with GCD 1, is
// refused at once). It says why not, or returns "". The count grows with
// hmax, so a refusal at some height holds at every greater one.
func domainGuard(items []item, hmax int64, opt Options) string {
	var dv int64
	for i := range items {
		if items[i].pin >= 0 {
			dv++
			continue
		}
		step := lcmAll(&items[i])
		dv += max(hmax-items[i].size, 0)/step + 1
		if dv > opt.maxVars() {
			return fmt.Sprintf("encoding of %d buffers over %d units would need more than %d variables for the offsets alone (over budget)",
				len(items), hmax, opt.maxVars())
		}
	}
	return ""
}

// admit computes the items' domains under hmax and the encoding's
// estimated size (estimate), and checks the budget without building it
// (refused says why, also when ctx ended first); infeasible is true when
// some item has no offset under hmax.
func admit(ctx context.Context, items []item, hmax int64, opt Options) (dom [][]int64, v, c int64, infeasible bool, refused string) {
	if refused := domainGuard(items, hmax, opt); refused != "" {
		return nil, 0, 0, false, refused
	}
	dom, ok := domains(ctx, items, hmax, !opt.NoDomainFilter, !opt.NoPinFilter)
	if !ok {
		return nil, 0, 0, false, stopped(ctx)
	}
	for i := range dom {
		if len(dom[i]) == 0 {
			return nil, 0, 0, true, ""
		}
	}
	v, c, ok = estimate(ctx, items, dom, !opt.NoPinFilter, opt)
	if !ok {
		return nil, 0, 0, false, stopped(ctx)
	}
	if v > opt.maxVars() || c > opt.maxClauses() {
		return nil, 0, 0, false, fmt.Sprintf("encoding of %d buffers over %d units would need at least ~%d variables and ~%d clauses (budget %d, %d)",
			len(items), hmax, v, c, opt.maxVars(), opt.maxClauses())
	}
	return dom, v, c, false, ""
}
