package blocks

import "sort"

// pool is a growing set of blocks for the greedy planners: each block keeps
// its size and the intervals of the units it holds, sorted by start and
// pairwise disjoint, so a conflict test is a binary search.
type pool struct {
	size  []int64
	spans [][][2]int64
	cap   int // 0 = unbounded
}

// fits reports whether [s, e) is free in block b, and the time distance to
// the nearest interval of b (0 when touching; a large value for an empty
// block).
func (q *pool) fits(b int, s, e int64) (ok bool, dist int64) {
	sp := q.spans[b]
	k := sort.Search(len(sp), func(i int) bool { return sp[i][0] >= e })
	// sp[k-1] is the last interval starting before e.
	dist = 1 << 62
	if k > 0 {
		prev := sp[k-1]
		if prev[1] > s {
			return false, 0
		}
		dist = s - prev[1]
	}
	if k < len(sp) {
		dist = min(dist, sp[k][0]-e)
	}
	return true, dist
}

// put adds [s, e) of the given size to block b (growing it).
func (q *pool) put(b int, s, e, size int64) {
	sp := q.spans[b]
	k := sort.Search(len(sp), func(i int) bool { return sp[i][0] >= s })
	sp = append(sp, [2]int64{})
	copy(sp[k+1:], sp[k:])
	sp[k] = [2]int64{s, e}
	q.spans[b] = sp
	q.size[b] = max(q.size[b], size)
}

// open creates an empty block and returns its index, or -1 at the cap.
func (q *pool) open() int {
	if q.cap > 0 && len(q.size) >= q.cap {
		return -1
	}
	q.size = append(q.size, 0)
	q.spans = append(q.spans, nil)
	return len(q.size) - 1
}
