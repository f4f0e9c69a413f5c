package graph

import (
	"slices"

	"github.com/optalloc/optalloc/model"
)

// maxLiveOf is p.ComputeSweep().MaxLive without what the report does not
// need (slots, components, an index of the ids: they were half of reading
// a 100 000-op graph): the largest total of the pieces live at one time.
// parent[i] is the index of buffer i's alias parent, -1 for none (emit
// knows them). The pieces are model.Problem.Pieces's: a buffer outside
// any alias group gives its rectangles, an alias group the union of its
// members' byte ranges at every time.
func maxLiveOf(p *model.Problem, parent []int) int64 {
	n := len(p.Buffers)
	root, delta := make([]int, n), make([]int64, n)
	done := make([]bool, n)
	grouped := false
	var stack []int
	for i := range n { // each chain walked once, like model's AliasRoots
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
			grouped = true
		}
		stack = stack[:0]
	}
	var first, next []int // members of each group, linked (CSR without sorting)
	if grouped {
		first, next = make([]int, n), make([]int, n)
		for i := range first {
			first[i] = -1
		}
		for i := n - 1; i >= 0; i-- {
			if parent[i] >= 0 {
				next[i], first[root[i]] = first[root[i]], i
			}
		}
	}
	pieces := make([]model.Piece, 0, n)
	var rects []model.Rect
	for i := range n {
		b := &p.Buffers[i]
		switch {
		case parent[i] >= 0:
			continue
		case grouped && first[i] >= 0:
			rects = b.Rects(0, rects[:0])
			for m := first[i]; m >= 0; m = next[m] {
				rects = p.Buffers[m].Rects(delta[m], rects)
			}
			for _, r := range model.UnionLoad(rects) {
				pieces = append(pieces, model.Piece{Start: r.Start, End: r.End, Bytes: r.Hi, Buffer: i})
			}
		default:
			rects = b.Rects(0, rects[:0])
			for _, r := range rects {
				if r.Hi > r.Lo {
					pieces = append(pieces, model.Piece{Start: r.Start, End: r.End, Bytes: r.Hi - r.Lo, Buffer: i})
				}
			}
		}
	}
	return peakLoad(pieces, denseLimit(len(pieces)))
}

// denseLimit is the longest timeline summed in an array for n pieces.
func denseLimit(n int) int64 { return 4*int64(n) + 1024 }

// peakLoad is the largest total of the pieces live at one time, summed in
// an array when the pieces span at most dense steps, else by sorting.
func peakLoad(pieces []model.Piece, dense int64) int64 {
	if len(pieces) == 0 {
		return 0
	}
	lo, hi := pieces[0].Start, pieces[0].End
	for _, pc := range pieces {
		lo, hi = min(lo, pc.Start), max(hi, pc.End)
	}
	var best, load int64
	if span := hi - lo; span <= dense {
		diff := make([]int64, span+1)
		for _, pc := range pieces {
			diff[pc.Start-lo] += pc.Bytes
			diff[pc.End-lo] -= pc.Bytes
		}
		for _, d := range diff {
			load += d
			best = max(best, load)
		}
		return best
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
	for k, e := range events {
		load += e.delta
		if k+1 == len(events) || events[k+1].t != e.t {
			best = max(best, load)
		}
	}
	return best
}
