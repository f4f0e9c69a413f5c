package heuristics

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/optalloc/optalloc/model"
)

// item is what a heuristic places: a buffer, or an alias group folded into
// its root (the group spans the union of its members' lifetimes and the
// root's bytes). Its footprint is exact: fp lists the rectangles its
// root and members occupy (members at their deltas, MiniMalloc gaps
// honoured), or is nil when the item is the plain rectangle [start, end) ×
// [offset, offset+size) — the common case, which the placer treats on a
// fast path. Elastic buffers are planned at their minimum size.
type item struct {
	start, end int64
	size       int64
	align      int64 // the offset must be ≡ phase (mod align)
	phase      int64
	pin        int64  // -1 when free
	pool       int    // index into Problem.PoolList()
	root       int    // buffer index of the root
	pools      []int  // allowed pools in order of preference (nil = any)
	fp         *shape // exact footprint; nil = a plain rectangle
}

// shape is the exact footprint of an item that is not a plain rectangle
// (behind a pointer: plain items, the vast majority, pay 8 bytes for it).
type shape struct {
	rects []rect // rectangles relative to the item's offset
	load  []rect // bytes of the footprint per time interval
}

// up returns the smallest offset ≥ v that honours the item's alignment.
func (it *item) up(v int64) int64 {
	if it.align <= 1 {
		return v
	}
	r := (v - it.phase) % it.align
	if r < 0 {
		r += it.align
	}
	if r == 0 {
		return v
	}
	return v + it.align - r
}

// instance is a problem folded into items.
type instance struct {
	p       *model.Problem
	its     []item
	of      []int         // buffer → item
	delta   []int64       // buffer → byte delta inside its item
	members map[int][]int // alias root → its aliased buffers
	plain   bool          // no aliases: item k is buffer k, of the identity, delta 0
}

// validatedKey marks, in a context, a problem that Portfolio has already
// validated, so that its planners do not validate it again.
type validatedKey struct{}

// validate checks p unless ctx says it was (validatedKey), and returns a
// context that says it was.
func validate(ctx context.Context, p *model.Problem) (context.Context, error) {
	if v, _ := ctx.Value(validatedKey{}).(*model.Problem); v == p {
		return ctx, nil
	}
	if err := p.Validate(); err != nil {
		return ctx, err
	}
	return context.WithValue(ctx, validatedKey{}, p), nil
}

// maxPhaseSearch bounds the search for an alias group's offset residue.
const maxPhaseSearch = 1 << 20

// newInstance folds a problem into items. Every buffer's offset must be a
// multiple of its own alignment and of its pool's; for an alias group this
// gives congruences on the root offset, solved here into (align, phase).
// It returns an error naming the buffer when the problem is not valid or
// when an alias group's alignments cannot all be met.
func newInstance(ctx context.Context, p *model.Problem) (*instance, error) {
	if _, err := validate(ctx, p); err != nil {
		return nil, err
	}
	exactOff := bounding(ctx)
	in := &instance{p: p, members: map[int][]int{}}
	// Without aliases every buffer is its own item: the items are built
	// straight from the buffers, with no alias groups (on a million
	// buffers they were 80 MB of fresh memory, and the kernel's page
	// faults on it cost more than the work). At the first alias the
	// items are built again from the groups.
	n := len(p.Buffers)
	in.its, in.plain = make([]item, n), true
	for k := range in.its {
		if p.Buffers[k].Alias != nil {
			in.plain = false
			break
		}
		if err := in.build(ctx, k, k, p.Buffers[k].Start, p.Buffers[k].End, exactOff); err != nil {
			return nil, err
		}
	}
	if in.plain {
		in.of, in.delta = make([]int, n), make([]int64, n) // delta stays 0: never written
		for k := range in.of {
			in.of[k] = k
		}
		return in, nil
	}
	var groups []model.AliasGroup
	groups, in.of, in.delta = p.AliasGroups()
	in.its = in.its[:len(groups)]
	for k := range groups {
		gr := &groups[k]
		if len(gr.Members) > 0 {
			in.members[gr.Root] = gr.Members
		}
		if err := in.build(ctx, k, gr.Root, gr.Start, gr.End, exactOff); err != nil {
			return nil, err
		}
	}
	return in, nil
}

