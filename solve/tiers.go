package solve

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/optalloc/optalloc/model"
)

// Tiers: a problem with several pools is solved in two steps. First every
// alias group is assigned to a pool, fastest (lowest rank) first, by
// priority; then each pool is planned as a single-pool problem by the usual
// pipeline. The priority (highest first) is:
//
//  1. latency-critical scratch buffers;
//  2. the buffer's Weight when it gives one, else its bytes per unit of
//     lifetime (size / (end − start): big, short-lived buffers carry the most
//     traffic per byte of the fast pool).
//
// A pool takes the longest prefix of its candidates (in priority order) whose
// plan fits its capacity (a prefix is first filtered by max-live, then
// planned), then offers each left-out candidate in priority order one more
// time: it joins when the pool's plan still fits. Buffers that cannot go to a faster pool spill to the next one; the
// last pool takes the rest. Pinned buffers go to their first allowed pool.
// With an exact method (auto, exact, bnb) the exact split (tiersplit.go)
// then looks for a heavier share of each faster pool and proves it minimal
// when it can; Result.Split says which. The status is still claimed per
// pool only: the pools' peaks are minimised for the split chosen.

// group is an alias root with its members, assigned to a pool as one unit.
type group struct {
	members  []int
	start    int64
	end      int64
	size     int64
	priority float64
	critical bool
	weight   float64      // the buffers' Weight when given, else bytes: what spilling it costs
	allowed  map[int]bool // pool indexes; nil = any
	deltas   int64        // GCD of the members' alias deltas (0: none)
	pinned   bool
}

func groupsOf(p *model.Problem) []*group {
	groups, _, delta := p.AliasGroups()
	out := make([]*group, 0, len(groups))
	for _, gr := range groups {
		g := &group{start: gr.Start, end: gr.End, size: p.Buffers[gr.Root].Size}
		g.members = append([]int{gr.Root}, gr.Members...)
		for _, i := range g.members {
			b := &p.Buffers[i]
			g.deltas = model.GCD(g.deltas, delta[i])
			g.critical = g.critical || (b.LatencyCritical && b.Kind == model.Scratch)
			g.pinned = g.pinned || b.Pin != nil
			if b.Weight > 0 {
				g.priority = max(g.priority, b.Weight)
				g.weight = max(g.weight, b.Weight)
			}
			if len(b.Pools) > 0 {
				allowed := map[int]bool{}
				for _, name := range b.Pools {
					if k := p.PoolIndex(name); k >= 0 && (g.allowed == nil || g.allowed[k]) {
						allowed[k] = true
					}
				}
				g.allowed = allowed
			}
		}
		out = append(out, g)
	}
	for _, g := range out {
		if g.priority == 0 {
			g.priority = float64(g.size) / float64(g.end-g.start)
		}
		if g.weight == 0 {
			g.weight = float64(g.size)
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].before(out[b]) })
	return out
}

// before orders groups by priority: latency-critical scratch first, then
// by weight (or bytes per unit of lifetime), highest first.
func (g *group) before(h *group) bool {
	if g.critical != h.critical {
		return g.critical
	}
	return g.priority > h.priority
}

// subProblem extracts the buffers of groups into a single-pool problem.
func subProblem(p *model.Problem, pool model.Pool, groups []*group) (*model.Problem, []int) {
	sub := &model.Problem{Name: p.Name, Pools: []model.Pool{{Name: pool.Name, Capacity: pool.Capacity, Align: pool.Align}}}
	var back []int
	for _, g := range groups {
		for _, i := range g.members {
			b := p.Buffers[i]
			b.Pools = nil
			if pool.Alignment() > 1 {
				b.Align = b.AlignmentIn(&pool)
			}
			sub.Buffers = append(sub.Buffers, b)
			back = append(back, i)
		}
	}
	return sub, back
}

