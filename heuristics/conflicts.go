package heuristics

import "slices"

// graph is the conflict graph of a slice of items in compressed-row form:
// the neighbours of item k are adj[first[k]:first[k+1]]. Two items conflict
// when their lifetimes intersect and both have bytes.
type graph struct {
	first []int32
	adj   []int32
}

func (g *graph) of(k int) []int32 { return g.adj[g.first[k]:g.first[k+1]] }

// byStart returns the item indices sorted by start (ties by index).
func byStart(its []item) []int32 {
	order := make([]int32, len(its))
	for k := range order {
		order[k] = int32(k)
	}
	slices.SortFunc(order, func(a, b int32) int {
		if c := cmp64(its[a].start, its[b].start); c != 0 {
			return c
		}
		return int(a - b)
	})
	return order
}

// sweepConflicts calls f(a, b) for every conflicting pair, sweeping over
// time with the set of live items. O(n log n + E).
func sweepConflicts(its []item, f func(a, b int32)) {
	var active []int32
	for _, k := range byStart(its) {
		it := &its[k]
		if it.size == 0 {
			continue
		}
		w := 0
		for _, j := range active {
			if its[j].end > it.start {
				active[w] = j
				w++
				f(j, k)
			}
		}
		active = append(active[:w], k)
	}
}

// countConflicts returns the number of conflicting pairs without storing
// them, so that callers can refuse quadratic work on huge instances.
func countConflicts(its []item) int64 {
	var e int64
	sweepConflicts(its, func(a, b int32) { e++ })
	return e
}

// conflictGraph builds the conflict graph; neighbour lists are in sweep
// order. Memory is 8 bytes per pair.
func conflictGraph(its []item) graph {
	n := len(its)
	deg := make([]int32, n+1)
	var pairs [][2]int32
	sweepConflicts(its, func(a, b int32) {
		pairs = append(pairs, [2]int32{a, b})
		deg[a]++
		deg[b]++
	})
	g := graph{first: make([]int32, n+1), adj: make([]int32, 2*len(pairs))}
	for k := 0; k < n; k++ {
		g.first[k+1] = g.first[k] + deg[k]
	}
	fill := append([]int32(nil), g.first[:n]...)
	for _, pr := range pairs {
		g.adj[fill[pr[0]]] = pr[1]
		fill[pr[0]]++
		g.adj[fill[pr[1]]] = pr[0]
		fill[pr[1]]++
	}
	return g
}
