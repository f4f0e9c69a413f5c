package model

import (
	"cmp"
	"slices"
	"sort"
)

// Piece is a rectangle of occupancy: during [Start, End) it takes Bytes bytes.
// Buffers with gaps give several pieces; an alias group gives the union of its
// members' byte ranges.
type Piece struct {
	Start, End int64
	Bytes      int64
	Buffer     int // the buffer (the alias root for a group)
}

// Slot is an elementary time interval in which the set of live pieces does
// not change; Load is the sum of their bytes.
type Slot struct {
	Start, End int64
	Load       int64
}

// Component is a set of buffers that no time point separates: buffers of
// different components are never live together, so they can be planned
// independently.
type Component struct {
	Start, End int64
	Buffers    []int
}

// Sweep is the result of a sweep over time.
type Sweep struct {
	Slots []Slot
	// MaxLive is the largest slot load: a lower bound on the peak.
	MaxLive int64
	// Sections counts the maximal cliques: slots entered by a start and left
	// by an end.
	Sections   int
	Components []Component
}

// Pieces expands the problem into occupancy pieces, taking gaps and alias
// groups into account. Zero-byte pieces are dropped. O(n log n) plus, per
// alias group, the number of its members live at each of its time points.
func (p *Problem) Pieces() []Piece {
	return p.PiecesOf(p.AliasParents())
}

// Rect is a time × byte rectangle a buffer occupies: bytes [Lo, Hi)
// relative to an offset, during [Start, End).
type Rect struct{ Start, End, Lo, Hi int64 }

// Rects appends to dst the rectangles buffer b occupies at byte delta
// inside its alias root (0 for a root): its whole size outside its gaps,
// nothing in an absent gap, the window [Lo, Hi) inside a partial gap.
// Empty rectangles are left out. This is the footprint the verifier
// checks (verify keeps its own copy: it shares no code with planners).
func (b *Buffer) Rects(delta int64, dst []Rect) []Rect {
	emit := func(t0, t1, lo, hi int64) {
		if t1 > t0 && hi > lo {
			dst = append(dst, Rect{t0, t1, delta + lo, delta + hi})
		}
	}
	t := b.Start
	for _, g := range b.Gaps {
		emit(t, g.Start, 0, b.Size)
		if g.Window {
			emit(g.Start, g.End, g.Lo, g.Hi)
		}
		t = g.End
	}
	emit(t, b.End, 0, b.Size)
	return dst
}

// UnionLoad returns, for every elementary interval of the rectangles where
// their union is not empty, the number of bytes it covers, as
// Rect{Start, End, 0, bytes}, in time order.
func UnionLoad(rs []Rect) []Rect {
	var out []Rect
	for _, u := range UnionRects(rs) {
		if n := len(out); n > 0 && out[n-1].Start == u.Start {
			out[n-1].Hi += u.Hi - u.Lo
		} else if u.Hi > u.Lo {
			out = append(out, Rect{Start: u.Start, End: u.End, Hi: u.Hi - u.Lo})
		}
	}
	return out
}

// UnionRects returns the union of possibly overlapping rectangles, cut at
// every start and end time: for each elementary interval [t0, t1) between
// consecutive distinct times, the byte ranges of the rectangles live
// throughout it, merged where they overlap or touch, as Rects sorted by Lo;
// the intervals come in time order.
func UnionRects(rs []Rect) []Rect {
	times := make([]int64, 0, 2*len(rs))
	for _, r := range rs {
		times = append(times, r.Start, r.End)
	}
	slices.Sort(times)
	times = slices.Compact(times)
	// Rectangles by start; the live ones are kept as the sweep moves, so
	// the cost is the sum of the live counts, not times × rectangles.
	order := make([]int, len(rs))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(rs[a].Start, rs[b].Start) })
	var out []Rect
	var active, live []Rect
	next := 0
	for k := 0; k+1 < len(times); k++ {
		t0, t1 := times[k], times[k+1]
		n := 0
		for _, r := range active {
			if r.End >= t1 {
				active[n] = r
				n++
			}
		}
		active = active[:n]
		for next < len(order) && rs[order[next]].Start <= t0 {
			if r := rs[order[next]]; r.End >= t1 {
				active = append(active, r)
			}
			next++
		}
		live = append(live[:0], active...)
		slices.SortFunc(live, func(a, b Rect) int { return cmp.Compare(a.Lo, b.Lo) })
		first := len(out)
		for _, r := range live {
			if n := len(out); n > first && r.Lo <= out[n-1].Hi {
				out[n-1].Hi = max(out[n-1].Hi, r.Hi)
				continue
			}
			out = append(out, Rect{Start: t0, End: t1, Lo: r.Lo, Hi: r.Hi})
		}
	}
	return out
}