// solveTiers splits the buffers over the pools and solves each pool.
func (s *solver) solveTiers(ctx context.Context) error {
	p := s.p
	pools := p.PoolList()
	order := make([]int, len(pools))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return pools[order[a]].Rank < pools[order[b]].Rank })
	if total, bounded := totalCapacity(pools); bounded {
		if ml := p.ComputeSweep().MaxLive; ml > total {
			s.res.Status, s.res.LowerBound = Infeasible, ml
			s.res.Reason = fmt.Sprintf("max-live %d exceeds the %d bytes of all pools together", ml, total)
			return nil
		}
	}
	left := groupsOf(p)
	if err := s.spillAll(ctx, pools, order, left); err != nil {
		return err
	}
	assigned := make([][]*group, len(pools))
	// Pinned groups go to their first allowed pool (in the buffer's order).
	var free []*group
	for _, g := range left {
		if !g.pinned {
			free = append(free, g)
			continue
		}
		k := -1
		for _, q := range pinnedPools(p, g, order) {
			if g.onGrid(p, &pools[q]) {
				k = q
				break
			}
		}
		if k < 0 {
			s.res.Status, s.res.Reason = Unknown, fmt.Sprintf("pinned buffer %q is off the alignment grid of every pool it may use", p.Buffers[g.members[0]].ID)
			return nil
		}
		assigned[k] = append(assigned[k], g)
	}
	left = free
	t := time.Now()
	split := &Split{Method: "exact", Proven: true, Pools: make([]PoolShare, len(pools))}
	// The split — fit tests and the exact split — gets a quarter of the
	// time (splitTimeout without a limit); the pools' plans the rest. Fit
	// tests that run out of it count as misfits, so a pool keeps the
	// largest share verified in time. (They had the whole time: a
	// 20 000-buffer trace with a fast and a slow pool spent 10 s of 10 s
	// splitting and returned no plan.)
	budget := splitTimeout
	if s.opt.TimeLimit > 0 {
		budget = s.opt.TimeLimit / 4
	}
	sctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	if s.opt.FreeListTiers != nil { // the free list's own split (freelisttiers.go)
		var err error
		if left, err = s.freeListSplit(sctx, left, assigned, split); err != nil {
			return err
		}
		order = nil
	}
	for n, k := range order {
		var cand, rest []*group
		for _, g := range left {
			// A pool whose alignment an alias delta breaks cannot hold
			// the group: root and member would both need its grid.
			if (g.allowed == nil || g.allowed[k]) && g.onGrid(p, &pools[k]) {
				cand = append(cand, g)
			} else {
				rest = append(rest, g)
			}
		}
		if n == len(order)-1 || pools[k].Capacity == 0 {
			assigned[k] = append(assigned[k], cand...)
			left = rest
			break
		}
		cand = onlyHereFirst(cand, order[n+1:])
		take, spill := s.fitPool(sctx, pools[k], assigned[k], cand)
		proven := false
		if s.exactSplitOn() {
			take, spill, proven = s.exactSplit(sctx, pools[k], assigned[k], cand, take)
		}
		if !proven {
			split.Method, split.Proven = "heuristic", false
		}
		for _, g := range spill {
			split.Pools[k].SpilledWeight += g.weight
		}
		assigned[k] = append(assigned[k], take...)
		left = append(rest, spill...)
	}
	for k, gs := range assigned {
		split.Pools[k].Name = pools[k].Name
		for _, g := range gs {
			split.Pools[k].Buffers += len(g.members)
			split.Pools[k].Bytes += g.size
		}
	}
	s.res.Split = split
	s.res.Stats.phase("tiers", t)
	if len(left) > 0 {
		s.res.Status, s.res.Reason = Unknown, fmt.Sprintf("%d buffers (first %q) fit in none of their allowed pools", len(left), p.Buffers[left[0].members[0]].ID)
		return nil
	}
	return s.solvePools(ctx, pools, assigned)
}

// exactSplitOn reports whether the method runs the exact split (the
// exact methods; heuristic ones and fit tests keep the heuristic split).
func (s *solver) exactSplitOn() bool {
	switch s.opt.Method {
	case "auto", "exact", "bnb":
		return !s.quick && !s.opt.NoBnB
	}
	return false
}

// totalCapacity adds the pools' capacities (saturating); bounded is false
// when some pool is unbounded.
func totalCapacity(pools []model.Pool) (total int64, bounded bool) {
	for _, q := range pools {
		if q.Capacity == 0 {
			return 0, false
		}
		total = min(total+q.Capacity, math.MaxInt64/2)
	}
	return total, true
}

