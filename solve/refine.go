package solve

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/solve/bnb"
)

// Time-window refinement: on a long schedule the peak of a plan is set in a
// few stretches of time, and each can be re-planned alone. The refiner
// takes a group (an alias group, or a plain buffer) whose top is the peak,
// cuts a window of time around it holding about 96 movable groups, pins
// every other group alive in the window where the plan has it (clipped to
// the window), and minimises the window with the branch-and-bound from the
// plan's own offsets, with a budget of nodes. A window that comes out
// below the peak replaces the plan's offsets there; one that does not is
// tried wider and with more budget (refineAttempts). The result is
// a restriction of the problem, so every plan it makes is valid; it proves
// no bound.

// runRefine lowers the best plan window by window (methods auto and exact,
// problems of refineMinBuffers buffers or more), before the exact race:
// minimising, down to the lower bound, with half the time left when an
// exact engine takes the problem on (the race then starts from the refined
// plan) and all of it otherwise; deciding a capacity no plan fits yet, the
// lowest plan above it down to the capacity, with half the time when the
// race has an engine or the heuristic portfolio to run (see
// racesPortfolio), all of it otherwise. On a graph of 100 000 ops (a chain
// with skips) the plan went from 10% above max-live to max-live.
func (s *solver) runRefine(ctx context.Context) error {
	if s.opt.NoRefine || s.quick || s.restricted || ctx.Err() != nil || len(s.p.Buffers) < refineMinBuffers ||
		s.opt.Method != "auto" && s.opt.Method != "exact" {
		return nil
	}
	from, target, share := s.res.Plan, s.res.LowerBound, s.exactTakes()
	if c := s.p.PoolList()[0].Capacity; c > 0 {
		if s.res.Plan != nil || c < s.res.LowerBound {
			return nil // decided
		}
		from, target, share = s.overPlan, c, share || s.racesPortfolio()
	}
	if from == nil || from.Peak(s.p) <= target {
		return nil
	}
	if dl, ok := ctx.Deadline(); ok && share {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Until(dl)/2)
		defer cancel()
	}
	t := time.Now()
	defer s.res.Stats.phase("refine", t)
	name := s.res.Method
	if s.res.Plan == nil {
		name = "refine"
	} else if !strings.HasSuffix(name, "+refine") {
		name += "+refine"
	}
	var offerErr error
	st, err := refine(ctx, s.p, from, target, s.opt.BnB, defaultRefineBudget, func(pl *model.Plan) {
		if offerErr == nil {
			offerErr = s.offer(pl, name)
		}
	})
	s.res.Stats.engine("refine", st)
	if err != nil {
		return fmt.Errorf("refine: %w", err)
	}
	return offerErr
}

// Refinement settings (see runRefine).
const (
	// refineMinBuffers: the refinement runs on problems of this many
	// buffers or more; below, a window would be most of the problem, and
	// the exact engines take the whole.
	refineMinBuffers = 2000
	// refineMinNodes: a window whose budget (refineWork) is smaller is too
	// dense to search.
	refineMinNodes = 1024
	// refineWork is the branch-and-bound's budget per window in nodes ×
	// (pairs + 4 × buffers) of the window, its pairs of buffers alive
	// together that are not both pinned: a node costs about 3–14 ns per
	// pair, so a window takes up to about a quarter of a second.
	refineWork = 25_000_000
)

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
	// work is the budget of a window (see refineWork).
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

// subProblem builds the window of time indices [a, b): the movable groups inside it,
// with their offsets as the incumbent, and every other piece alive in it
// pinned. free lists the groups of the sub-problem's first buffers: group
// free[j]'s root is buffer first[j].
func (r *refiner) subProblem(a, b int) (sub *model.Problem, inc *model.Plan, free []int32, first []int) {
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
	pins = mergePins(pins)
	for k, x := range pins {
		pin := x.Lo
		sub.Buffers = append(sub.Buffers, model.Buffer{ID: "p" + strconv.Itoa(k), Start: x.Start, End: x.End,
			Size: x.Hi - x.Lo, Pin: &pin})
		offs = append(offs, x.Lo)
	}
	inc = model.NewPlan(sub)
	for i := range inc.Placements {
		inc.Placements[i].Offset = offs[i]
	}
	return sub, inc, free, first
}

