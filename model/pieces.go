package model

import "slices"

// AliasParents returns the index of every buffer's alias parent, -1 for a
// buffer without an alias (found by id; the problem must be valid).
func (p *Problem) AliasParents() []int {
	parent := make([]int, len(p.Buffers))
	var index map[string]int
	for i := range p.Buffers {
		parent[i] = -1
		if a := p.Buffers[i].Alias; a != nil {
			if index == nil {
				index = p.Index()
			}
			parent[i] = index[a.Parent]
		}
	}
	return parent
}

// rootsOf is AliasRoots with the parents' indices known: each chain is
// walked once.
func (p *Problem) rootsOf(parent []int) (root []int, delta []int64) {
	n := len(p.Buffers)
	root, delta = make([]int, n), make([]int64, n)
	done := make([]bool, n)
	var stack []int
	for i := range n {
		j := i
		for !done[j] && parent[j] >= 0 {
			stack = append(stack, j)
			j = parent[j]
		}
		if !done[j] {
			root[j], done[j] = j, true
		}
		for k := len(stack) - 1; k >= 0; k-- {
			s := stack[k]
			q := parent[s]
			root[s], delta[s], done[s] = root[q], delta[q]+p.Buffers[s].Alias.Delta, true
		}
		stack = stack[:0]
	}
	return root, delta
}

// PiecesOf is Pieces for a front end that knows the alias parents
// (parent[i] the index of buffer i's alias parent, -1 for none): no index
// of the ids is built.
func (p *Problem) PiecesOf(parent []int) []Piece {
	n := len(p.Buffers)
	var root []int
	var delta []int64
	var first, next []int // the members of each group, linked in index order
	for i := range n {
		if parent[i] < 0 {
			continue
		}
		if root == nil {
			root, delta = p.rootsOf(parent)
			first, next = make([]int, n), make([]int, n)
			for k := range first {
				first[k] = -1
			}
			for k := n - 1; k >= 0; k-- {
				if parent[k] >= 0 {
					next[k], first[root[k]] = first[root[k]], k
				}
			}
		}
		break
	}
	pieces := make([]Piece, 0, n)
	var rects []Rect
	for i := range n {
		b := &p.Buffers[i]
		switch {
		case parent[i] >= 0:
			continue
		case first != nil && first[i] >= 0:
			rects = b.Rects(0, rects[:0])
			for m := first[i]; m >= 0; m = next[m] {
				rects = p.Buffers[m].Rects(delta[m], rects)
			}
			for _, r := range UnionLoad(rects) {
				pieces = append(pieces, Piece{Start: r.Start, End: r.End, Bytes: r.Hi, Buffer: i})
			}
		default:
			rects = b.Rects(0, rects[:0])
			for _, r := range rects {
				if r.Hi > r.Lo {
					pieces = append(pieces, Piece{Start: r.Start, End: r.End, Bytes: r.Hi - r.Lo, Buffer: i})
				}
			}
		}
	}
	return pieces
}

// PeakLoad returns the largest total of the pieces live at one time and the
// first time at which it is live (0, 0 for none): max-live without the
// sweep's slots and components. The pieces are summed in an array over
// time when they span at most a few steps per piece (op indices), else
// their start and end events are sorted.
func PeakLoad(pieces []Piece) (load, at int64) {
	return peakLoad(pieces, 4*int64(len(pieces))+1024)
}

// peakLoad sums in an array when the pieces span at most dense steps.
func peakLoad(pieces []Piece, dense int64) (best, at int64) {
	if len(pieces) == 0 {
		return 0, 0
	}
	lo, hi := pieces[0].Start, pieces[0].End
	for _, pc := range pieces {
		lo, hi = min(lo, pc.Start), max(hi, pc.End)
	}
	var load int64
	if span := uint64(hi) - uint64(lo); span <= uint64(max(dense, 0)) {
		diff := make([]int64, span+1)
		for _, pc := range pieces {
			diff[pc.Start-lo] += pc.Bytes
			diff[pc.End-lo] -= pc.Bytes
		}
		for t, d := range diff {
			if load += d; load > best {
				best, at = load, lo+int64(t)
			}
		}
		return best, at
	}
	type event struct{ t, delta int64 }
	events := make([]event, 0, 2*len(pieces))
	for _, pc := range pieces {
		events = append(events, event{pc.Start, pc.Bytes}, event{pc.End, -pc.Bytes})
	}
	slices.SortFunc(events, func(a, b event) int {
		switch {
		case a.t < b.t:
			return -1
		case a.t > b.t:
			return 1
		}
		return 0
	})
	// Lifetimes are half-open: the load of a time counts once all of its
	// events are in.
	for k, e := range events {
		load += e.delta
		if (k+1 == len(events) || events[k+1].t != e.t) && load > best {
			best, at = load, e.t
		}
	}
	return best, at
}
