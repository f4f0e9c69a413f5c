package blocks

import (
	"cmp"
	"container/heap"
	"context"
	"slices"

	"github.com/optalloc/optalloc/model"
)

// GreedyInOrder is TFLite's greedy_in_order shared-object assignment: buffers
// are taken by start time (larger first on ties); blocks whose buffer has
// ended are released; a buffer takes the smallest released block that holds
// it, or else the largest released block (which grows), or else a new block.
// A new block is created only when no block is free, so it uses exactly
// MinBlocks blocks and honours every feasible MaxBlocks.
type GreedyInOrder struct {
	MaxBlocks int // 0 = unbounded
}

// Name implements Planner.
func (*GreedyInOrder) Name() string { return "greedy_in_order" }

// Plan implements Planner.
func (g *GreedyInOrder) Plan(ctx context.Context, p *model.Problem) (*BlockPlan, error) {
	in, err := prepare(p)
	if err != nil {
		return nil, err
	}
	ub, err := greedyInOrder(ctx, in.units, g.MaxBlocks)
	if err != nil {
		return nil, err
	}
	return in.toPlan(ub), nil
}

// endHeap orders (end, block) pairs by end.
type endHeap [][2]int64

func (h endHeap) Len() int { return len(h) }
func (h endHeap) Less(i, j int) bool {
	return h[i][0] < h[j][0] || h[i][0] == h[j][0] && h[i][1] < h[j][1]
}
func (h endHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *endHeap) Push(x any)   { *h = append(*h, x.([2]int64)) }
func (h *endHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func greedyInOrder(ctx context.Context, units []unit, maxBlocks int) ([]int, error) {
	order := startOrder(units)
	assign := make([]int, len(units))
	var sizes []int64
	var free []int // released blocks
	live := &endHeap{}
	for n, u := range order {
		if n%256 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		un := &units[u]
		for live.Len() > 0 && (*live)[0][0] <= un.start {
			free = append(free, int((heap.Pop(live).([2]int64))[1]))
		}
		best := -1
		for k, b := range free {
			if best < 0 {
				best = k
				continue
			}
			cur := free[best]
			switch {
			case sizes[b] >= un.size && (sizes[cur] < un.size || sizes[b] < sizes[cur]):
				best = k // smallest block that holds the buffer
			case sizes[b] < un.size && sizes[cur] < un.size && sizes[b] > sizes[cur]:
				best = k // else the largest one, which grows least
			case sizes[b] == sizes[cur] && b < cur:
				best = k
			}
		}
		var b int
		if best >= 0 {
			b = free[best]
			free = slices.Delete(free, best, best+1)
		} else {
			if maxBlocks > 0 && len(sizes) >= maxBlocks {
				return nil, &CapError{Planner: "greedy_in_order", MaxBlocks: maxBlocks}
			}
			b = len(sizes)
			sizes = append(sizes, 0)
		}
		sizes[b] = max(sizes[b], un.size)
		assign[u] = b
		heap.Push(live, [2]int64{un.end, int64(b)})
	}
	return assign, nil
}

// startOrder sorts units by start, larger first on ties, then by index.
func startOrder(units []unit) []int {
	order := make([]int, len(units))
	for k := range order {
		order[k] = k
	}
	slices.SortStableFunc(order, func(a, b int) int {
		if c := cmp.Compare(units[a].start, units[b].start); c != 0 {
			return c
		}
		return cmp.Compare(units[b].size, units[a].size)
	})
	return order
}

// sizeOrder sorts units by size, largest first, then by start, then index.
func sizeOrder(units []unit) []int {
	order := make([]int, len(units))
	for k := range order {
		order[k] = k
	}
	slices.SortStableFunc(order, func(a, b int) int {
		if c := cmp.Compare(units[b].size, units[a].size); c != 0 {
			return c
		}
		return cmp.Compare(units[a].start, units[b].start)
	})
	return order
}

// GreedyBySize is TFLite's greedy_by_size shared-object assignment (its
// distance-priority variant): buffers are taken largest first; each goes to
// the existing block it does not conflict with whose nearest buffer is
// closest in time (a tight fit that keeps long free stretches for later),
// or to a new block. Blocks never grow: the first buffer sizes them.
type GreedyBySize struct {
	MaxBlocks int // 0 = unbounded
}

// Name implements Planner.
func (*GreedyBySize) Name() string { return "greedy_by_size" }

// Plan implements Planner.
func (g *GreedyBySize) Plan(ctx context.Context, p *model.Problem) (*BlockPlan, error) {
	in, err := prepare(p)
	if err != nil {
		return nil, err
	}
	q := &pool{cap: g.MaxBlocks}
	assign := make([]int, len(in.units))
	for n, u := range sizeOrder(in.units) {
		if n%256 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		un := &in.units[u]
		best, bestDist := -1, int64(0)
		for b := range q.size {
			if ok, d := q.fits(b, un.start, un.end); ok && (best < 0 || d < bestDist) {
				best, bestDist = b, d
			}
		}
		if best < 0 {
			if best = q.open(); best < 0 {
				return nil, &CapError{Planner: g.Name(), MaxBlocks: g.MaxBlocks}
			}
		}
		q.put(best, un.start, un.end, un.size)
		assign[u] = best
	}
	return in.toPlan(assign), nil
}

// GreedyByBreadth is TFLite's greedy_by_breadth assignment: time slots are
// taken by breadth (total bytes live), widest first; in each, the
// unassigned buffers live there, largest first, go to the non-conflicting
// block that grows least (then wastes least), or to a new block.
type GreedyByBreadth struct {
	MaxBlocks int // 0 = unbounded
}

// Name implements Planner.
func (*GreedyByBreadth) Name() string { return "greedy_by_breadth" }

// Plan implements Planner.
func (g *GreedyByBreadth) Plan(ctx context.Context, p *model.Problem) (*BlockPlan, error) {
	in, err := prepare(p)
	if err != nil {
		return nil, err
	}
	units := in.units
	tl := newTimeline(units)
	ns := tl.slots()
	breadth := make([]int64, ns+1)
	for u := range units {
		breadth[tl.lo[u]] += units[u].size
		breadth[tl.hi[u]] -= units[u].size
	}
	for k := 1; k <= ns; k++ {
		breadth[k] += breadth[k-1]
	}
	slots := make([]int, ns)
	for k := range slots {
		slots[k] = k
	}
	slices.SortStableFunc(slots, func(a, b int) int { return cmp.Compare(breadth[b], breadth[a]) })
	bySize := sizeOrder(units)
	q := &pool{cap: g.MaxBlocks}
	assign := make([]int, len(units))
	for k := range assign {
		assign[k] = -1
	}
	for n, s := range slots {
		if n%256 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		for _, u := range bySize {
			if assign[u] >= 0 || tl.lo[u] > s || tl.hi[u] <= s {
				continue
			}
			un := &units[u]
			best := -1
			var bestGrow, bestWaste int64
			for b := range q.size {
				if ok, _ := q.fits(b, un.start, un.end); !ok {
					continue
				}
				grow, waste := max(0, un.size-q.size[b]), max(0, q.size[b]-un.size)
				if best < 0 || grow < bestGrow || grow == bestGrow && waste < bestWaste {
					best, bestGrow, bestWaste = b, grow, waste
				}
			}
			if best < 0 {
				if best = q.open(); best < 0 {
					return nil, &CapError{Planner: g.Name(), MaxBlocks: g.MaxBlocks}
				}
			}
			q.put(best, un.start, un.end, un.size)
			assign[u] = best
		}
	}
	return in.toPlan(assign), nil
}

// prepare validates the problem and folds it.
func prepare(p *model.Problem) (*instance, error) {
	if p == nil {
		return nil, errNilProblem
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return fold(p), nil
}