// ComputeSweep sweeps the problem's pieces over time: slots with their loads,
// max-live, the number of sections, and the independent components. It is
// O(n log n) in the number of pieces. Pools are ignored: the loads are those
// of a single memory.
func (p *Problem) ComputeSweep() *Sweep {
	pieces := p.Pieces()
	type event struct {
		t     int64
		delta int64
	}
	events := make([]event, 0, 2*len(pieces))
	for _, pc := range pieces {
		events = append(events, event{pc.Start, pc.Bytes}, event{pc.End, -pc.Bytes})
	}
	slices.SortFunc(events, func(a, b event) int {
		if a.t != b.t {
			if a.t < b.t {
				return -1
			}
			return 1
		}
		return 0
	})
	s := &Sweep{}
	var load int64
	enteredByStart := false
	for k := 0; k < len(events); {
		t := events[k].t
		hasStart, hasEnd := false, false
		for ; k < len(events) && events[k].t == t; k++ {
			load += events[k].delta
			if events[k].delta > 0 {
				hasStart = true
			} else {
				hasEnd = true
			}
		}
		if hasEnd && enteredByStart && len(s.Slots) > 0 {
			s.Sections++
		}
		if hasStart || hasEnd {
			enteredByStart = hasStart
		}
		if k < len(events) && load > 0 {
			s.Slots = append(s.Slots, Slot{Start: t, End: events[k].t, Load: load})
			s.MaxLive = max(s.MaxLive, load)
		}
	}
	s.Components = p.components()
	return s
}

// components splits the buffers into groups that no time point separates.
// Alias members follow their root; zero-size buffers join the component
// their lifetime starts in.
func (p *Problem) components() []Component {
	n := len(p.Buffers)
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	empty := func(b *Buffer) bool { return b.Size == 0 && b.Alias == nil }
	// By start; at equal starts, zero-size buffers after the others, so
	// that they join a component starting there.
	sort.SliceStable(order, func(a, b int) bool {
		x, y := &p.Buffers[order[a]], &p.Buffers[order[b]]
		if x.Start != y.Start {
			return x.Start < y.Start
		}
		return !empty(x) && empty(y)
	})
	var out []Component
	for _, i := range order {
		b := &p.Buffers[i]
		end := b.End
		if empty(b) {
			// It occupies nothing: it must not join the components it
			// spans into one.
			end = b.Start
		}
		if len(out) == 0 || b.Start >= out[len(out)-1].End {
			out = append(out, Component{Start: b.Start, End: end})
		}
		c := &out[len(out)-1]
		c.End = max(c.End, end)
		c.Buffers = append(c.Buffers, i)
	}
	if hasAlias(p) {
		out = mergeAliasComponents(p, out)
	}
	return out
}

func hasAlias(p *Problem) bool {
	for i := range p.Buffers {
		if p.Buffers[i].Alias != nil {
			return true
		}
	}
	return false
}

// mergeAliasComponents joins components that hold members of the same alias
// group (a reshape's output may outlive its input with a time point between).
func mergeAliasComponents(p *Problem, comps []Component) []Component {
	root, _ := p.AliasRoots(p.Index())
	compOf := make([]int, len(p.Buffers))
	for c, comp := range comps {
		for _, i := range comp.Buffers {
			compOf[i] = c
		}
	}
	parent := make([]int, len(comps))
	for c := range parent {
		parent[c] = c
	}
	find := func(c int) int {
		for parent[c] != c {
			parent[c] = parent[parent[c]]
			c = parent[c]
		}
		return c
	}
	for i := range p.Buffers {
		if p.Buffers[i].Alias != nil {
			a, b := find(compOf[i]), find(compOf[root[i]])
			if a != b {
				parent[max(a, b)] = min(a, b)
			}
		}
	}
	var out []Component
	pos := map[int]int{}
	for c, comp := range comps {
		r := find(c)
		k, ok := pos[r]
		if !ok {
			k = len(out)
			pos[r] = k
			out = append(out, Component{Start: comp.Start, End: comp.End})
		}
		out[k].Start = min(out[k].Start, comp.Start)
		out[k].End = max(out[k].End, comp.End)
		out[k].Buffers = append(out[k].Buffers, comp.Buffers...)
	}
	return out
}
