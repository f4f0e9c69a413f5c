package blocks

import (
	"cmp"
	"context"
	"encoding/binary"
	"slices"
	"sort"
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
// Symmetry. Every existing block is at least as large as every unit still
// to place, so what matters about a block is only its free time gaps:
// placing u into two blocks whose free gap around u is the same interval
// gives equivalent states, and only the first is tried. A memo of visited
// states (canonical multisets of free gaps, see seen) prunes a node
// reached again at no lower cost.
//
// Dominance. When a free gap around u can hold no other unit still to
// place that overlaps u in time, u goes there and nowhere else (privateGap).
//
// Node bound. At a node with k blocks, let occ(t) count the blocks holding
// an assigned unit at time t and, for x ≥ 0, c_x(t) the unassigned units of
// size > x live at t. Those c_x(t) units conflict pairwise, at most
// k − occ(t) of them fit in existing blocks, so at least
// m_x = max_t (c_x(t) − k + occ(t))⁺ new blocks hold a unit of size > x,
// and each such block costs more than x. As in bound.go, integrating over x
// bounds the cost still to pay: ∫_0^∞ m_x dx, a sum over the distinct
// unassigned sizes computed with one segment-tree sweep. Moreover a unit
// that fits in no free gap of an existing block (gaps only shrink) can only
// go to a new block, so the clique count of those "forced" units of size
// > x also bounds the new blocks of size > x; each level takes the larger
// of the two counts. A node is pruned
// when cost + bound ≥ the incumbent. With MaxBlocks, a node is also pruned
// when m_0 > MaxBlocks − k (those units need more new blocks than allowed).
//
// Large neighbourhoods. When the search does not finish in a third of the
// time limit (large instances), the rest goes to improving the incumbent:
// repeatedly take the units of a few blocks and re-partition them optimally
// (this same search on the sub-instance, node-limited), keeping the change
// when it saves bytes (lns.go). This never weakens a proof: "optimal" still
// requires a finished search or a plan at the root bound.
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
	NoLevelBound  bool // prune on the cost so far only (node bound off)
	NoFreeSlots   bool // node bound assumes every existing block is free
	NoSeed        bool // do not seed the incumbent with greedy planners
	NoForcedBound bool // node bound ignores units that fit no free gap
	NoGapDedup    bool // branch on every block, not once per distinct free gap
	NoMemo        bool // do not remember visited states
	// MemoUnits: the memo is used on instances of at most this many units
	// (0 means DefaultMemoUnits).
	MemoUnits int
	NoLNS     bool // no large-neighbourhood search after an unfinished search
	// NoDominance: do not commit a unit to a free gap no other unit still
	// to place could use at the same time (see privateGap).
	NoDominance bool
	// LNSRounds bounds the large-neighbourhood rounds (0: until the time
	// limit, or DefaultLNSRounds when there is none).
	LNSRounds int
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
	s := newSearch(in.units, e)
	if incumbent != nil {
		s.offer(in.unitAssign(incumbent), incumbent.TotalBytes())
	}
	if !e.NoSeed {
		if a, err := greedyInOrder(ctx, in.units, e.MaxBlocks); err == nil {
			s.offer(a, costOf(in.units, a))
		}
		for _, pl := range []Planner{&GreedyBySize{MaxBlocks: e.MaxBlocks}, &GreedyByBreadth{MaxBlocks: e.MaxBlocks}} {
			if bp, err := pl.Plan(ctx, p); err == nil {
				s.offer(in.unitAssign(bp), bp.TotalBytes())
			}
		}
	}
	done := true
	if s.best > bd.LowerBound {
		dctx, cancel := ctx, context.CancelFunc(func() {})
		lns := !e.NoLNS && s.bestAssign != nil
		if lns && e.TimeLimit > 0 {
			// Proofs come early or not at all: a third of the time for
			// the search, the rest for large-neighbourhood search.
			dctx, cancel = context.WithTimeout(ctx, e.TimeLimit/3)
		}
		done = s.run(dctx)
		cancel()
		if !done && lns && s.best > bd.LowerBound {
			s.nodes += e.improve(ctx, in.units, s, bd.LowerBound)
		}
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
	e         *Exact
	checkMask int64 // the limits are checked when nodes&checkMask == 0
	units     []unit
	order     []int // units, largest first
	tl        *timeline
	tree      *segTree
	forced    *segTree // clique counts of the units that fit no free gap
	// isForced[j-d] says whether order[j] fits no free gap (nodeBound).
	isForced []bool
	blocks   [][]int // units of each block, sorted by start
	assign   []int
	cost     int64
	rootLB   int64

	// memo maps a canonical state (depth, free gaps) to the least cost it
	// was reached with; nil when off.
	memo    map[string]int64
	byStart [][]int // byStart[d]: order[d:] sorted by start (memo only)
	keyBuf  []byte
	gapBuf  [][2]int64

	best       int64
	bestAssign []int
	nodes      int64
	stopped    bool
	ctx        context.Context
}

// DefaultMemoUnits is the largest instance (in units) on which the exact
// engine keeps its memo of visited states by default.
const DefaultMemoUnits = 400

// memoCap bounds the memo's entries.
const memoCap = 1 << 21

func newSearch(units []unit, e *Exact) *search {
	s := &search{e: e, units: units, order: sizeOrder(units), tl: newTimeline(units),
		assign: make([]int, len(units)), best: 1<<63 - 1}
	s.tree = newSegTree(s.tl.slots())
	s.forced = newSegTree(s.tl.slots())
	s.checkMask = 255
	if len(units) >= 1024 {
		// A node's bound costs O(n log n) here: checking the clock every
		// 256 nodes kept a 62 000-buffer trace running 12.8 s with a 3 s
		// limit.
		s.checkMask = 0
	}
	s.rootLB, _ = levelBound(units)
	limit := e.MemoUnits
	if limit == 0 {
		limit = DefaultMemoUnits
	}
	if !e.NoMemo && len(units) <= limit {
		s.memo = map[string]int64{}
		n := len(s.order)
		s.byStart = make([][]int, n+1)
		for d := n - 1; d >= 0; d-- {
			s.byStart[d] = append([]int(nil), s.order[d:]...)
			slices.SortFunc(s.byStart[d], func(a, b int) int { return cmp.Compare(s.units[a].start, s.units[b].start) })
		}
	}
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
	t, f := s.tree, s.forced
	n := len(s.order)
	// Units that fit in no free gap of any existing block must go to new
	// blocks: their own clique count is a second bound per level.
	useForced := !s.e.NoForcedBound && k > 0 && (n-d)*k <= forcedWork
	if useForced {
		s.isForced = s.isForced[:0]
		for j := d; j < n; j++ {
			fits := false
			for b := range s.blocks {
				if _, _, _, ok := s.gapOf(b, s.order[j]); ok {
					fits = true
					break
				}
			}
			s.isForced = append(s.isForced, !fits)
		}
	}
	// The tree holds occ(t) (or 0 with NoFreeSlots); shift it by −k.
	t.add(0, t.n, -k)
	var lb int64
	level := func() int {
		m := t.max()
		if useForced {
			m = max(m, f.max())
		}
		return m
	}
	for j := d; j < n; {
		sz := s.units[s.order[j]].size
		for ; j < n && s.units[s.order[j]].size == sz; j++ {
			u := s.order[j]
			t.add(s.tl.lo[u], s.tl.hi[u], 1)
			if useForced && s.isForced[j-d] {
				f.add(s.tl.lo[u], s.tl.hi[u], 1)
			}
		}
		next := int64(0)
		if j < n {
			next = s.units[s.order[j]].size
		}
		if m := level(); m > 0 {
			lb += int64(m) * (sz - next)
		}
	}
	m0 := level()
	for j := d; j < n; j++ {
		u := s.order[j]
		t.add(s.tl.lo[u], s.tl.hi[u], -1)
		if useForced && s.isForced[j-d] {
			f.add(s.tl.lo[u], s.tl.hi[u], -1)
		}
	}
	t.add(0, t.n, k)
	ok := s.e.MaxBlocks == 0 || m0 <= s.e.MaxBlocks-k
	if s.e.NoLevelBound {
		lb = 0
	}
	return lb, ok
}

// forcedWork caps (units left × blocks) for the forced-new bound at a node:
// beyond it the bound costs more time than it saves (measured on the
// mindspore traces), and the node uses the level bound alone.
const forcedWork = 1 << 16

const (
	minTime = -1 << 62
	maxTime = 1 << 62
)

// gapOf returns the free gap [lo, hi) of block b around unit u, or ok false
// when u conflicts with a unit of b.
func (s *search) gapOf(b, u int) (lo, hi int64, pos int, ok bool) {
	us := s.blocks[b]
	un := &s.units[u]
	pos = sort.Search(len(us), func(i int) bool { return s.units[us[i]].start >= un.start })
	lo, hi = minTime, maxTime
	if pos > 0 {
		lo = s.units[us[pos-1]].end
		if lo > un.start {
			return 0, 0, 0, false
		}
	}
	if pos < len(us) {
		hi = s.units[us[pos]].start
		if hi < un.end {
			return 0, 0, 0, false
		}
	}
	return lo, hi, pos, true
}

// seen reports whether the state at depth d (the free gaps of the existing
// blocks, as far as the units still to place can use them) was reached
// before at a cost no higher, and records it otherwise.
//
// Why this is sound: every existing block is at least as large as every
// unit still to place (units go largest first), so the future cost depends
// only on the block count and on which sets of remaining units the free
// gaps can hold; a gap is canonicalised to the hull of the remaining units
// it contains (dropped when it contains none), which holds exactly the same
// sets. Two nodes with the same canonical multiset of gaps, depth and block
// count have the same completions at the same extra cost; the one reached at
// a higher cost cannot beat what the first found (pruning there used an
// incumbent at least as high as now).
func (s *search) seen(d int) bool {
	gaps := s.gapBuf[:0]
	rem := s.byStart[d]
	for _, us := range s.blocks {
		prev := int64(minTime)
		for x := 0; x <= len(us); x++ {
			next := int64(maxTime)
			if x < len(us) {
				next = s.units[us[x]].start
			}
			if next > prev {
				if g, ok := s.canonGap(rem, prev, next); ok {
					gaps = append(gaps, g)
				}
			}
			if x < len(us) {
				prev = s.units[us[x]].end
			}
		}
	}
	s.gapBuf = gaps
	slices.SortFunc(gaps, func(a, b [2]int64) int {
		if c := cmp.Compare(a[0], b[0]); c != 0 {
			return c
		}
		return cmp.Compare(a[1], b[1])
	})
	key := s.keyBuf[:0]
	key = binary.AppendUvarint(key, uint64(d))
	if s.e.MaxBlocks > 0 {
		key = binary.AppendUvarint(key, uint64(len(s.blocks)))
	}
	for _, g := range gaps {
		key = binary.AppendVarint(key, g[0])
		key = binary.AppendVarint(key, g[1])
	}
	s.keyBuf = key
	if c, ok := s.memo[string(key)]; ok && c <= s.cost {
		return true
	}
	if len(s.memo) < memoCap {
		s.memo[string(key)] = s.cost
	}
	return false
}

// canonGap returns the hull of the remaining units (sorted by start) that
// fit in [lo, hi), or ok false when none does.
func (s *search) canonGap(rem []int, lo, hi int64) ([2]int64, bool) {
	k := sort.Search(len(rem), func(i int) bool { return s.units[rem[i]].start >= lo })
	g, ok := [2]int64{}, false
	for ; k < len(rem) && s.units[rem[k]].start < hi; k++ {
		un := &s.units[rem[k]]
		if un.end > hi {
			continue
		}
		if !ok {
			g, ok = [2]int64{un.start, un.end}, true
		}
		g[1] = max(g[1], un.end)
	}
	return g, ok
}

func (s *search) dfs(d int) {
	s.nodes++
	if s.nodes&s.checkMask == 0 {
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
	if s.memo != nil && s.seen(d) {
		return
	}
	u := s.order[d]
	un := &s.units[u]
	// Existing blocks: one per distinct free gap around u, tightest first.
	type cand struct {
		b, pos int
		lo, hi int64
	}
	var cands []cand
	for b := range s.blocks {
		lo, hi, pos, ok := s.gapOf(b, u)
		if !ok {
			continue
		}
		dup := false
		if !s.e.NoGapDedup {
			for _, c := range cands {
				if c.lo == lo && c.hi == hi {
					dup = true
					break
				}
			}
		}
		if !dup {
			cands = append(cands, cand{b, pos, lo, hi})
		}
	}
	slack := func(c cand) int64 { return min(un.start-c.lo, c.hi-un.end) }
	slices.SortStableFunc(cands, func(a, b cand) int { return cmp.Compare(slack(a), slack(b)) })
	private := false
	if !s.e.NoDominance && len(cands) > 0 && (len(s.order)-d)*len(cands) <= forcedWork {
		for x, c := range cands {
			if s.privateGap(d, u, c.lo, c.hi) {
				cands, private = []cand{cands[x]}, true
				break
			}
		}
	}
	lo, hi := s.tl.lo[u], s.tl.hi[u]
	for _, c := range cands {
		s.blocks[c.b] = slices.Insert(s.blocks[c.b], c.pos, u)
		s.assign[u] = c.b
		if !s.e.NoFreeSlots {
			s.tree.add(lo, hi, 1)
		}
		s.dfs(d + 1)
		if !s.e.NoFreeSlots {
			s.tree.add(lo, hi, -1)
		}
		s.blocks[c.b] = slices.Delete(s.blocks[c.b], c.pos, c.pos+1)
		if s.stopped || s.best <= s.rootLB {
			return
		}
	}
	if private || s.e.MaxBlocks > 0 && len(s.blocks) >= s.e.MaxBlocks {
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

// privateGap reports whether no unit still to place after order[d] (= u)
// both fits in the free gap [lo, hi) and overlaps u in time. Then putting u
// there is dominant: in any completion, moving u into that gap conflicts
// with nothing (whatever goes into the gap fits in it, so it does not
// overlap u), keeps the gap's block size (every existing block is at least
// as large as u) and does not grow u's other block, which may even vanish.
// So the branch "u into this gap" alone keeps an optimal completion.
func (s *search) privateGap(d, u int, lo, hi int64) bool {
	un := &s.units[u]
	for _, v := range s.order[d+1:] {
		w := &s.units[v]
		if w.start >= lo && w.end <= hi && w.overlap(un) {
			return false
		}
	}
	return true
}
