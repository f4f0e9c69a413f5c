package graph

import (
	"slices"

	"github.com/optalloc/optalloc/model"
)

// maxLiveOf is p.ComputeSweep().MaxLive without the slots and components the
// report does not need (they were a third of reading a 100 000-op graph):
// the largest total of the pieces live at one time. When the timeline is
// not much longer than the number of pieces, the loads are summed in an
// array indexed by time instead of sorting the events.
func maxLiveOf(p *model.Problem) int64 {
	pieces := p.Pieces()
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
