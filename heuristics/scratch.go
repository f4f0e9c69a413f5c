package heuristics

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/optalloc/optalloc/model"
)

// ScratchOptions configure FillScratch.
type ScratchOptions struct {
	// Top puts a fixed scratch buffer at the top of its gap instead of the
	// bottom (the bottom sits on the buffer below it, which may itself be
	// a scratch buffer).
	Top bool
	// NoElastic grants elastic scratch only its minimum size, placed like
	// fixed scratch.
	NoElastic bool
	// GrowBottom lets a scratch buffer that fits no gap grow the arena at
	// the bottom — every other buffer of the pool moves up, the scratch
	// buffer goes to offset 0 under the lowest buffer alive with it — when
	// that raises the peak less than growing it at the top (seed 004
	// grows either end). Not in a pool with pinned buffers.
	GrowBottom bool
}

// FillScratch is the scratch gap-filling pass of seed patent 004, usable
// after any plan. Buffers of kind Scratch (not pinned, not in an alias
// group) live only during their op; the pass lifts them out of the plan
// and puts them back into the gaps the other buffers leave, without
// raising any pool's peak where it can:
//
//  1. fixed-size scratch, largest first, goes into the smallest gap that
//     holds it at its time, at the gap's bottom (or top with opt.Top);
//  2. elastic scratch (MaxSize > Size) is taken in clusters of buffers live
//     at overlapping times; a cluster's buffers (largest minimum first)
//     take the largest remaining gaps, one each, and when there are more
//     buffers than gaps they are dealt round-robin and a gap is split
//     evenly among its buffers; each is granted Placement.Size in
//     [Size, MaxSize], as much as its share holds;
//  3. only a buffer that fits no gap grows the arena: it goes on top of
//     the buffers it meets in time (or, with opt.GrowBottom, to offset 0
//     with everything else moved up, when that grows the arena less).
//     When that crosses a bounded pool's capacity, the pool keeps the
//     input plan's placements.
//
// Every buffer stays in its pool. The other buffers occupy their exact
// footprint (MiniMalloc gaps honoured: a scratch buffer may go into another
// buffer's absent window); scratch buffers with gaps of their own are not
// moved. The input plan is not modified.
func FillScratch(p *model.Problem, pl *model.Plan, opt ScratchOptions) (*model.Plan, error) {
	return FillScratchContext(context.Background(), p, pl, opt)
}

// FillScratchContext is FillScratch that gives up when ctx ends, returning
// ctx's error and no plan: a pass left half done could leave a lifted
// buffer where a moved one now sits. Each placement looks at every buffer
// alive with it, so on a 62 000-buffer trace with 30% of its buffers
// elastic scratch the pass took 24 s.
func FillScratchContext(ctx context.Context, p *model.Problem, pl *model.Plan, opt ScratchOptions) (*model.Plan, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if len(pl.Placements) != len(p.Buffers) {
		return nil, fmt.Errorf("the plan has %d placements for %d buffers", len(pl.Placements), len(p.Buffers))
	}
	out := pl.Clone()
	inGroup := make([]bool, len(p.Buffers))
	var root []int
	for i := range p.Buffers {
		if a := p.Buffers[i].Alias; a != nil {
			if root == nil {
				root, _ = p.AliasRoots(p.Index())
			}
			inGroup[i] = true
			inGroup[root[i]] = true
		}
	}
	pools := p.PoolList()
	for q := range pools {
		var bufs, scratch []int
		for i := range p.Buffers {
			if out.Placements[i].Pool != q {
				continue
			}
			bufs = append(bufs, i)
			b := &p.Buffers[i]
			if b.Kind == model.Scratch && b.Pin == nil && !inGroup[i] && len(b.Gaps) == 0 {
				scratch = append(scratch, i)
			}
		}
		if len(scratch) == 0 {
			continue
		}
		keep := make([]model.Placement, len(scratch))
		for k, i := range scratch {
			keep[k] = out.Placements[i]
		}
		if err := fillPool(ctx, p, out, bufs, scratch, &pools[q], opt); err != nil {
			return nil, err
		}
		// A buffer that fit no gap went on top (rule 3); in a bounded pool
		// that may cross the capacity: then the pool keeps its input plan.
		if c := pools[q].Capacity; c > 0 {
			var top int64
			for _, i := range bufs {
				top = max(top, out.Placements[i].Offset+out.Placements[i].Size)
			}
			if top > c {
				for k, i := range scratch {
					out.Placements[i] = keep[k]
				}
			}
		}
	}
	return out, nil
}

// scratchPool is the state of FillScratch in one pool.
type scratchPool struct {
	p    *model.Problem
	out  *model.Plan
	bufs []int // problem indices; position = index in its/tree
	// its holds one item per buffer of bufs, then one per rectangle of
	// the buffers with gaps (owner and lo give their buffer's position and
	// their bytes relative to its offset); a gapped buffer is in the tree
	// by its rectangles only.
	its   []item
	owner []int
	lo    []int64
	rs    []int32
	re    []int32
	tree  *itree
	peak  int64
	found []int32
	spans []span
	// shift is the step by which every buffer of the pool may move up
	// together (the alignments' LCM) to grow the arena at the bottom; 0:
	// not allowed.
	shift int64
}

