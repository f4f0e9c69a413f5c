package blocks

import (
	"context"
	"time"

	"github.com/optalloc/optalloc/model"
)

// Exact is the branch-and-bound engine that minimises total block bytes.
//
// Search. Units are taken largest first (ties by start). Each goes either
// into an existing block it does not conflict with, at no cost (the block's
// first unit is at least as large), or into one new block, at the cost of
// its size; new blocks are interchangeable, so there is one such branch.
// Every partition of the units into conflict-free blocks is reached this
// way, so the search is complete, and a block's size is its first unit's.
//
// Node bound. At a node with k blocks, let occ(t) count the blocks holding
// an assigned unit at time t and, for x ≥ 0, c_x(t) the unassigned units of
// size > x live at t. Those c_x(t) units conflict pairwise, at most
// k − occ(t) of them fit in existing blocks, so at least
// m_x = max_t (c_x(t) − k + occ(t))⁺ new blocks hold a unit of size > x,
// and each such block costs more than x. As in bound.go, integrating over x
// bounds the cost still to pay: ∫_0^∞ m_x dx, a sum over the distinct
// unassigned sizes computed with one segment-tree sweep. A node is pruned
// when cost + bound ≥ the incumbent. With MaxBlocks, a node is also pruned
// when m_0 > MaxBlocks − k (those units need more new blocks than allowed).
//
// Result. When the search finishes, the incumbent is optimal. When the
// incumbent reaches the root bound (bound.go), it is optimal without search.
// At the time limit the incumbent is returned with the root bound and the
// status "feasible".
type Exact struct {
	MaxBlocks int           // 0 = unbounded
	TimeLimit time.Duration // 0 = until ctx is done
	NodeLimit int64         // 0 = none

	// Pruning switches, to measure their effect.
	NoLevelBound bool // prune on the cost so far only (node bound off)
	NoFreeSlots  bool // node bound assumes every existing block is free
	NoSeed       bool // do not seed the incumbent with greedy planners
}

// Name implements Planner.
func (*Exact) Name() string { return "exact" }

// Plan implements Planner: the best plan found within the limits.
func (e *Exact) Plan(ctx context.Context, p *model.Problem) (*BlockPlan, error) {
	r, err := e.Solve(ctx, p, nil)
	if err != nil {
		return nil, err
	}
	if r.Plan == nil {
		return nil, &CapError{Planner: e.Name(), MaxBlocks: e.MaxBlocks}
	}
	return r.Plan, nil
}

// ExactResult is what the exact engine found.
type ExactResult struct {
	Plan       *BlockPlan // nil when no plan respects MaxBlocks (or none found)
	TotalBytes int64
	LowerBound int64
	Status     Status
	Nodes      int64
}

// Solve runs the search, starting from incumbent when it is not nil (it
// must be a valid plan of p within MaxBlocks).
func (e *Exact) Solve(ctx context.Context, p *model.Problem, incumbent *BlockPlan) (*ExactResult, error) {
	in, err := prepare(p)
	if err != nil {
		return nil, err
	}
	if e.TimeLimit > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, e.TimeLimit)
		defer cancel()
	}
	bd := in.bounds()
	res := &ExactResult{LowerBound: bd.LowerBound, Status: Unknown}
	if e.MaxBlocks > 0 && e.MaxBlocks < bd.MinBlocks {
		res.Status = Infeasible
		return res, nil
	}
	s := newSearch(in, e)
	if incumbent != nil {
		s.offer(in.unitAssign(incumbent), incumbent.TotalBytes())
	}
	if !e.NoSeed {
		for _, pl := range []func() ([]int, error){
			func() ([]int, error) { return greedyInOrder(ctx, in.units, e.MaxBlocks) },
		} {
			if a, err := pl(); err == nil {
				s.offer(a, costOf(in.units, a))
			}
		}
	}
	done := true
	if s.best > bd.LowerBound {
		done = s.run(ctx)
	}
	res.Nodes = s.nodes
	if s.bestAssign == nil {
		if done {
			res.Status = Infeasible
		}
		return res, nil
	}
	res.Plan = in.toPlan(s.bestAssign)
	res.TotalBytes = s.best
	res.Status = Feasible
	if done || s.best <= bd.LowerBound {
		res.Status = Optimal
		res.LowerBound = s.best
	}
	return res, nil
}

// costOf is the total block bytes of a per-unit assignment.
func costOf(units []unit, assign []int) int64 {
	sz := map[int]int64{}
	for u, b := range assign {
		sz[b] = max(sz[b], units[u].size)
	}
	var t int64
	for _, v := range sz {
		t += v
	}
	return t
}