// step re-plans the window of about try.groups movable groups around group
// at (at the peak), and says whether it came below the peak.
func (r *refiner) step(ctx context.Context, peak, below int64, at int32, try attempt) (stepResult, error) {
	k := try.groups
	if r.fixedTop >= peak {
		r.stopped = "a pinned buffer is at the peak"
		return stuck, nil
	}
	a, b := r.window(at, peak, k)
	sub, inc, free, first := r.subProblem(a, b)
	opt := r.opt
	// The budget: a node costs time in proportion to the buffers of the
	// window and the pairs of them alive together.
	pairs := windowPairs(sub.Buffers) - windowPairs(sub.Buffers[len(inc.Placements)-pinCount(sub):])
	opt.Threads, opt.MaxNodes = 1, r.work/(pairs+4*int64(len(sub.Buffers)))+1
	if opt.MaxNodes < refineMinNodes {
		// Too dense to search: a wider window would be denser still.
		return tooDense, nil
	}
	opt.MaxNodes *= try.effort
	r.windows++
	// Small first rounds, so that one decision stays within the budget.
	opt.NodeLimit = max(16, opt.MaxNodes/64)
	opt.LowerBound = 0
	// Below the highest top under the peak the peak gains nothing yet:
	// the search stops there.
	target := below
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	best, _, st, err := bnb.Minimise(wctx, sub, inc, 0, opt, func(pl *model.Plan) {
		if pl.Peak(sub) <= target {
			cancel()
		}
	})
	r.nodes += st.Nodes

	if err != nil && ctx.Err() == nil {
		return stuck, err
	}
	if best == nil || best.Peak(sub) >= peak {
		return failed, nil
	}
	r.improved++
	for j, g := range free {
		r.off[g] = best.Placements[first[j]].Offset
		r.tops.set(int(g), r.off[g]+r.top[g])
	}
	return lowered, nil
}

// stepResult is what one window did.
type stepResult int

const (
	lowered  stepResult = iota // the window came below the peak
	failed                     // it did not: try a wider one
	stuck                      // no window will (see refiner.stopped)
	tooDense                   // the window is too dense to search
)

// reportEvery is the shortest time between two reports of a lower plan.
const reportEvery = 200 * time.Millisecond

// refineBudget is the work of one window at effort 1 (see refineWork) and
// the attempts made at a peak.
type refineBudget struct {
	work     int64
	attempts []attempt
}

var defaultRefineBudget = refineBudget{refineWork, refineAttempts}

// attempt is a window size in movable groups and a multiple of the budget.
type attempt struct {
	groups int
	effort int64
}

// refineAttempts are tried in turn on the groups at a peak until one
// lowers it: wider windows with the same budget first, which is often
// enough (a chain of 10 000 ops: a window of 96 groups not lowered in
// 18 000 nodes, one of 192 in 3 000), then each size with four and sixteen
// times the budget (from greedy-size's plan of that chain the refinement
// stopped 2.4% above max-live with the budget alone, and reached max-live
// with four times it, in 2.1 s).
var refineAttempts = []attempt{
	{96, 1}, {192, 1}, {384, 1}, {768, 1},
	{96, 4}, {192, 4}, {384, 4}, {768, 4},
	{96, 16}, {192, 16}, {384, 16},
}

// plan returns the refined offsets as a plan of the whole problem.
func (r *refiner) plan() *model.Plan {
	pl := model.NewPlan(r.p)
	for i := range pl.Placements {
		pl.Placements[i].Offset = r.off[r.of[i]] + r.delta[i]
	}
	return pl
}

// refine lowers the peak of plan (valid, single pool) window by window
// until lb, ctx's end, or a peak none of b's attempts lowers; it calls
// onImprove with each plan of a lower peak.
func refine(ctx context.Context, p *model.Problem, plan *model.Plan, lb int64, opt bnb.Options, b refineBudget, onImprove func(*model.Plan)) (map[string]any, error) {
	r := newRefiner(p, plan, opt)
	r.work = b.work
	peak, at, below := r.peak()
	start := peak
	// Reports cost O(n) and more (the caller verifies each plan): on a
	// chain of 1 000 000 ops the peak fell 1 116 times. They come at most
	// every reportEvery (or four times what the last one cost), the last
	// plan is always reported, and the refinement stops early enough
	// before ctx's deadline to report it in time.
	// The first report waits reportEvery too; until one is timed, a report
	// is taken to cost a microsecond per buffer (the verifier's order).
	last, cost := time.Now(), time.Duration(len(p.Buffers))*time.Microsecond
	pending := false
	report := func() {
		t := time.Now()
		onImprove(r.plan())
		cost, last, pending = time.Since(t), time.Now(), false
	}
	next := 0 // the attempt at this peak
	for peak > lb && ctx.Err() == nil {
		if dl, ok := ctx.Deadline(); ok && pending && time.Until(dl) < cost {
			break
		}
		res, err := r.step(ctx, peak, below, at, b.attempts[next])
		if err != nil {
			return nil, err
		}
		if res == stuck {
			break
		}
		if res != lowered {
			if res == tooDense && next == 0 {
				r.stopped = "the windows at the peak are too dense to search"
				break
			}
			if next++; next == len(b.attempts) {
				r.stopped = "no window tried lowers the peak"
				break
			}
			continue
		}
		next = 0
		p2, at2, below2 := r.peak()
		if p2 < peak && onImprove != nil {
			pending = true
			if time.Since(last) >= max(reportEvery, 4*cost) {
				report()
			}
		}
		peak, at, below = p2, at2, below2
	}
	if pending {
		report()
	}
	st := map[string]any{"windows": r.windows, "lowered": r.improved, "nodes": r.nodes,
		"start_peak": start, "peak": peak}
	if r.stopped != "" {
		st["stopped"] = r.stopped
	}
	return st, nil
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

// pinCount counts the pinned buffers of a window (they come last).
func pinCount(sub *model.Problem) int {
	n := 0
	for i := len(sub.Buffers) - 1; i >= 0 && sub.Buffers[i].Pin != nil; i-- {
		n++
	}
	return n
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
