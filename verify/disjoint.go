package verify

import (
	"cmp"
	"math"
	"math/bits"
	"slices"
)

// disjoint reports whether no two rectangles meet at all (no pair shares
// an instant and a byte of one pool), related or not. It is the fast path of
// checkOverlaps for valid plans: when it says yes, the full sweep would
// report nothing, so Check skips it; at the first pair that meets it says no
// and the full sweep runs as before, so the violation list never depends on
// it.
//
// While the alive rectangles are pairwise disjoint they are totally ordered
// by (pool, lo), and a new rectangle meets one of them iff it meets its
// predecessor or its successor in that order. The order is fixed up front
// (each rectangle's rank in (pool, lo, index) order), so the alive set is a
// set of small integers kept in a 64-ary bit tree: insert, remove,
// predecessor and successor in a few word operations, no allocation.
func disjoint(rects []occ) bool {
	n := len(rects)
	if n < 2 {
		return true
	}
	if n > math.MaxInt32 {
		return false
	}
	// byLo[rank] = rectangle; rank[rectangle] = its place in (pool, lo).
	var sc scratch
	byLo := lowOrder(rects, &sc)
	if byLo == nil {
		return false
	}
	// The sweep reads compact arrays in order — start and end events as
	// (time, rank), the rectangles' bytes by rank — instead of jumping
	// through a million rectangles, which had cost most of its time.
	// The arrays of the sorts are used again (fresh memory costs a page
	// fault every 4 KiB).
	rank := sc.i32
	bytes := make([]span, n)
	for r, k := range byLo {
		rank[k] = int32(r)
		bytes[r] = span{rects[k].lo, rects[k].hi, rects[k].pool}
	}
	starts, startT := timeOrder(rects, true, byLo, sc.a, &sc.count)
	ends, endT := timeOrder(rects, false, nil, sc.b, &sc.count)
	for i, k := range starts {
		starts[i] = rank[k]
	}
	for i, k := range ends {
		ends[i] = rank[k]
	}
	set := newBitTree(n)
	e := 0
	for i, x := range starts {
		// Ends before starts at the same time: lifetimes are half-open.
		for e < n && endT[e] <= startT[i] {
			set.remove(int(ends[e]))
			e++
		}
		r := &bytes[x]
		if p := set.pred(int(x)); p >= 0 {
			if o := &bytes[p]; o.pool == r.pool && o.hi > r.lo {
				return false
			}
		}
		if s := set.succ(int(x)); s >= 0 {
			if o := &bytes[s]; o.pool == r.pool && o.lo < r.hi {
				return false
			}
		}
		set.insert(int(x))
	}
	return true
}

// span is what disjoint's sweep reads of a rectangle.
type span struct {
	lo, hi int64
	pool   int
}

// scratch holds arrays of n words that one sort leaves free for the next.
type scratch struct {
	a, b  []int64
	i32   []int32
	count []int32
}

// lowOrder returns the rectangle indices sorted by (pool, lo, index): a
// stable least-significant-digit radix sort on the 11-bit digits of lo that
// differ, then one counting pass on the pool. Each pass reads and writes
// the keys and indices in compact arrays (reading lo through the indices
// had missed the cache on every rectangle), into at most 2048 buckets. Nil
// if the pools span too wide a range (never for a problem whose pools
// Check accepted). Its key arrays and its other index array are left in sc.
func lowOrder(rects []occ, sc *scratch) []int32 {
	n := len(rects)
	minPool, maxPool := rects[0].pool, rects[0].pool
	keys, tmpKeys := make([]int64, n), make([]int64, n)
	var diff uint64 // bits where some lo differs from the first
	first := uint64(rects[0].lo) ^ 1<<63
	for k := range rects {
		minPool, maxPool = min(minPool, rects[k].pool), max(maxPool, rects[k].pool)
		v := uint64(rects[k].lo) ^ 1<<63
		keys[k] = int64(v)
		diff |= v ^ first
	}
	if maxPool-minPool >= 1<<16 {
		return nil
	}
	out, tmp := make([]int32, n), make([]int32, n)
	for k := range out {
		out[k] = int32(k)
	}
	const digitBits = 11
	var count [1<<16 + 1]int
	for shift := 0; shift < 64; shift += digitBits {
		const mask = 1<<digitBits - 1
		if diff>>shift&mask == 0 {
			continue
		}
		c := count[:mask+2]
		clear(c)
		for _, v := range keys {
			c[uint64(v)>>shift&mask+1]++
		}
		for d := 1; d < len(c); d++ {
			c[d] += c[d-1]
		}
		for i, v := range keys {
			d := uint64(v) >> shift & mask
			tmpKeys[c[d]], tmp[c[d]] = v, out[i]
			c[d]++
		}
		keys, tmpKeys, out, tmp = tmpKeys, keys, tmp, out
	}
	if maxPool > minPool {
		size := maxPool - minPool + 1
		c := count[:size+1]
		clear(c)
		for _, k := range out {
			c[rects[k].pool-minPool+1]++
		}
		for d := 1; d <= size; d++ {
			c[d] += c[d-1]
		}
		for _, k := range out {
			d := rects[k].pool - minPool
			tmp[c[d]] = k
			c[d]++
		}
		out, tmp = tmp, out
	}
	sc.a, sc.b, sc.i32 = keys, tmpKeys, tmp
	return out
}

