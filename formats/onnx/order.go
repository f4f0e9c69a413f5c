package onnx

import (
	"container/heap"
	"sort"
)

// captures lists the names that g's nodes (and the bodies nested in them)
// read without g defining them: tensors of an enclosing graph.
func captures(g *Graph, memo map[*Graph][]string) []string {
	if c, ok := memo[g]; ok {
		return c
	}
	memo[g] = nil // a graph cannot contain itself; guards a cycle anyway
	def := map[string]bool{}
	for _, t := range g.Initializers {
		def[t.Name] = true
	}
	for _, vi := range g.Inputs {
		def[vi.GetName()] = true
	}
	for _, n := range g.Nodes {
		for _, o := range n.Outputs {
			def[o] = true
		}
	}
	seen := map[string]bool{}
	var out []string
	for _, n := range g.Nodes {
		for _, r := range reads(n, memo) {
			if !def[r] && !seen[r] {
				seen[r] = true
				out = append(out, r)
			}
		}
	}
	memo[g] = out
	return out
}

// reads lists what a node reads: its inputs and its bodies' captures.
func reads(n *Node, memo map[*Graph][]string) []string {
	var r []string
	for _, i := range n.Inputs {
		if i != "" {
			r = append(r, i)
		}
	}
	names := make([]string, 0, len(n.Graphs))
	for a := range n.Graphs {
		names = append(names, a)
	}
	sort.Strings(names)
	for _, a := range names {
		r = append(r, captures(n.Graphs[a], memo)...)
	}
	return r
}

// order returns g's nodes in an execution order: the listed order when it
// is one (ONNX requires it), otherwise a topological order that keeps the
// listed order where it can. A cycle, a tensor written twice or one read
// but defined nowhere is an error.
func (in *inferer) order(g *Graph, sc *scope) ([]*Node, error) {
	memo := map[*Graph][]string{}
	producer := make(map[string]int, len(g.Nodes))
	for i, n := range g.Nodes {
		for _, o := range n.Outputs {
			if o == "" {
				continue
			}
			if j, dup := producer[o]; dup {
				return nil, in.fail("tensor %q is written by node %s and node %s", o, nodeName(g.Nodes[j]), nodeName(n))
			}
			producer[o] = i
		}
	}
	deps := make([][]int, len(g.Nodes))
	listed := true
	for i, n := range g.Nodes {
		for _, r := range reads(n, memo) {
			j, ok := producer[r]
			if !ok {
				if sc.get(r) == nil {
					return nil, in.fail("node %s reads tensor %q, which no node, graph input or initializer defines", nodeName(n), r)
				}
				continue
			}
			deps[i] = append(deps[i], j)
			if j >= i {
				listed = false
			}
		}
	}
	if listed {
		return g.Nodes, nil
	}
	// Kahn's algorithm, smallest listed index first.
	waiting := make([]int, len(g.Nodes))
	users := make([][]int, len(g.Nodes))
	for i, ds := range deps {
		for _, j := range ds {
			waiting[i]++
			users[j] = append(users[j], i)
		}
	}
	h := &intHeap{}
	for i := range g.Nodes {
		if waiting[i] == 0 {
			heap.Push(h, i)
		}
	}
	out := make([]*Node, 0, len(g.Nodes))
	for h.Len() > 0 {
		i := heap.Pop(h).(int)
		out = append(out, g.Nodes[i])
		for _, u := range users[i] {
			if waiting[u]--; waiting[u] == 0 {
				heap.Push(h, u)
			}
		}
	}
	if len(out) < len(g.Nodes) {
		for i, n := range g.Nodes {
			if waiting[i] > 0 {
				for _, r := range reads(n, memo) {
					if j, ok := producer[r]; ok && waiting[j] > 0 {
						return nil, in.fail("the nodes form a cycle: node %s reads tensor %q, which node %s writes after it (directly or through others)", nodeName(n), r, nodeName(g.Nodes[j]))
					}
				}
			}
		}
		return nil, in.fail("the nodes form a cycle")
	}
	in.reordered++
	return out, nil
}

type intHeap []int

func (h intHeap) Len() int           { return len(h) }
func (h intHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h intHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *intHeap) Push(x any)        { *h = append(*h, x.(int)) }
func (h *intHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