// build sets up item k, the group of root living over [start, end): its
// pins, pools, alignment and (unless exactOff) footprint. The alias group
// of root is in in.members already.
func (in *instance) build(ctx context.Context, k, root int, start, end int64, exactOff bool) error {
	if k%4096 == 0 && ctx.Err() != nil {
		return ctx.Err()
	}
	p := in.p
	b := &p.Buffers[root]
	it := &in.its[k]
	*it = item{start: start, end: end, size: b.Size, align: 1, pin: -1, root: root}
	if b.Pin != nil {
		it.pin = *b.Pin
	}
	for _, name := range b.Pools {
		it.pools = append(it.pools, p.PoolIndex(name))
	}
	if err := in.setUp(k); err != nil {
		return err
	}
	if !exactOff {
		in.footprint(k)
	}
	return nil
}

// setUp sets item k's pool — the root's first preference that every
// member allows — and its alignment in it. (No allocation per item here:
// a 1M-op chain spent most of 0.8 s of set-up on them.)
func (in *instance) setUp(k int) error {
	p, it := in.p, &in.its[k]
	pools := p.PoolList()
	it.pool = -1
	cands := it.pools
	if cands == nil {
		cands = firstPool[:]
	}
	for _, q := range cands {
		ok := true
		for _, m := range in.members[it.root] {
			if l := p.Buffers[m].Pools; len(l) > 0 && !slices.Contains(l, pools[q].Name) {
				ok = false
			}
		}
		if ok {
			it.pool = q
			break
		}
	}
	if it.pool < 0 {
		return fmt.Errorf("%s: buffer %q: no pool is allowed by every member of its alias group", p.Where(it.root), p.Buffers[it.root].ID)
	}
	return in.retarget(k, it.pool)
}

// firstPool is the pool list of an item without preferences.
var firstPool = [1]int{0}

// retarget sets item k's alignment and phase for the given pool.
func (in *instance) retarget(k, pool int) error {
	p, it := in.p, &in.its[k]
	q := &p.PoolList()[pool]
	it.phase = 0
	var buf [4][2]int64
	reqs := buf[:0] // (alignment, delta)
	reqs = append(reqs, [2]int64{p.Buffers[it.root].AlignmentIn(q), 0})
	for _, m := range in.members[it.root] {
		reqs = append(reqs, [2]int64{p.Buffers[m].AlignmentIn(q), in.delta[m]})
	}
	if err := it.solvePhase(reqs); err != nil {
		return fmt.Errorf("%s: buffer %q: %v", p.Where(it.root), p.Buffers[it.root].ID, err)
	}
	if it.pin >= 0 && it.up(it.pin) != it.pin {
		return fmt.Errorf("%s: buffer %q: pinned offset %d breaks the alignment of the buffer, its pool or its aliases", p.Where(it.root), p.Buffers[it.root].ID, it.pin)
	}
	return nil
}

// allowed returns the pools item k may use: its root's preferences (or
// every pool, by rank then index), keeping those every alias member allows.
func (in *instance) allowed(k int) []int {
	pools := in.p.PoolList()
	it := &in.its[k]
	cands := it.pools
	if cands == nil {
		for q := range pools {
			cands = append(cands, q)
		}
		slices.SortStableFunc(cands, func(a, b int) int { return pools[a].Rank - pools[b].Rank })
	}
	var out []int
	for _, q := range cands {
		ok := true
		for _, m := range in.members[it.root] {
			if l := in.p.Buffers[m].Pools; len(l) > 0 && !slices.Contains(l, pools[q].Name) {
				ok = false
			}
		}
		if ok {
			out = append(out, q)
		}
	}
	return out
}

