package blocks

import (
	"cmp"
	"container/heap"
	"context"
	"slices"

	"github.com/optalloc/optalloc/model"
)

// MinCostFlow is TFLite's min_cost_flow_assignment: a flow network with a
// "released" vertex L_i and a "needs a block" vertex R_j per buffer; every
// R_j gets one unit of flow, either from the source (a new block, cost
// size_j) or from an L_i whose buffer ended before j starts (j inherits i's
// block, cost max(0, size_j − size_i), the growth). A min-cost flow picks
// the chains; each chain is a block. The cost only approximates the block
// bytes (a block growing, shrinking and growing again is charged twice), so
// this is a heuristic. To keep the network sparse, each R_j is linked to at
// most Candidates·3/2 earlier buffers: the smallest ones that hold it, the
// largest ones that do not and the latest to end (Candidates/2 of each; 0
// means DefaultCandidates).
type MinCostFlow struct {
	MaxBlocks  int // 0 = unbounded
	Candidates int
}

// DefaultCandidates is the number of predecessors per buffer in MinCostFlow.
const DefaultCandidates = 16

// Name implements Planner.
func (*MinCostFlow) Name() string { return "min_cost_flow" }

// Plan implements Planner.
func (m *MinCostFlow) Plan(ctx context.Context, p *model.Problem) (*BlockPlan, error) {
	in, err := prepare(p)
	if err != nil {
		return nil, err
	}
	k := m.Candidates
	if k <= 0 {
		k = DefaultCandidates
	}
	assign, nb, err := minCostFlow(ctx, in.units, k)
	if err != nil {
		return nil, err
	}
	if m.MaxBlocks > 0 && nb > m.MaxBlocks {
		return nil, &CapError{Planner: m.Name(), MaxBlocks: m.MaxBlocks}
	}
	return in.toPlan(assign), nil
}

type flowEdge struct {
	to, rev int
	cap     int
	cost    int64
}

type flowGraph struct {
	adj [][]flowEdge
}

func (g *flowGraph) add(u, v int, cost int64) {
	g.adj[u] = append(g.adj[u], flowEdge{to: v, rev: len(g.adj[v]), cap: 1, cost: cost})
	g.adj[v] = append(g.adj[v], flowEdge{to: u, rev: len(g.adj[u]) - 1, cap: 0, cost: -cost})
}

type distItem struct {
	d int64
	v int
}
type distHeap []distItem

func (h distHeap) Len() int           { return len(h) }
func (h distHeap) Less(i, j int) bool { return h[i].d < h[j].d || h[i].d == h[j].d && h[i].v < h[j].v }
func (h distHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *distHeap) Push(x any)        { *h = append(*h, x.(distItem)) }
func (h *distHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// minCostFlow returns a per-unit block assignment and the block count.
func minCostFlow(ctx context.Context, units []unit, k int) ([]int, int, error) {
	n := len(units)
	if n == 0 {
		return nil, 0, nil
	}
	// Vertices: 0 source, 1 sink, 2+i = L_i, 2+n+j = R_j.
	src, snk := 0, 1
	g := &flowGraph{adj: make([][]flowEdge, 2+2*n)}
	byEnd := make([]int, n)
	for i := range byEnd {
		byEnd[i] = i
	}
	slices.SortStableFunc(byEnd, func(a, b int) int { return cmp.Compare(units[a].end, units[b].end) })
	for i := 0; i < n; i++ {
		g.add(src, 2+i, 0)
	}
	above := make([]int, 0, k)
	below := make([]int, 0, k)
	recent := make([]int, 0, k)
	for j := 0; j < n; j++ {
		uj := &units[j]
		g.add(src, 2+n+j, uj.size)
		above, below, recent = above[:0], below[:0], recent[:0]
		half := max(1, k/2)
		// Compatible predecessors end at or before j starts: a prefix of
		// byEnd. Scan it latest first, so that ties keep the nearest ones.
		end, _ := slices.BinarySearchFunc(byEnd, uj.start+1, func(i int, t int64) int { return cmp.Compare(units[i].end, t) })
		for x := end - 1; x >= 0; x-- {
			i := byEnd[x]
			if len(recent) < half {
				recent = append(recent, i)
			}
			if units[i].size >= uj.size {
				above = keepBest(above, i, half, func(a, b int) bool { return units[a].size < units[b].size })
			} else {
				below = keepBest(below, i, half, func(a, b int) bool { return units[a].size > units[b].size })
			}
		}
		seen := map[int]bool{}
		for _, list := range [][]int{above, below, recent} {
			for _, i := range list {
				if !seen[i] {
					seen[i] = true
					g.add(2+i, 2+n+j, max(0, uj.size-units[i].size))
				}
			}
		}
		g.add(2+n+j, snk, 0)
	}
	if err := g.flow(ctx, src, snk, n); err != nil {
		return nil, 0, err
	}
	pred := make([]int, n)
	for j := range pred {
		pred[j] = -1
	}
	for i := 0; i < n; i++ {
		for _, e := range g.adj[2+i] {
			if e.to >= 2+n && e.cap == 0 {
				pred[e.to-2-n] = i
			}
		}
	}
	assign := make([]int, n)
	nb := 0
	for _, j := range startOrder(units) {
		if pred[j] < 0 {
			assign[j] = nb
			nb++
		} else {
			assign[j] = assign[pred[j]]
		}
	}
	return assign, nb, nil
}

// keepBest keeps the k best items of list (better(a, b): a before b).
func keepBest(list []int, x, k int, better func(a, b int) bool) []int {
	if len(list) == k && !better(x, list[k-1]) {
		return list
	}
	if len(list) < k {
		list = append(list, x)
	} else {
		list[k-1] = x
	}
	for i := len(list) - 1; i > 0 && better(list[i], list[i-1]); i-- {
		list[i], list[i-1] = list[i-1], list[i]
	}
	return list
}

// flow pushes want units from s to t by successive shortest paths
// (Dijkstra with potentials, stopped once t is settled).
func (g *flowGraph) flow(ctx context.Context, s, t, want int) error {
	nv := len(g.adj)
	pot := make([]int64, nv)
	dist := make([]int64, nv)
	done := make([]bool, nv)
	prevV := make([]int, nv)
	prevE := make([]int, nv)
	const inf = int64(1) << 62
	h := &distHeap{}
	for f := 0; f < want; f++ {
		if f%64 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		for v := range dist {
			dist[v], done[v] = inf, false
		}
		dist[s] = 0
		*h = (*h)[:0]
		heap.Push(h, distItem{0, s})
		for h.Len() > 0 {
			it := heap.Pop(h).(distItem)
			v := it.v
			if done[v] || it.d > dist[v] {
				continue
			}
			done[v] = true
			if v == t {
				break
			}
			for ei, e := range g.adj[v] {
				if e.cap == 0 {
					continue
				}
				nd := dist[v] + e.cost + pot[v] - pot[e.to]
				if nd < dist[e.to] {
					dist[e.to] = nd
					prevV[e.to], prevE[e.to] = v, ei
					heap.Push(h, distItem{nd, e.to})
				}
			}
		}
		if !done[t] {
			return errNoFlow
		}
		dt := dist[t]
		for v := range pot {
			if done[v] {
				pot[v] += dist[v]
			} else {
				pot[v] += dt
			}
		}
		for v := t; v != s; v = prevV[v] {
			e := &g.adj[prevV[v]][prevE[v]]
			e.cap--
			g.adj[v][e.rev].cap++
		}
	}
	return nil
}
