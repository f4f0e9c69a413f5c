package bnb

// Window refutation. A search can sink millions of nodes into a subtree
// whose failure lies in a stretch of time: the canonical order interleaves
// items from the whole schedule, so everything outside that stretch is
// enumerated again and again. Measured on MiniMalloc I at 1048576: a state
// 279 placements deep that the search needed 1.5 M nodes to refute is
// refuted in 936 nodes when only its unplaced items live in 32 consecutive
// sections, clipped to them, are searched.
//
// Clipping is a relaxation: a completion of the node restricted to the
// window's sections is a packing of the clipped items at offsets no lower
// than they can take now (their minimum offsets, and the last placement's
// offset: canonical completions place nothing below it). So a window whose
// exhausted search finds no packing proves that the node has no canonical
// completion. A window search that runs out of its node budget proves
// nothing and is ignored.
//
// The check runs at a node once its subtree has taken windowAfter nodes (a
// node that fails fast needs no help), and again each time the subtree has
// grown windowMul-fold, over windows of 16, 32 and 64 sections with half
// overlap; each window search gets an eighth of the subtree's nodes so far
// (between 512 and 65536). Window nodes count against the portfolio's node
// limits, so an order that leans on them gets no more time than another.
// Tuned on MiniMalloc A–K (decision at 1048576): a first check after 1024
// or 16384 nodes, budgets of a quarter or a sixteenth, checks every 4-fold
// growth, and windows of 8–32 or 32–128 sections all decided the eleven in
// 2.7–4.7 s (one run each), against 2.9 s with these settings.

var (
	windowAfter   int64 = 1 << 12 // nodes in a node's subtree before its first check
	windowMul     int64 = 8       // the next check comes after windowMul times as many
	windowDiv     int64 = 8       // budget of each window: the subtree's nodes so far / windowDiv,
	windowMinimum int64 = 1 << 9  // but at least this
	windowMaximum int64 = 1 << 16 // and at most this
)

// windowLengths are the window sizes tried, in sections, shortest first.
var windowLengths = [...]int32{16, 32, 64}

// windowRefuted reports whether some window of the current state's active
// unplaced items has no packing.
func (s *searcher) windowRefuted(budget int64) bool {
	c := s.c
	n := int32(c.n)
	lo, hi := int32(c.nsec), int32(0)
	for r := s.next[n]; r != n; r = s.next[r] {
		if i := s.byRank[r]; !s.hidden[i] {
			lo, hi = min(lo, c.secLo[i]), max(hi, c.secHi[i])
		}
	}
	for _, l := range windowLengths {
		if hi-lo <= l {
			break // the window would be the whole node
		}
		for a := lo; a < hi; a += l / 2 {
			b := min(a+l, hi)
			if s.windowInfeasible(a, b, budget) {
				return true
			}
			if b == hi || s.stopping() {
				break
			}
		}
	}
	return false
}

// windowInfeasible searches the active unplaced items that live in sections
// [a, b), clipped to them, each no lower than it can go now, and reports
// whether that search was exhausted without a packing.
func (s *searcher) windowInfeasible(a, b int32, budget int64) bool {
	c := s.c
	n := int32(c.n)
	f := &folded{}
	var lb []int64
	for r := s.next[n]; r != n; r = s.next[r] {
		i := s.byRank[r]
		if s.hidden[i] || c.secHi[i] <= a || c.secLo[i] >= b {
			continue
		}
		f.items = append(f.items, item{start: int64(max(c.secLo[i], a)), end: int64(min(c.secHi[i], b)),
			size: c.size[i], align: c.align[i], pin: c.pin[i]})
		lb = append(lb, max(s.minOff[i], alignUp(s.lastOff, c.align[i])))
	}
	if len(f.items) < 2 {
		return false
	}
	idx := make([]int, len(f.items))
	for k := range idx {
		idx[k] = k
	}
	w := f.build(idx)
	// Identical items with different lower bounds are not interchangeable,
	// and the window's search is too short to reuse a memo.
	fl := s.fl
	fl.symmetry, fl.memo = false, false
	sub := newSearcher(w, staticOrder(w, "TWA", 0), fl, &counters{})
	sub.stop, sub.ctx = s.stop, s.ctx
	sub.reset(s.capacity)
	for k, m := range lb {
		if w.pin[k] >= 0 && w.pin[k] < m {
			return true // a pin under what is already placed
		}
		sub.minOff[k] = m
	}
	sub.limit = budget
	found := sub.solve(0)
	s.st.WindowNodes += sub.nodes
	s.nodes += sub.nodes // the portfolio's node limits count window work too
	if s.limit > 0 && s.nodes >= s.limit {
		s.aborted = true
	}
	return !found && !sub.aborted
}
