package refine

import (
	"cmp"
	"slices"
	"strconv"

	"github.com/optalloc/optalloc/exact/bnb"
	"github.com/optalloc/optalloc/model"
)

// The refiner's state and its windows (see Refine): which groups live
// where in time, the peak, and the sub-problem of a window.

// refiner holds a plan being refined.
type refiner struct {
	p       *model.Problem
	pool    model.Pool
	opt     bnb.Options
	group   []model.AliasGroup
	of      []int   // buffer → group
	delta   []int64 // buffer → byte offset from its root
	members [][]int // each group's buffers other than its root
	index   map[string]int
	// movable groups have no pinned member and some bytes.
	movable []bool
	// rects are each group's footprint relative to its root's offset.
	rects [][]model.Rect
	top   []int64 // each group's highest byte relative to its root's offset
	off   []int64 // each group's root offset in the plan being refined
	// tops holds each group's highest byte in the plan (-1: no bytes);
	// fixedTop is the highest of the groups that cannot move.
	tops     *topTree
	fixedTop int64
	// times are the distinct start and end times; startAt[k] / endAt[k]
	// list the groups starting / ending at times[k].
	times          []int64
	startAt, endAt [][]int32
	// span[g] is group g's [start, end) as indices into times; long lists
	// the groups spanning more than shortSpan of them (see alive).
	span [][2]int32
	long []int32
	// Counters for the statistics.
	windows, improved, nodes int64
	// work is the budget of a window (see Work).
	work int64
	// stopped says why the refinement stopped before the bound.
	stopped string
}

func newRefiner(p *model.Problem, plan *model.Plan, opt bnb.Options) *refiner {
	groups, of, delta := p.AliasGroups()
	r := &refiner{p: p, pool: p.PoolList()[0], opt: opt, group: groups, of: of, delta: delta}
	n := len(groups)
	r.movable = make([]bool, n)
	r.rects = make([][]model.Rect, n)
	r.top = make([]int64, n)
	r.off = make([]int64, n)
	for g := range groups {
		r.movable[g] = true
	}
	r.members = make([][]int, n)
	for i := range p.Buffers {
		g := of[i]
		if i != groups[g].Root {
			r.members[g] = append(r.members[g], i)
		}
		if p.Buffers[i].Pin != nil {
			r.movable[g] = false
		}
	}
	for g, ms := range r.members {
		rs := p.Buffers[groups[g].Root].Rects(0, nil)
		for _, i := range ms {
			rs = p.Buffers[i].Rects(delta[i], rs)
		}
		if len(ms) > 0 {
			rs = model.UnionRects(rs)
			if r.index == nil {
				r.index = p.Index()
			}
		}
		r.rects[g] = rs
		for _, x := range rs {
			r.top[g] = max(r.top[g], x.Hi)
		}
		if len(rs) == 0 {
			r.movable[g] = false
		}
		r.off[g] = plan.Placements[groups[g].Root].Offset
	}
	vals := make([]int64, n)
	for g := range vals {
		vals[g] = -1
		if len(r.rects[g]) > 0 {
			vals[g] = r.off[g] + r.top[g]
			if !r.movable[g] {
				r.fixedTop = max(r.fixedTop, vals[g])
			}
		}
	}
	r.tops = newTopTree(vals)
	for _, gr := range groups {
		r.times = append(r.times, gr.Start, gr.End)
	}
	slices.Sort(r.times)
	r.times = slices.Compact(r.times)
	r.startAt = make([][]int32, len(r.times))
	r.endAt = make([][]int32, len(r.times))
	r.span = make([][2]int32, n)
	for g, gr := range groups {
		s, _ := slices.BinarySearch(r.times, gr.Start)
		e, _ := slices.BinarySearch(r.times, gr.End)
		r.startAt[s] = append(r.startAt[s], int32(g))
		r.endAt[e] = append(r.endAt[e], int32(g))
		r.span[g] = [2]int32{int32(s), int32(e)}
		if e-s > shortSpan {
			r.long = append(r.long, int32(g))
		}
	}
	return r
}

// shortSpan: groups spanning at most this many times are found through
// startAt by alive; the others are listed in long.
const shortSpan = 64

// alive calls f on every group alive in the time indices [a, b), each once
// (in no particular order): O(window + long groups), not O(groups).
func (r *refiner) alive(a, b int, f func(g int32)) {
	for k := max(0, a-shortSpan); k < b; k++ {
		for _, g := range r.startAt[k] {
			if sp := r.span[g]; sp[1] > int32(a) && sp[1]-sp[0] <= shortSpan {
				f(g)
			}
		}
	}
	for _, g := range r.long {
		if sp := r.span[g]; sp[0] < int32(b) && sp[1] > int32(a) {
			f(g)
		}
	}
}

// peak is the plan's peak, the first group at it, and the highest top
// below it.
func (r *refiner) peak() (peak int64, at int32, below int64) {
	p, g, b := r.tops.top()
	return p, int32(g), b
}