// pinnedPools lists the pools a pinned group may go to, preferred first:
// its allowed pools in its buffers' order, else all, fastest first.
func pinnedPools(p *model.Problem, g *group, order []int) []int {
	if g.allowed == nil {
		return order
	}
	var out []int
	for _, i := range g.members {
		for _, name := range p.Buffers[i].Pools {
			if k := p.PoolIndex(name); g.allowed[k] && !slices.Contains(out, k) {
				out = append(out, k)
			}
		}
	}
	return out
}

// onGrid reports whether the group can live in pool q: the pool's
// alignment applies to the root and to every member (root + delta), and to
// every pin.
func (g *group) onGrid(p *model.Problem, q *model.Pool) bool {
	if g.deltas%q.Alignment() != 0 {
		return false
	}
	for _, i := range g.members {
		if b := &p.Buffers[i]; b.Pin != nil && *b.Pin%b.AlignmentIn(q) != 0 {
			return false
		}
	}
	return true
}

// fitPool chooses which candidates (in priority order) go to the pool:
// greedily every candidate that keeps the pool's max-live within its
// capacity, then the longest prefix of those whose heuristic plan fits.
// It returns the chosen groups and the rest.
func (s *solver) fitPool(ctx context.Context, pool model.Pool, fixed, cand []*group) (take, rest []*group) {
	times := map[int64]int{}
	var ts []int64
	for _, g := range append(append([]*group(nil), fixed...), cand...) {
		for _, t := range []int64{g.start, g.end} {
			if _, ok := times[t]; !ok {
				times[t] = 0
				ts = append(ts, t)
			}
		}
	}
	sort.Slice(ts, func(a, b int) bool { return ts[a] < ts[b] })
	for k, t := range ts {
		times[t] = k
	}
	load := make([]int64, len(ts))
	add := func(g *group) bool {
		for k := times[g.start]; k < times[g.end]; k++ {
			if load[k]+g.size > pool.Capacity {
				return false
			}
		}
		for k := times[g.start]; k < times[g.end]; k++ {
			load[k] += g.size
		}
		return true
	}
	for _, g := range fixed {
		add(g)
	}
	for _, g := range cand {
		if add(g) {
			take = append(take, g)
		} else {
			rest = append(rest, g)
		}
	}
	fits := func(take []*group) bool {
		sub, _ := subProblem(s.p, pool, append(append([]*group(nil), fixed...), take...))
		if len(sub.Buffers) == 0 {
			return true
		}
		c := s.child(sub)
		c.quick = true
		r, err := c.heuristicOnly(ctx)
		return err == nil && r.Plan != nil
	}
	lo, hi := 0, len(take)
	if !fits(take) {
		for hi-lo > 1 {
			mid := (lo + hi) / 2
			if fits(take[:mid]) {
				lo = mid
			} else {
				hi = mid
			}
		}
		rest = append(append([]*group(nil), take[lo:]...), rest...)
		take = take[:lo]
	}
	return s.fillPool(ctx, pool, fixed, take, rest, fits)
}

// maxFill bounds the candidates fillPool tries one by one (a variable so
// that tests can compare with the prefix alone).
var maxFill = 64

// fillPool offers the candidates left out of the pool (in priority order)
// one at a time: each that keeps the pool's max-live within its capacity and
// whose heuristic plan still fits joins it. A buffer behind the first one
// that did not fit may still fit (a short buffer in a quiet time), so this
// spills less than the prefix alone. At most maxFill candidates are planned.
func (s *solver) fillPool(ctx context.Context, pool model.Pool, fixed, take, rest []*group, fits func([]*group) bool) ([]*group, []*group) {
	if len(rest) == 0 || pool.Capacity <= 0 {
		return take, rest
	}
	sort.SliceStable(rest, func(a, b int) bool { return rest[a].before(rest[b]) })
	var spill []*group
	tried := 0
	for k, g := range rest {
		if tried >= maxFill || ctx.Err() != nil {
			spill = append(spill, rest[k:]...)
			break
		}
		with := append(append([]*group(nil), fixed...), take...)
		with = append(with, g)
		if !maxLiveWithin(with, pool.Capacity) {
			spill = append(spill, g)
			continue
		}
		tried++
		if fits(append(take[:len(take):len(take)], g)) {
			take = append(take, g)
		} else {
			spill = append(spill, g)
		}
	}
	return take, spill
}