type search struct {
	e      *Exact
	units  []unit
	order  []int // units, largest first
	tl     *timeline
	tree   *segTree
	blocks [][]int // units of each block, in assignment order
	assign []int
	cost   int64
	rootLB int64

	best       int64
	bestAssign []int
	nodes      int64
	stopped    bool
	ctx        context.Context
}

func newSearch(in *instance, e *Exact) *search {
	s := &search{e: e, units: in.units, order: sizeOrder(in.units), tl: newTimeline(in.units),
		assign: make([]int, len(in.units)), best: 1<<63 - 1}
	s.tree = newSegTree(s.tl.slots())
	s.rootLB, _ = levelBound(in.units)
	return s
}

func (s *search) offer(a []int, c int64) {
	if c < s.best {
		s.best = c
		s.bestAssign = append([]int(nil), a...)
	}
}

// run searches; it reports whether the search space was exhausted.
func (s *search) run(ctx context.Context) bool {
	s.ctx = ctx
	s.dfs(0)
	return !s.stopped
}

// nodeBound returns the bound on the cost still to pay for order[d:] and
// whether MaxBlocks can still be met.
func (s *search) nodeBound(d int) (int64, bool) {
	if s.e.NoLevelBound && s.e.MaxBlocks == 0 {
		return 0, true
	}
	k := len(s.blocks)
	t := s.tree
	// The tree holds occ(t) (or 0 with NoFreeSlots); shift it by −k.
	t.add(0, t.n, -k)
	var lb int64
	n := len(s.order)
	for j := d; j < n; {
		sz := s.units[s.order[j]].size
		for ; j < n && s.units[s.order[j]].size == sz; j++ {
			u := s.order[j]
			t.add(s.tl.lo[u], s.tl.hi[u], 1)
		}
		next := int64(0)
		if j < n {
			next = s.units[s.order[j]].size
		}
		if m := t.max(); m > 0 {
			lb += int64(m) * (sz - next)
		}
	}
	m0 := t.max()
	for j := d; j < n; j++ {
		u := s.order[j]
		t.add(s.tl.lo[u], s.tl.hi[u], -1)
	}
	t.add(0, t.n, k)
	ok := s.e.MaxBlocks == 0 || m0 <= s.e.MaxBlocks-k
	if s.e.NoLevelBound {
		lb = 0
	}
	return lb, ok
}

func (s *search) dfs(d int) {
	s.nodes++
	if s.nodes&255 == 0 {
		if s.ctx.Err() != nil || s.e.NodeLimit > 0 && s.nodes >= s.e.NodeLimit {
			s.stopped = true
		}
	}
	if s.stopped || s.best <= s.rootLB {
		return
	}
	if d == len(s.order) {
		s.offer(s.assign, s.cost)
		return
	}
	lb, ok := s.nodeBound(d)
	if !ok || s.cost+lb >= s.best {
		return
	}
	u := s.order[d]
	un := &s.units[u]
	// Existing blocks, nearest neighbour in time first.
	type cand struct {
		b    int
		dist int64
	}
	var cands []cand
	for b, us := range s.blocks {
		dist, ok := int64(1<<62), true
		for _, v := range us {
			w := &s.units[v]
			if w.overlap(un) {
				ok = false
				break
			}
			if w.end <= un.start {
				dist = min(dist, un.start-w.end)
			} else {
				dist = min(dist, w.start-un.end)
			}
		}
		if ok {
			cands = append(cands, cand{b, dist})
		}
	}
	for i := 1; i < len(cands); i++ { // insertion sort: few candidates
		for j := i; j > 0 && cands[j].dist < cands[j-1].dist; j-- {
			cands[j], cands[j-1] = cands[j-1], cands[j]
		}
	}
	lo, hi := s.tl.lo[u], s.tl.hi[u]
	for _, c := range cands {
		s.blocks[c.b] = append(s.blocks[c.b], u)
		s.assign[u] = c.b
		if !s.e.NoFreeSlots {
			s.tree.add(lo, hi, 1)
		}
		s.dfs(d + 1)
		if !s.e.NoFreeSlots {
			s.tree.add(lo, hi, -1)
		}
		s.blocks[c.b] = s.blocks[c.b][:len(s.blocks[c.b])-1]
		if s.stopped || s.best <= s.rootLB {
			return
		}
	}
	if s.e.MaxBlocks > 0 && len(s.blocks) >= s.e.MaxBlocks {
		return
	}
	b := len(s.blocks)
	s.blocks = append(s.blocks, []int{u})
	s.assign[u] = b
	s.cost += un.size
	if !s.e.NoFreeSlots {
		s.tree.add(lo, hi, 1)
	}
	s.dfs(d + 1)
	if !s.e.NoFreeSlots {
		s.tree.add(lo, hi, -1)
	}
	s.cost -= un.size
	s.blocks = s.blocks[:b]
}
