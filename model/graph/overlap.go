package graph

import "slices"

// resolveOverlaps undoes alias decisions until, inside every alias tree,
// two buffers that share bytes while both live are nested (one is an
// ancestor of the other): that is what model.Problem and the verifier
// accept. The in-place rules only relate buffers that hold the same data,
// so sharing would be harmless, but siblings (say a concat input and a
// split output of the same concat output, or a reshape of a buffer whose
// views are still live) are not nested. Of the aliases on the paths from
// the two buffers to their common ancestor, the most recent is undone (its
// child becomes a buffer of its own, which is always sound: the op copies).
// Undone aliases are reported as skipped.
func (b *builder) resolveOverlaps(mi *minfo) {
	order := make(map[int]int, len(mi.made)) // child -> position in mi.made
	for k, m := range mi.made {
		order[m.child] = k
	}
	for {
		u, v, ok := mi.conflict()
		if !ok {
			return
		}
		// Find the most recent alias on the paths u -> lca and v -> lca.
		anc := map[int]bool{}
		for x := u; x >= 0; x = mi.tensors[x].parent {
			anc[x] = true
		}
		lca := v
		for !anc[lca] {
			lca = mi.tensors[lca].parent
		}
		worst, at := -1, -1
		for _, start := range []int{u, v} {
			for x := start; x != lca; x = mi.tensors[x].parent {
				if k := order[x]; k > at {
					worst, at = x, k
				}
			}
		}
		m := mi.made[at]
		mi.tensors[worst].parent, mi.tensors[worst].delta = -1, 0
		b.skip(mi, m.op, m.rule, mi.tensors[m.tensor].t.Name, "%q would share bytes with %q while both are live", mi.tensors[u].t.Name, mi.tensors[v].t.Name)
	}
}

// conflict returns two live buffers of one alias tree, not nested, whose
// byte ranges and lifetimes overlap.
func (mi *minfo) conflict() (int, int, bool) {
	groups := map[int][]int{}
	for k := range mi.tensors {
		if !mi.live[k] {
			continue
		}
		if r, _ := mi.root(k); r != k || mi.tensors[k].parent >= 0 {
			groups[r] = append(groups[r], k)
		}
	}
	roots := make([]int, 0, len(groups))
	for r := range groups {
		roots = append(roots, r)
	}
	slices.Sort(roots)
	for _, r := range roots {
		members := append([]int{r}, groups[r]...)
		for i, x := range members {
			_, dx := mi.root(x)
			tx := &mi.tensors[x]
			for _, y := range members[i+1:] {
				if x == y {
					continue
				}
				_, dy := mi.root(y)
				ty := &mi.tensors[y]
				if dx < dy+ty.bytes && dy < dx+tx.bytes && tx.start < ty.end && ty.start < tx.end && !mi.nested(x, y) {
					return x, y, true
				}
			}
		}
	}
	return 0, 0, false
}

func (mi *minfo) nested(x, y int) bool {
	return mi.ancestor(x, y) || mi.ancestor(y, x)
}

func (mi *minfo) ancestor(a, x int) bool {
	for x = mi.tensors[x].parent; x >= 0; x = mi.tensors[x].parent {
		if x == a {
			return true
		}
	}
	return false
}