// maxLiveWithin reports whether the groups' total size live at any time
// stays within capacity.
func maxLiveWithin(gs []*group, capacity int64) bool {
	type ev struct {
		t, d int64
	}
	evs := make([]ev, 0, 2*len(gs))
	for _, g := range gs {
		evs = append(evs, ev{g.start, g.size}, ev{g.end, -g.size})
	}
	sort.Slice(evs, func(a, b int) bool {
		if evs[a].t != evs[b].t {
			return evs[a].t < evs[b].t
		}
		return evs[a].d < evs[b].d // ends first
	})
	var live int64
	for _, e := range evs {
		if live += e.d; live > capacity {
			return false
		}
	}
	return true
}

// solvePools plans every pool's share as a single-pool problem and merges
// the plans. The status is the weakest of the pools', and never optimal
// across pools: the split is heuristic.
func (s *solver) solvePools(ctx context.Context, pools []model.Pool, assigned [][]*group) error {
	plan := model.NewPlan(s.p)
	status := Optimal
	var lb int64
	method := ""
	subs := make([]*model.Problem, len(assigned))
	backs := make([][]int, len(assigned))
	left := 0 // pools still to plan
	for k, gs := range assigned {
		subs[k], backs[k] = subProblem(s.p, pools[k], gs)
		if len(subs[k].Buffers) > 0 {
			left++
		}
	}
	quick, err := s.quickPools(ctx, pools, subs, backs)
	if err != nil {
		return err
	}
	for k, sub := range subs {
		if len(sub.Buffers) == 0 {
			continue
		}
		// Each pool gets an even share of the time left, so the fast pool's
		// search cannot leave the slow one without a plan (20 000 buffers
		// over two pools, --time-limit 1s: "pool slow: the time limit ran
		// out"); what a pool leaves unused goes to the next.
		pctx, cancel := ctx, context.CancelFunc(func() {})
		if left > 1 {
			pctx, cancel = withShare(ctx, left, s.parallelism()) // in CPU time (cpuclock.go)
		}
		r, err := s.child(sub).solveSingle(pctx)
		cancel()
		left--
		if err != nil {
			return err
		}
		if quick != nil && r.Status != Optimal && (r.Plan == nil || quick[k].Peak(sub) < r.Plan.Peak(sub)) {
			// The pool's solve ran out of time, or ended above its
			// quick plan: the quick plan stands.
			r.Plan, r.Status, r.Method = quick[k], Feasible, quickMethod(pools[k])
		}
		if r.Plan == nil {
			s.res.Status, s.res.Reason = r.Status, fmt.Sprintf("pool %q: %s", pools[k].Name, r.Reason)
			return nil
		}
		putPool(plan, k, backs[k], r.Plan)
		lb = max(lb, r.LowerBound)
		if r.Status != Optimal {
			status = r.Status
		}
		method = r.Method
	}
	// The split's plan replaces the provisional ones (spill, quick)
	// whatever their peaks: the split's objective is the faster pools'
	// share, not the highest pool's peak that keep compares.
	first := s.res.Stats.FirstPlanMillis
	held, heldMethod := s.res.Plan, s.res.Method
	s.setPlan(nil, "")
	err = s.offer(plan, "tiers+"+method)
	if s.res.Plan == nil { // not kept: it does not fit (not expected)
		s.setPlan(held, heldMethod)
	}
	if first > 0 {
		s.res.Stats.FirstPlanMillis = first
	}
	if err != nil {
		return err
	}
	s.res.LowerBound = lb
	if status == Optimal {
		status = Feasible // the split over pools is heuristic
	}
	s.tierStatus = status
	return nil
}

