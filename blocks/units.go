package blocks

import (
	"cmp"
	"slices"

	"github.com/optalloc/optalloc/model"
)

// unit is what the block planners assign: a buffer, or an alias group folded
// into its root. A group holds its root's bytes over the hull of its members'
// lifetimes (MiniMalloc gaps are ignored: a unit occupies its whole interval,
// which is conservative and so always valid). Units of size 0 need no block.
type unit struct {
	start, end int64 // [start, end)
	size       int64 // bytes of the root
	root       int   // buffer index of the root
}

// instance is a problem folded into units.
type instance struct {
	p     *model.Problem
	units []unit  // positive-size units only
	of    []int   // buffer -> unit index, -1 when the buffer needs no block
	delta []int64 // buffer -> byte offset inside its unit's root
	// members[u] lists the buffers of unit u (root first, then by index).
	members [][]int
}

// fold builds the instance of a valid problem.
func fold(p *model.Problem) *instance {
	groups, of, delta := p.AliasGroups()
	in := &instance{p: p, of: of, delta: delta}
	for _, gr := range groups {
		b := &p.Buffers[gr.Root]
		u := -1
		if b.Size > 0 {
			u = len(in.units)
			in.units = append(in.units, unit{start: gr.Start, end: gr.End, size: b.Size, root: gr.Root})
			in.members = append(in.members, append([]int{gr.Root}, gr.Members...))
		}
		// of: from group to unit index (-1 for a zero-size root).
		for _, i := range append([]int{gr.Root}, gr.Members...) {
			in.of[i] = u
		}
	}
	return in
}

// overlap reports whether two units are live at a common time.
func (a *unit) overlap(b *unit) bool { return a.start < b.end && b.start < a.end }

// timeline compresses the unit interval ends into slots: slot k is
// [times[k], times[k+1]); unit u covers slots [lo[u], hi[u]).
type timeline struct {
	times  []int64
	lo, hi []int
}

func newTimeline(units []unit) *timeline {
	t := &timeline{times: make([]int64, 0, 2*len(units)), lo: make([]int, len(units)), hi: make([]int, len(units))}
	for _, u := range units {
		t.times = append(t.times, u.start, u.end)
	}
	slices.Sort(t.times)
	t.times = slices.Compact(t.times)
	for k, u := range units {
		t.lo[k], _ = slices.BinarySearch(t.times, u.start)
		t.hi[k], _ = slices.BinarySearch(t.times, u.end)
	}
	return t
}

// slots is the number of elementary slots.
func (t *timeline) slots() int { return max(0, len(t.times)-1) }

// toPlan turns a per-unit block assignment into a BlockPlan: blocks are
// renumbered by first use (start time, then unit order) and sized by the
// largest unit they hold; buffers take their unit's block, -1 for none.
func (in *instance) toPlan(unitBlock []int) *BlockPlan {
	order := make([]int, len(in.units))
	for k := range order {
		order[k] = k
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(in.units[a].start, in.units[b].start) })
	renum := map[int]int{}
	bp := &BlockPlan{Assign: make([]int, len(in.of))}
	for _, u := range order {
		old := unitBlock[u]
		id, ok := renum[old]
		if !ok {
			id = len(bp.Blocks)
			renum[old] = id
			bp.Blocks = append(bp.Blocks, Block{ID: id})
		}
		bp.Blocks[id].Size = max(bp.Blocks[id].Size, in.units[u].size)
	}
	for i, u := range in.of {
		bp.Assign[i] = -1
		if u >= 0 {
			bp.Assign[i] = renum[unitBlock[u]]
		}
	}
	return bp
}

// unitAssign reads a plan back as a per-unit assignment (the block of each
// unit's root).
func (in *instance) unitAssign(bp *BlockPlan) []int {
	ua := make([]int, len(in.units))
	for u := range in.units {
		ua[u] = bp.Assign[in.units[u].root]
	}
	return ua
}
