package model

import (
	"cmp"
	"slices"
)

// AliasConflict finds two nodes of an alias forest, neither an ancestor of
// the other and both marked in compare, that share bytes while both are
// live: node i has parent[i] (-1 for a root), sits at delta[i] inside its
// parent, has size[i] bytes and lives over [start[i], end[i]). It returns
// them with x < y. Problem.Validate and the graph builder use it.
//
// Near-linear: a child's bytes lie within its parent's, so two unrelated
// nodes that share bytes descend from two different children of their
// lowest common ancestor whose byte ranges overlap. Only such sibling
// clusters (runs of byte-overlapping children of one node) are searched,
// comparing nodes of different children's subtrees by a sweep over time. A
// chain of views has no siblings and costs O(n). Should a child stick out
// of its parent, the nodes of each tree are compared pairwise instead.
func AliasConflict(parent []int, delta, size, start, end []int64, compare []bool) (int, int, bool) {
	n := len(parent)
	abs := make([]int64, n) // offset in the root
	done := make([]bool, n)
	var stack []int
	nested := true
	for i := range n {
		j := i
		for !done[j] && parent[j] >= 0 {
			stack = append(stack, j)
			j = parent[j]
		}
		done[j] = true
		for k := len(stack) - 1; k >= 0; k-- {
			s := stack[k]
			q := parent[s]
			abs[s], done[s] = abs[q]+delta[s], true
			nested = nested && delta[s] >= 0 && delta[s] <= size[q]-size[s]
		}
		stack = stack[:0]
	}
	// Children lists, in index order (CSR).
	first := make([]int32, n+1)
	for i := range n {
		if q := parent[i]; q >= 0 {
			first[q+1]++
		}
	}
	for i := range n {
		first[i+1] += first[i]
	}
	children := make([]int32, first[n])
	fill := append([]int32(nil), first[:n]...)
	for i := range n {
		if q := parent[i]; q >= 0 {
			children[fill[q]] = int32(i)
			fill[q]++
		}
	}
	var sub []aliasMember
	var walk []int32
	// collect appends the compared nodes of the subtree of c, labelled.
	collect := func(c, label int32) {
		walk = append(walk[:0], c)
		for len(walk) > 0 {
			m := walk[len(walk)-1]
			walk = walk[:len(walk)-1]
			if compare[m] && size[m] > 0 {
				sub = append(sub, aliasMember{i: m, label: label})
			}
			walk = append(walk, children[first[m]:first[m+1]]...)
		}
	}
	if !nested {
		for r := range n {
			if parent[r] >= 0 || first[r+1] == first[r] {
				continue
			}
			sub = sub[:0]
			collect(int32(r), 0)
			for k := range sub {
				sub[k].label = sub[k].i // every node its own label
			}
			related := func(a, b int32) bool {
				return isAncestor(parent, int(a), int(b)) || isAncestor(parent, int(b), int(a))
			}
			if x, y, ok := crossing(sub, abs, size, start, end, related); ok {
				return min(x, y), max(x, y), true
			}
		}
		return 0, 0, false
	}
	var kids []int32
	for q := range n {
		if first[q+1]-first[q] < 2 {
			continue
		}
		kids = kids[:0]
		for _, c := range children[first[q]:first[q+1]] {
			if size[c] > 0 {
				kids = append(kids, c)
			}
		}
		slices.SortFunc(kids, func(a, b int32) int { return cmp.Or(cmp.Compare(delta[a], delta[b]), cmp.Compare(a, b)) })
		for lo := 0; lo < len(kids); {
			hi, top := lo+1, delta[kids[lo]]+size[kids[lo]]
			for hi < len(kids) && delta[kids[hi]] < top {
				top = max(top, delta[kids[hi]]+size[kids[hi]])
				hi++
			}
			if hi-lo >= 2 {
				sub = sub[:0]
				for label, c := range kids[lo:hi] {
					collect(c, int32(label))
				}
				if x, y, ok := crossing(sub, abs, size, start, end, nil); ok {
					return min(x, y), max(x, y), true
				}
			}
			lo = hi
		}
	}
	return 0, 0, false
}

func isAncestor(parent []int, a, x int) bool {
	for x = parent[x]; x >= 0; x = parent[x] {
		if x == a {
			return true
		}
	}
	return false
}

// aliasMember is a node of a sibling cluster's subtrees: its index and the
// child of the cluster it descends from.
type aliasMember struct{ i, label int32 }

// crossing finds two members with different labels (and not related, when
// related is given) live at the same time on overlapping bytes (abs is the
// offset in the root). It sweeps over time, comparing each member with the
// live ones.
func crossing(ms []aliasMember, abs, size, start, end []int64, related func(a, b int32) bool) (int, int, bool) {
	slices.SortFunc(ms, func(a, b aliasMember) int {
		return cmp.Or(cmp.Compare(start[a.i], start[b.i]), cmp.Compare(a.i, b.i))
	})
	var live []aliasMember
	for _, m := range ms {
		k := 0
		for _, l := range live {
			if end[l.i] > start[m.i] {
				live[k] = l
				k++
			}
		}
		live = live[:k]
		for _, l := range live {
			if l.label != m.label && abs[l.i] < abs[m.i]+size[m.i] && abs[m.i] < abs[l.i]+size[l.i] &&
				(related == nil || !related(l.i, m.i)) {
				return int(l.i), int(m.i), true
			}
		}
		live = append(live, m)
	}
	return 0, 0, false
}