// quickMethod is the planner of a pool's quick plan: for a pool with a
// capacity the split's fit tests' planner (its share fitted with it), for
// the pool that takes the rest the free list, fast at any size.
func quickMethod(pool model.Pool) string {
	if pool.Capacity > 0 {
		return quickPlanner
	}
	return "freelist"
}

// quickPools plans every pool with one quick planner before the pools'
// full solves, and offers the whole plan, so that a multi-pool problem has
// a plan soon after its split rather than only when the last pool's solve
// ends (10 000 buffers over two pools, --time-limit 1s: the first plan at
// 1.0 s, and none at all on a loaded machine). It returns the pools' quick
// plans, or nil when some pool has none (a share the exact split chose
// that the quick planner cannot fit).
func (s *solver) quickPools(ctx context.Context, pools []model.Pool, subs []*model.Problem, backs [][]int) ([]*model.Plan, error) {
	t := time.Now()
	defer s.res.Stats.phase("tiers-quick", t)
	quick := make([]*model.Plan, len(subs))
	plan := model.NewPlan(s.p)
	for k, sub := range subs {
		if len(sub.Buffers) == 0 {
			continue
		}
		pp, err := s.quickPlan(ctx, sub, quickMethod(pools[k]))
		if err != nil || pp == nil {
			return nil, err
		}
		quick[k] = pp
		putPool(plan, k, backs[k], pp)
	}
	return quick, s.offer(plan, "tiers+quick")
}

// spillAll offers, before the split, the plan that puts every buffer in
// the slowest pool when that pool is unbounded and may hold them all (no
// pins, every group allowed and on its grid), planned by the free list:
// the split's fit tests may take a quarter of the time, and the solve
// should hold a plan long before that (10 000 buffers over two pools,
// --time-limit 10s: the first plan at 2.6 s, after the split, without it).
// The split's plan replaces it as soon as one is lower.
func (s *solver) spillAll(ctx context.Context, pools []model.Pool, order []int, groups []*group) error {
	last := order[len(order)-1]
	slow := pools[last]
	if slow.Capacity != 0 || len(groups) == 0 {
		return nil
	}
	for _, g := range groups {
		if g.pinned || g.allowed != nil && !g.allowed[last] || !g.onGrid(s.p, &slow) {
			return nil
		}
	}
	t := time.Now()
	defer s.res.Stats.phase("tiers-spill", t)
	sub, back := subProblem(s.p, slow, groups)
	pp, err := s.quickPlan(ctx, sub, "freelist")
	if err != nil || pp == nil {
		return err
	}
	plan := model.NewPlan(s.p)
	putPool(plan, last, back, pp)
	return s.offer(plan, "tiers+spill")
}

// quickPlan plans a pool's sub-problem with the one planner method (the
// fit tests' quick solve); nil when it finds no plan that fits.
func (s *solver) quickPlan(ctx context.Context, sub *model.Problem, method string) (*model.Plan, error) {
	c := s.child(sub)
	c.quick = true
	c.opt.Method = method
	r, err := c.heuristicOnly(ctx)
	if err != nil {
		return nil, err
	}
	return r.Plan, nil
}

// putPool copies the plan of pool k's sub-problem into the whole plan:
// back maps the sub-problem's buffers to the whole problem's.
func putPool(plan *model.Plan, k int, back []int, sub *model.Plan) {
	for j, i := range back {
		plan.Placements[i] = sub.Placements[j]
		plan.Placements[i].Pool = k
	}
}

// onlyHereFirst moves to the front (keeping their priority order) the
// candidates that no later pool allows: spilled, they would fit nowhere
// ("1 buffers fit in none of their allowed pools" when a low-priority
// buffer allowed only in the fast pool found it filled by others).
func onlyHereFirst(cand []*group, later []int) []*group {
	nowhereElse := func(g *group) bool {
		if g.allowed == nil {
			return false
		}
		for _, q := range later {
			if g.allowed[q] {
				return false
			}
		}
		return true
	}
	out := make([]*group, 0, len(cand))
	for _, g := range cand {
		if nowhereElse(g) {
			out = append(out, g)
		}
	}
	for _, g := range cand {
		if !nowhereElse(g) {
			out = append(out, g)
		}
	}
	return out
}
