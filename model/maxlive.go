package model

import "slices"

// LiveCounts is what one pass over the buffers' whole lifetimes tells: the
// most bytes live at one time and how many pairs of buffers are alive
// together.
type LiveCounts struct {
	// MaxLive is the largest total size of the buffers live at one time,
	// each over its whole lifetime [Start, End) at Size bytes: the
	// sweep's max-live (ComputeSweep) when no buffer has an alias or a
	// gap, at least it otherwise.
	MaxLive int64
	// At is the first time at which MaxLive bytes are live (0 when
	// nothing is).
	At int64
	// Pairs is the number of unordered pairs of buffers of non-zero size
	// whose lifetimes intersect.
	Pairs float64
}

// LiveCounts computes max-live and the number of pairs alive together over
// the buffers' whole lifetimes, ignoring aliases, gaps and pools. When the
// times span at most a few times as many steps as there are buffers (op
// indices, as in every trace and generated problem), it counts per time
// step in O(n + span) without sorting; otherwise it sorts the start and
// end times, O(n log n). A million dense buffers take a fraction of the
// sorted sweep's time (BenchmarkLiveCounts1M).
func (p *Problem) LiveCounts() LiveCounts {
	// one pass over the (large) buffers; the rest reads compact copies
	var lo, hi int64
	var ls []life
	for i := range p.Buffers {
		b := &p.Buffers[i]
		if b.Size <= 0 || b.End <= b.Start {
			continue
		}
		if ls == nil {
			ls = make([]life, 0, len(p.Buffers)-i)
			lo, hi = b.Start, b.End
		}
		lo, hi = min(lo, b.Start), max(hi, b.End)
		ls = append(ls, life{b.Start, b.End, b.Size})
	}
	if len(ls) == 0 {
		return LiveCounts{}
	}
	if span := uint64(hi) - uint64(lo); span < 3*uint64(len(ls))+1024 {
		return liveByStep(ls, lo, int(span)+1)
	}
	return liveSorted(ls)
}

// life is a buffer's lifetime and size.
type life struct{ start, end, size int64 }

// liveByStep counts per time step lo, lo+1, ..., lo+steps-1.
func liveByStep(ls []life, lo int64, steps int) LiveCounts {
	type step struct {
		delta        int64 // bytes starting minus bytes ending here
		starts, ends int32 // buffers starting, ending here
	}
	at := make([]step, steps)
	for _, l := range ls {
		s, e := &at[l.start-lo], &at[l.end-lo]
		s.delta += l.size
		s.starts++
		e.delta -= l.size
		e.ends++
	}
	// Lifetimes are half-open: the load on [t, t+1) is the sum of the
	// deltas up to t. A pair (a, b) is alive together iff a starts before b
	// ends and b before a ends: Σ over buffers of (starts before its end)
	// − (ends up to its start) counts each such pair twice and each buffer
	// once.
	var c LiveCounts
	var load, startsBefore, endsUpTo int64
	var sum float64
	for t := range at {
		x := &at[t]
		sum += float64(x.ends) * float64(startsBefore) // buffers ending at t: starts before t
		endsUpTo += int64(x.ends)
		sum -= float64(x.starts) * float64(endsUpTo) // buffers starting at t: ends at or before t
		startsBefore += int64(x.starts)
		load += x.delta
		if load > c.MaxLive {
			c.MaxLive, c.At = load, lo+int64(t)
		}
	}
	c.Pairs = (sum - float64(len(ls))) / 2
	return c
}

// liveSorted sorts the start and end times.
func liveSorted(ls []life) LiveCounts {
	type event struct{ t, d int64 }
	n := len(ls)
	starts, ends := make([]event, n), make([]event, n)
	for i, l := range ls {
		starts[i], ends[i] = event{l.start, l.size}, event{l.end, l.size}
	}
	byTime := func(a, b event) int {
		switch {
		case a.t < b.t:
			return -1
		case a.t > b.t:
			return 1
		}
		return 0
	}
	slices.SortFunc(starts, byTime)
	slices.SortFunc(ends, byTime)
	var c LiveCounts
	var load int64
	var sum float64
	i, j := 0, 0
	// ends before starts at equal times
	for i < n || j < n {
		if j < n && (i == n || ends[j].t <= starts[i].t) {
			sum += float64(i) // starts before this end
			load -= ends[j].d
			j++
			continue
		}
		sum -= float64(j) // ends at or before this start
		load += starts[i].d
		if load > c.MaxLive {
			c.MaxLive, c.At = load, starts[i].t
		}
		i++
	}
	c.Pairs = (sum - float64(n)) / 2
	return c
}
