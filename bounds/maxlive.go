package bounds

import (
	"cmp"
	"slices"

	"github.com/optalloc/optalloc/model"
)

// MaxLive is the largest number of bytes live at one time (gaps and alias
// groups as the sweep counts them): plain buffers straight from the
// problem, the others through their pieces.
func MaxLive(p *model.Problem) int64 {
	live, _ := MaxLiveAt(p)
	return live
}

// MaxLiveAt is MaxLive and the first time at which that many bytes are
// live (0 when nothing is).
func MaxLiveAt(p *model.Problem) (live, at int64) {
	if !anyBuffer(p, func(b *model.Buffer) bool { return b.Alias != nil || len(b.Gaps) > 0 }) {
		// whole lifetimes: one pass, counting per time step where the
		// times are op indices (0.25 → 0.09 s on a million dense buffers)
		c := p.LiveCounts()
		return c.MaxLive, c.At
	}
	type event struct{ t, d int64 }
	pieces := p.Pieces()
	events := make([]event, 0, 2*len(pieces))
	for _, pc := range pieces {
		events = append(events, event{pc.Start, pc.Bytes}, event{pc.End, -pc.Bytes})
	}
	// Lifetimes are half-open: at one time, ends before starts. Then the
	// load within one time's events falls and rises again, so its highest
	// is before or after them all: only the load between two times counts,
	// and the order of one time's events does not matter.
	var load, best, bestAt int64
	if order := packedTimeOrder(len(events), func(k int) int64 { return events[k].t }); order != nil {
		for x, k := range order {
			if x > 0 && events[k].t != events[order[x-1]].t && load > best {
				best, bestAt = load, events[order[x-1]].t
			}
			load += events[k].d
		}
		return best, bestAt // the load after the last time is 0
	}
	slices.SortFunc(events, func(a, b event) int {
		if a.t != b.t {
			return cmp.Compare(a.t, b.t)
		}
		return cmp.Compare(a.d, b.d)
	})
	for _, e := range events {
		load += e.d
		if load > best {
			best, bestAt = load, e.t
		}
	}
	return best, bestAt
}

// packedTimeOrder returns the indices 0..n-1 sorted by (at(k), k), sorting
// (time, index) packed in one word; nil when the times span 2³² or more
// (or n does not fit 32 bits), for the caller to sort another way.
func packedTimeOrder(n int, at func(k int) int64) []uint32 {
	if n == 0 || n >= 1<<32 {
		return nil
	}
	lo, hi := at(0), at(0)
	for k := range n {
		lo, hi = min(lo, at(k)), max(hi, at(k))
	}
	if uint64(hi)-uint64(lo) >= 1<<32 {
		return nil
	}
	keys := make([]uint64, n)
	for k := range keys {
		keys[k] = (uint64(at(k))-uint64(lo))<<32 | uint64(k)
	}
	slices.Sort(keys)
	out := make([]uint32, n)
	for x, v := range keys {
		out[x] = uint32(v)
	}
	return out
}