// timeOrder returns the rectangle indices sorted by start (or end) time,
// ties by index, and their times in that order: a counting sort when the
// times span at most a few times as many steps as there are rectangles,
// else a sort of packed (time, index) words, else a comparison sort. It
// fills out and ts (n long each; out nil: a new one) and keeps its
// counting array in *count for the next call.
func timeOrder(rects []occ, start bool, out []int32, ts []int64, count *[]int32) ([]int32, []int64) {
	n := len(rects)
	for k := range rects {
		if start {
			ts[k] = rects[k].t0
		} else {
			ts[k] = rects[k].t1
		}
	}
	lo, hi := ts[0], ts[0]
	for _, t := range ts {
		lo, hi = min(lo, t), max(hi, t)
	}
	if out == nil {
		out = make([]int32, n)
	}
	span := uint64(hi) - uint64(lo)
	switch {
	case span < 4*uint64(n)+1024:
		if uint64(cap(*count)) < span+2 {
			*count = make([]int32, span+2)
		}
		count := (*count)[:span+2]
		clear(count)
		for _, t := range ts {
			count[t-lo+1]++
		}
		for v := 1; v < len(count); v++ {
			count[v] += count[v-1]
		}
		for k, t := range ts {
			out[count[t-lo]] = int32(k)
			count[t-lo]++
		}
		// count[v] is now the end of time lo+v's run
		w := int32(0)
		for v, end := range count[:span+1] {
			for ; w < end; w++ {
				ts[w] = lo + int64(v)
			}
		}
	case span < 1<<32:
		// Pack (time - lo, index) into one word and sort plain integers.
		keys := make([]uint64, n)
		for k, t := range ts {
			keys[k] = (uint64(t)-uint64(lo))<<32 | uint64(k)
		}
		slices.Sort(keys)
		for i, v := range keys {
			out[i] = int32(uint32(v))
			ts[i] = lo + int64(v>>32)
		}
	default:
		for k := range out {
			out[k] = int32(k)
		}
		slices.SortStableFunc(out, func(a, b int32) int { return cmp.Compare(ts[a], ts[b]) })
		sorted := make([]int64, n)
		for i, k := range out {
			sorted[i] = ts[k]
		}
		ts = sorted
	}
	return out, ts
}

// bitTree is a set of integers in [0, n): level 0 has one bit per integer,
// each higher level one bit per non-zero word of the level below.
type bitTree struct {
	levels [][]uint64
}

func newBitTree(n int) *bitTree {
	t := &bitTree{}
	for {
		words := (n + 63) / 64
		t.levels = append(t.levels, make([]uint64, words))
		if words == 1 {
			return t
		}
		n = words
	}
}

func (t *bitTree) insert(x int) {
	for _, l := range t.levels {
		w := l[x>>6]
		l[x>>6] = w | 1<<(x&63)
		if w != 0 {
			return
		}
		x >>= 6
	}
}

func (t *bitTree) remove(x int) {
	for _, l := range t.levels {
		l[x>>6] &^= 1 << (x & 63)
		if l[x>>6] != 0 {
			return
		}
		x >>= 6
	}
}

// succ returns the smallest member > x, or -1.
func (t *bitTree) succ(x int) int {
	for h, l := range t.levels {
		// Members of word x>>6 above bit x&63.
		if b := x & 63; b < 63 {
			if w := l[x>>6] >> (b + 1) << (b + 1); w != 0 {
				y := x>>6<<6 | trailing(w)
				for h--; h >= 0; h-- {
					y = y<<6 | trailing(t.levels[h][y])
				}
				return y
			}
		}
		x >>= 6
		if h == len(t.levels)-1 {
			break
		}
	}
	return -1
}

// pred returns the largest member < x, or -1.
func (t *bitTree) pred(x int) int {
	for h, l := range t.levels {
		if b := x & 63; b > 0 {
			if w := l[x>>6] & (1<<b - 1); w != 0 {
				y := x>>6<<6 | leading(w)
				for h--; h >= 0; h-- {
					y = y<<6 | leading(t.levels[h][y])
				}
				return y
			}
		}
		x >>= 6
		if h == len(t.levels)-1 {
			break
		}
	}
	return -1
}

func trailing(w uint64) int { return bits.TrailingZeros64(w) }
func leading(w uint64) int  { return 63 - bits.LeadingZeros64(w) }