func fillPool(ctx context.Context, p *model.Problem, out *model.Plan, bufs, scratch []int, pool *model.Pool, opt ScratchOptions) error {
	sp := &scratchPool{p: p, out: out, bufs: bufs}
	if opt.GrowBottom {
		sp.shift = shiftStep(p, bufs, pool)
	}
	pos := make(map[int]int, len(bufs))
	isScratch := make(map[int]bool, len(scratch))
	for _, i := range scratch {
		isScratch[i] = true
	}
	for x, i := range bufs {
		b := &p.Buffers[i]
		pos[i] = x
		sp.its = append(sp.its, item{start: b.Start, end: b.End, size: out.Placements[i].Size,
			align: b.AlignmentIn(pool), pin: -1, root: i})
	}
	for x, i := range bufs {
		if len(p.Buffers[i].Gaps) == 0 || isScratch[i] {
			continue
		}
		c := p.Buffers[i]
		c.Size = out.Placements[i].Size
		for _, r := range bufferRects(&c, 0, nil) {
			sp.its = append(sp.its, item{start: r.start, end: r.end, size: r.hi - r.lo, align: 1, pin: -1, root: i})
			sp.owner, sp.lo = append(sp.owner, x), append(sp.lo, r.lo)
		}
	}
	sp.rs, sp.re = timeRanks(sp.its)
	sp.tree = newITree(sp.rs, sp.re)
	for x, i := range bufs {
		if !isScratch[i] && sp.its[x].size > 0 {
			if len(p.Buffers[i].Gaps) == 0 {
				sp.tree.add(x, sp.re[x])
			}
			sp.peak = max(sp.peak, out.Placements[i].Offset+sp.its[x].size)
		}
	}
	for x := len(bufs); x < len(sp.its); x++ {
		sp.tree.add(x, sp.re[x])
	}
	var fixed, elastic []int // positions
	for _, i := range scratch {
		x := pos[i]
		if p.Buffers[i].Elastic() && !opt.NoElastic {
			elastic = append(elastic, x)
		} else {
			sp.its[x].size = p.Buffers[i].Size
			fixed = append(fixed, x)
		}
	}
	slices.SortStableFunc(fixed, func(a, b int) int { return cmp.Compare(sp.its[b].size, sp.its[a].size) })
	for k, x := range fixed {
		if k%64 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		sp.placeFixed(x, p.Buffers[bufs[x]].Size, opt.Top)
	}
	slices.SortStableFunc(elastic, func(a, b int) int { return cmp.Compare(sp.its[a].start, sp.its[b].start) })
	for i := 0; i < len(elastic); {
		j, end := i+1, sp.its[elastic[i]].end
		for j < len(elastic) && sp.its[elastic[j]].start < end {
			end = max(end, sp.its[elastic[j]].end)
			j++
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err := sp.placeElastic(ctx, elastic[i:j]); err != nil {
			return err
		}
		i = j
	}
	return nil
}

// gaps returns the free byte ranges below the peak during the window of
// ranks [s, e).
func (sp *scratchPool) gaps(s, e int32) []span {
	sp.found = sp.tree.query(s, e, sp.found[:0])
	sp.spans = sp.spans[:0]
	nb := len(sp.bufs)
	for _, x := range sp.found {
		var o int64
		if int(x) < nb {
			o = sp.out.Placements[sp.bufs[x]].Offset
		} else {
			o = sp.out.Placements[sp.bufs[sp.owner[int(x)-nb]]].Offset + sp.lo[int(x)-nb]
		}
		sp.spans = append(sp.spans, span{o, o + sp.its[x].size})
	}
	slices.SortFunc(sp.spans, func(a, b span) int { return cmp.Compare(a.lo, b.lo) })
	var out []span
	var top int64
	for _, b := range sp.spans {
		if b.lo > top {
			out = append(out, span{top, b.lo})
		}
		top = max(top, b.hi)
	}
	if sp.peak > top {
		out = append(out, span{top, sp.peak})
	}
	return out
}

// set places position x at offset o with granted size g.
func (sp *scratchPool) set(x int, o, g int64) {
	i := sp.bufs[x]
	sp.out.Placements[i].Offset, sp.out.Placements[i].Size = o, g
	sp.its[x].size = g
	if g > 0 {
		sp.tree.add(x, sp.re[x])
		sp.peak = max(sp.peak, o+g)
	}
}

// placeFixed puts x (size g) into the smallest gap that holds it, else on
// top of what it meets.
func (sp *scratchPool) placeFixed(x int, g int64, top bool) {
	it := &sp.its[x]
	if g == 0 {
		sp.set(x, 0, 0)
		return
	}
	best, bestLen := int64(-1), int64(-1)
	var hi int64
	for _, gp := range sp.gaps(sp.rs[x], sp.re[x]) {
		c := it.up(gp.lo)
		if top {
			c = (gp.hi - g) / it.align * it.align
		}
		if c >= gp.lo && c+g <= gp.hi && (bestLen < 0 || gp.hi-gp.lo < bestLen) {
			best, bestLen = c, gp.hi-gp.lo
		}
	}
	if best < 0 {
		// nothing fits: on top of the buffers live with it
		lo := sp.peak
		for _, b := range sp.spans {
			hi, lo = max(hi, b.hi), min(lo, b.lo)
		}
		best = it.up(hi)
		// or at the bottom, under the lowest of them, when that grows less
		if sp.shift > 0 {
			d := (g - lo + sp.shift - 1) / sp.shift * sp.shift
			if d < max(0, best+g-sp.peak) {
				for _, i := range sp.bufs {
					sp.out.Placements[i].Offset += d
				}
				sp.peak += d
				best = 0
			}
		}
	}
	sp.set(x, best, g)
}

// shiftStep is the LCM of the alignments of a pool's buffers: moving them
// all up by a multiple keeps every offset aligned. 0 when a buffer is
// pinned or the LCM passes 2^40.
func shiftStep(p *model.Problem, bufs []int, pool *model.Pool) int64 {
	l := pool.Alignment()
	for _, i := range bufs {
		b := &p.Buffers[i]
		if b.Pin != nil {
			return 0
		}
		if l = model.LCM(l, b.AlignmentIn(pool)); l > 1<<40 {
			return 0
		}
	}
	return l
}

// placeElastic grants a cluster of elastic buffers the largest gaps of
// their common window, split evenly when they outnumber the gaps.
func (sp *scratchPool) placeElastic(ctx context.Context, cl []int) error {
	s, e := sp.rs[cl[0]], sp.re[cl[0]]
	for _, x := range cl {
		s, e = min(s, sp.rs[x]), max(e, sp.re[x])
	}
	gs := sp.gaps(s, e)
	slices.SortStableFunc(gs, func(a, b span) int { return cmp.Compare(b.hi-b.lo, a.hi-a.lo) })
	bs := slices.Clone(cl)
	minSize := func(x int) int64 { return sp.p.Buffers[sp.bufs[x]].Size }
	slices.SortStableFunc(bs, func(a, b int) int { return cmp.Compare(minSize(b), minSize(a)) })
	var misfits []int
	if len(gs) > 0 {
		deal := make([][]int, len(gs))
		for t, x := range bs {
			deal[t%len(gs)] = append(deal[t%len(gs)], x)
		}
		for gi, xs := range deal {
			cursor := gs[gi].lo
			for t, x := range xs {
				c := sp.its[x].up(cursor)
				share := (gs[gi].hi - c) / int64(len(xs)-t)
				b := &sp.p.Buffers[sp.bufs[x]]
				g := min(b.MaxSize, share)
				if g < b.Size {
					misfits = append(misfits, x)
					continue
				}
				sp.set(x, c, g)
				cursor = c + g
			}
		}
	} else {
		misfits = bs
	}
	for k, x := range misfits {
		// On a dense trace every elastic buffer is in one cluster.
		if k%64 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		sp.placeFixed(x, minSize(x), false)
	}
	return nil
}

// SlowScratch returns a copy of p in which scratch buffers that are not
// latency-critical may not use the fastest pool (the lowest rank): seed
// 004 keeps the fast pool for latency-critical scratch and activations,
// where optalloc by default lets any scratch buffer compete for it. Only
// scratch buffers without pools of their own and outside alias groups
// change; with one pool, or when a buffer's pools would be empty, p's own
// buffers are kept.
func SlowScratch(p *model.Problem) *model.Problem {
	pools := p.PoolList()
	if len(pools) < 2 {
		return p
	}
	fast := 0
	for q := range pools {
		if pools[q].Rank < pools[fast].Rank {
			fast = q
		}
	}
	var slow []string
	for q := range pools {
		if q != fast {
			slow = append(slow, pools[q].Name)
		}
	}
	slices.SortStableFunc(slow, func(a, b string) int {
		return cmp.Compare(rankOf(pools, a), rankOf(pools, b))
	})
	parent := map[string]bool{}
	for i := range p.Buffers {
		if a := p.Buffers[i].Alias; a != nil {
			parent[a.Parent] = true
		}
	}
	q := *p
	q.Buffers = slices.Clone(p.Buffers)
	for i := range q.Buffers {
		b := &q.Buffers[i]
		if b.Kind == model.Scratch && !b.LatencyCritical && len(b.Pools) == 0 && b.Pin == nil && b.Alias == nil && !parent[b.ID] {
			b.Pools = slow
		}
	}
	return &q
}

func rankOf(pools []model.Pool, name string) int {
	for _, q := range pools {
		if q.Name == name {
			return q.Rank
		}
	}
	return 0
}
