package heuristics

import "slices"

// itree finds the placed items live during a time window in O((k+1) log n):
// a segment tree over the items sorted by start, whose nodes keep the
// largest end of the placed items below them. The placer uses it instead
// of its linear scan when conflicts are sparse (long traces of short-lived
// tensors), where the scan would be quadratic.
type itree struct {
	pos  []int32 // item → position in start order
	at   []int32 // position → item
	st   []int32 // start rank by position
	size int
	maxE []int32 // segment tree; -1 = nothing placed
}

func newITree(rs, re []int32) *itree {
	n := len(rs)
	t := &itree{pos: make([]int32, n), at: make([]int32, n), st: make([]int32, n)}
	for k := range t.at {
		t.at[k] = int32(k)
	}
	slices.SortFunc(t.at, func(a, b int32) int {
		if rs[a] != rs[b] {
			return int(rs[a] - rs[b])
		}
		return int(a - b)
	})
	for p, k := range t.at {
		t.pos[k] = int32(p)
		t.st[p] = rs[k]
	}
	t.size = 1
	for t.size < n {
		t.size *= 2
	}
	t.maxE = make([]int32, 2*t.size)
	t.reset()
	return t
}

func (t *itree) reset() {
	for i := range t.maxE {
		t.maxE[i] = -1
	}
}

// add marks item k, ending at rank e, as placed.
func (t *itree) add(k int, e int32) {
	i := int(t.pos[k]) + t.size
	for ; i >= 1; i /= 2 {
		if t.maxE[i] >= e {
			break
		}
		t.maxE[i] = e
	}
}

// query appends to out the placed items with start < e and end > s.
func (t *itree) query(s, e int32, out []int32) []int32 {
	lim, _ := slices.BinarySearch(t.st, e) // positions < lim start before e
	if lim == 0 {
		return out
	}
	return t.walk(1, 0, t.size, lim, s, out)
}

func (t *itree) walk(node, lo, hi, lim int, s int32, out []int32) []int32 {
	if lo >= lim || t.maxE[node] <= s {
		return out
	}
	if hi-lo == 1 {
		return append(out, t.at[lo])
	}
	mid := (lo + hi) / 2
	out = t.walk(2*node, lo, mid, lim, s, out)
	return t.walk(2*node+1, mid, hi, lim, s, out)
}