// window returns the time indices [a, b) of a window that holds group c,
// every group at the peak it meets, and about k movable groups that live
// inside it.
func (r *refiner) window(c int32, peak int64, k int) (a, b int) {
	a, _ = slices.BinarySearch(r.times, r.group[c].Start)
	b, _ = slices.BinarySearch(r.times, r.group[c].End)
	inside := 0
	// grow moves a or b by one time and counts the groups now inside.
	grow := func(left bool) {
		if left {
			a--
			for _, g := range r.startAt[a] {
				if r.movable[g] && r.group[g].End <= r.times[b] {
					inside++
				}
			}
			return
		}
		b++
		for _, g := range r.endAt[b] {
			if r.movable[g] && r.group[g].Start >= r.times[a] {
				inside++
			}
		}
	}
	for t := a; t <= b; t++ {
		for _, g := range r.startAt[t] {
			if r.movable[g] && r.group[g].End <= r.times[b] {
				inside++
			}
		}
	}
	for left := true; inside < k && (a > 0 || b < len(r.times)-1); left = !left {
		if left && a > 0 || !left && b == len(r.times)-1 {
			grow(true)
		} else {
			grow(false)
		}
	}
	// Groups at the peak that cross the window must be inside it, or it
	// cannot come down.
	for changed := true; changed; {
		changed = false
		var cross []int32
		r.alive(a, b, func(g int32) {
			if sp := r.span[g]; r.movable[g] && r.off[g]+r.top[g] >= peak && (sp[0] < int32(a) || sp[1] > int32(b)) {
				cross = append(cross, g)
			}
		})
		for _, g := range cross {
			for sp := r.span[g]; int32(a) > sp[0]; {
				grow(true)
			}
			for sp := r.span[g]; int32(b) < sp[1]; {
				grow(false)
			}
			changed = true
		}
	}
	return a, b
}

// subProblem builds the window of time indices [a, b): the movable groups
// inside it, with their offsets as the incumbent, and every other piece
// alive in it pinned. free lists the groups of the sub-problem's first
// buffers: group free[j]'s root is buffer first[j]; the pinned pieces are
// the buffers from pinFrom on.
func (r *refiner) subProblem(a, b int) (sub *model.Problem, inc *model.Plan, free []int32, first []int, pinFrom int) {
	p := r.p
	t0, t1 := r.times[a], r.times[b]
	sub = &model.Problem{Pools: []model.Pool{{Name: r.pool.Name}}}
	var offs []int64
	var pins []model.Rect
	r.alive(a, b, func(g int32) {
		if len(r.rects[g]) == 0 {
			return
		}
		if sp := r.span[g]; r.movable[g] && sp[0] >= int32(a) && sp[1] <= int32(b) {
			free = append(free, g)
			return
		}
		for _, x := range r.rects[g] {
			if x.Start < t1 && x.End > t0 {
				pins = append(pins, model.Rect{Start: max(x.Start, t0), End: min(x.End, t1),
					Lo: r.off[g] + x.Lo, Hi: r.off[g] + x.Hi})
			}
		}
	})
	slices.Sort(free) // a deterministic order for the search
	// The free groups, root first, then their members; ids are positions.
	id := func(k int) string { return "b" + strconv.Itoa(k) }
	for _, g := range free {
		first = append(first, len(sub.Buffers))
		group := append([]int{r.group[g].Root}, r.members[g]...)
		local := map[int]int{}
		for k, i := range group {
			local[i] = len(sub.Buffers) + k
		}
		for _, i := range group {
			b := p.Buffers[i]
			nb := model.Buffer{ID: id(len(sub.Buffers)), Start: b.Start, End: b.End,
				Size: b.Size, Align: b.AlignmentIn(&r.pool), Gaps: b.Gaps, Kind: b.Kind}
			if b.Alias != nil {
				nb.Alias = &model.Alias{Parent: id(local[r.index[b.Alias.Parent]]), Delta: b.Alias.Delta}
			}
			sub.Buffers = append(sub.Buffers, nb)
			offs = append(offs, r.off[g]+r.delta[i])
		}
	}
	pinFrom = len(sub.Buffers)
	for k, x := range mergePins(pins) {
		pin := x.Lo
		sub.Buffers = append(sub.Buffers, model.Buffer{ID: "p" + strconv.Itoa(k), Start: x.Start, End: x.End,
			Size: x.Hi - x.Lo, Pin: &pin})
		offs = append(offs, x.Lo)
	}
	inc = model.NewPlan(sub)
	for i := range inc.Placements {
		inc.Placements[i].Offset = offs[i]
	}
	return sub, inc, free, first, pinFrom
}

// plan returns the refined offsets as a plan of the whole problem.
func (r *refiner) plan() *model.Plan {
	pl := model.NewPlan(r.p)
	for i := range pl.Placements {
		pl.Placements[i].Offset = r.off[r.of[i]] + r.delta[i]
	}
	return pl
}

// mergePins merges pinned pieces of the same lifetime that touch in
// address: long-lived buffers clipped to a window are stacked blocks, and
// every pin costs the search time at every node.
func mergePins(pins []model.Rect) []model.Rect {
	slices.SortFunc(pins, func(a, b model.Rect) int {
		if a.Start != b.Start {
			return cmp.Compare(a.Start, b.Start)
		}
		if a.End != b.End {
			return cmp.Compare(a.End, b.End)
		}
		return cmp.Compare(a.Lo, b.Lo)
	})
	out := pins[:0]
	for _, x := range pins {
		if n := len(out); n > 0 && out[n-1].Start == x.Start && out[n-1].End == x.End && out[n-1].Hi == x.Lo {
			out[n-1].Hi = x.Hi
			continue
		}
		out = append(out, x)
	}
	return out
}

// windowPairs counts the pairs of buffers whose lifetimes overlap: in
// start order, each buffer with those after it that start before it ends.
func windowPairs(bs []model.Buffer) int64 {
	starts := make([]int64, len(bs))
	ends := make([]int64, len(bs))
	order := make([]int, len(bs))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(bs[a].Start, bs[b].Start) })
	for k, i := range order {
		starts[k], ends[k] = bs[i].Start, bs[i].End
	}
	var n int64
	for k := range starts {
		hi, _ := slices.BinarySearch(starts, ends[k])
		n += int64(hi - k - 1)
	}
	return n
}
