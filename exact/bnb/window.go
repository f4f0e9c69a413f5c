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
// overlap. The windows of a check share four times as many nodes as the
// subtree has taken so far (each at most 65536), and all window searches
// of a search together take at most four times its own nodes: every node
// above a large subtree checks it, which would otherwise multiply the cost
// by the depth. A check waits while a window's share would be below 512.
// Window nodes count against the portfolio's node limits, so an order that
// leans on them gets no more time than another.
//
// Measured on MiniMalloc (2 threads): sharing once, four or eight times the
// subtree per check (no overall cap) decided A–K at 1048576 in 3.4–3.6 s
// (median of 3); minimising I took 8.1–9.4 s sharing once, 2.5–3.2 s four
// times; but window nodes reached 8–13 times the search's own on D at its
// max-live and 37 times on K with alignment 65536 at its bound (searches
// that do not end). The overall cap of four keeps that at 3.8 times (K),
// decides A–K faster (I 1.4 s) and minimises I in 2.6–2.8 s; a cap of
// eight gave the same times at 7.7 times the work. An earlier schedule
// gave every window an eighth of the subtree, so its cost grew with the
// number of windows. A first check after 1024 or 16384 nodes, checks every
// 4-fold growth, or windows of 8–32 or 32–128 sections changed the
// decision times by less than the run-to-run spread.

var (
	windowAfter   int64 = 1 << 12 // nodes in a node's subtree before its first check
	windowMul     int64 = 8       // the next check comes after windowMul times as many
	windowShare   int64 = 4       // the windows of a check share windowShare times the subtree's nodes
	windowCap     int64 = 4       // all window searches together: at most windowCap times the search's own nodes (0: no cap)
	windowMinimum int64 = 1 << 9  // smallest budget of one window (else the check waits)
	windowMaximum int64 = 1 << 16 // largest budget of one window
)

// windowLengths are the window sizes tried, in sections, shortest first.
var windowLengths = [...]int32{16, 32, 64}

// windowCheck runs a window check at a node whose subtree started at own
// node count start, when the subtree has passed *next nodes, and moves
// *next on when the check ran. It reports whether the node is done: a
// window refuted it, or the search is stopping.
func (s *searcher) windowCheck(start int64, next *int64) bool {
	spent := s.own - start
	if spent <= *next {
		return false
	}
	refuted, ran := s.windowRefuted(spent)
	if refuted {
		s.st.prunes[pruneWindow]++
		s.windowRefutes++
		return true
	}
	if ran {
		*next = spent * windowMul
	}
	return s.stopping()
}

// windowRefuted reports whether some window of the current state's active
// unplaced items has no packing, given the nodes the node's subtree has
// taken so far, and whether the check ran at all (it waits while a
// window's share of the budget would be below windowMinimum). Window
// searches may check windows of their own.
func (s *searcher) windowRefuted(spent int64) (refuted, ran bool) {
	c := s.c
	n := int32(c.n)
	lo, hi := int32(c.nsec), int32(0)
	for r := s.next[n]; r != n; r = s.next[r] {
		if i := s.byRank[r]; !s.is[i].hidden {
			lo, hi = min(lo, c.secLo[i]), max(hi, c.secHi[i])
		}
	}
	// Count the windows, then share the budget among them.
	var ws [][2]int32
	for _, l := range windowLengths {
		if hi-lo <= l {
			break // the window would be the whole node
		}
		for a := lo; a < hi; a += l / 2 {
			b := min(a+l, hi)
			ws = append(ws, [2]int32{a, b})
			if b == hi {
				break
			}
		}
	}
	if len(ws) == 0 {
		return false, false
	}
	// Each check may spend windowShare times the subtree's nodes, and all
	// checks together at most windowCap times the search's own nodes: the
	// nodes above a large subtree all check it, which would otherwise
	// multiply the cost by the depth.
	budget := spent * windowShare
	if windowCap > 0 {
		budget = min(budget, windowCap*s.own-s.windowWork)
	}
	budget /= int64(len(ws))
	if budget < windowMinimum {
		return false, false
	}
	budget = min(budget, windowMaximum)
	for _, w := range ws {
		if s.windowInfeasible(w[0], w[1], budget) {
			return true, true
		}
		if s.stopping() {
			break
		}
	}
	return false, true
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
		if s.is[i].hidden || c.secHi[i] <= a || c.secLo[i] >= b {
			continue
		}
		f.items = append(f.items, item{start: int64(max(c.secLo[i], a)), end: int64(min(c.secHi[i], b)),
			size: c.size[i], align: c.align[i], pin: c.pin[i]})
		lb = append(lb, max(s.is[i].minOff, alignUp(s.lastOff, c.align[i])))
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
		sub.is[k].minOff = m
	}
	sub.limit = budget
	found := sub.solve(0)
	s.st.WindowNodes += sub.nodes
	s.windowWork += sub.nodes
	s.nodes += sub.nodes // the portfolio's node limits count window work too
	if s.outOfNodes() || sub.aborted && (s.stop.Load() || s.ctx.Err() != nil) {
		s.aborted = true // out of nodes, stopped or cancelled: stop at once
	}
	return !found && !sub.aborted
}