// solvePhase finds (align, phase) such that offset ≡ phase (mod align)
// exactly when offset+delta is a multiple of a for every requirement.
func (it *item) solvePhase(reqs [][2]int64) error {
	L := int64(1)
	for _, r := range reqs {
		L = model.LCM(L, r[0])
		if L > 1<<40 {
			return fmt.Errorf("the alignments of the alias group are too large (lcm > 2^40)")
		}
	}
	it.align = L
	simple := true
	for _, r := range reqs {
		if r[1]%r[0] != 0 {
			simple = false
		}
	}
	if simple {
		return nil
	}
	step := reqs[0][0] // the root's own requirement (delta 0)
	if L/step > maxPhaseSearch {
		return fmt.Errorf("the alignments of the alias group are too large to combine")
	}
	for x := int64(0); x < L; x += step {
		ok := true
		for _, r := range reqs {
			if (x+r[1])%r[0] != 0 {
				ok = false
				break
			}
		}
		if ok {
			it.phase = x
			return nil
		}
	}
	return fmt.Errorf("no offset meets the alignments of every member of the alias group")
}

func alignUp(v, a int64) int64 {
	if r := v % a; r != 0 {
		return v + a - r
	}
	return v
}

// plan turns item offsets and pools into a plan (minimum sizes granted).
func (in *instance) plan(offsets []int64, pools []int) *model.Plan {
	pl := model.NewPlan(in.p)
	for i := range pl.Placements {
		k := i
		if in.plain {
			pl.Placements[i].Offset = offsets[k]
		} else {
			k = in.of[i]
			pl.Placements[i].Offset = offsets[k] + in.delta[i]
		}
		if pools != nil {
			pl.Placements[i].Pool = pools[k]
		} else {
			pl.Placements[i].Pool = in.its[k].pool
		}
	}
	return pl
}

// singlePool is a planner of the items of one pool: it returns an offset
// for every item.
type singlePool func(ctx context.Context, its []item) ([]int64, error)

// perPool runs a single-pool planner on the items of each pool (the pool of
// an item is its first preference) and assembles the plan.
func perPool(ctx context.Context, p *model.Problem, f singlePool) (*model.Plan, error) {
	in, err := newInstance(ctx, p)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	offsets, err := in.perPool(ctx, f)
	if err != nil {
		return nil, err
	}
	return in.plan(offsets, nil), nil
}

func (in *instance) perPool(ctx context.Context, f singlePool) ([]int64, error) {
	offsets := make([]int64, len(in.its))
	npools := len(in.p.PoolList())
	if npools == 1 {
		return f(ctx, in.its)
	}
	for q := 0; q < npools; q++ {
		var idx []int
		var sub []item
		for k := range in.its {
			if in.its[k].pool == q {
				idx = append(idx, k)
				sub = append(sub, in.its[k])
			}
		}
		if len(sub) == 0 {
			continue
		}
		off, err := f(ctx, sub)
		if err != nil {
			return nil, err
		}
		for j, k := range idx {
			offsets[k] = off[j]
		}
	}
	return offsets, nil
}

// peakOf returns max(offset+size) over the items.
func peakOf(its []item, offsets []int64) int64 {
	var peak int64
	for k := range its {
		if its[k].size > 0 {
			peak = max(peak, offsets[k]+its[k].size)
		}
	}
	return peak
}

// maxLive returns the largest sum of the bytes the items occupy at one time
// (exact footprints): a lower bound on the peak of any placement of these
// items.
func maxLive(its []item) int64 {
	best, _ := peakLoad(its)
	return best
}

// peakLoad returns maxLive and the first time at which it is live.
func peakLoad(its []item) (best, at int64) {
	type ev struct{ t, d int64 }
	evs := make([]ev, 0, 2*len(its))
	for k := range its {
		if its[k].fp != nil {
			for _, r := range its[k].fp.load {
				evs = append(evs, ev{r.start, r.hi}, ev{r.end, -r.hi})
			}
		} else if its[k].size > 0 {
			evs = append(evs, ev{its[k].start, its[k].size}, ev{its[k].end, -its[k].size})
		}
	}
	slices.SortFunc(evs, func(a, b ev) int {
		if a.t != b.t {
			return cmp.Compare(a.t, b.t)
		}
		return cmp.Compare(a.d, b.d) // ends (negative) before starts
	})
	var load int64
	for _, e := range evs {
		load += e.d
		if load > best {
			best, at = load, e.t
		}
	}
	return best, at
}
