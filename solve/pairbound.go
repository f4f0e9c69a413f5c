package solve

import (
	"cmp"
	"encoding/binary"
	"math"
	"slices"
)

// The two-time alignment bound.
//
// A section bound (AlignBound) looks at one time: there the unaligned bytes
// may fill every padding, so with few aligned buffers it says no more than
// max-live. Two times say more, because a buffer live at both keeps its
// offset. Take two times τ1 < τ2 and a level A (as in AlignBound: the
// A-items are the whole items whose alignment is a multiple of A). Split
// the bytes into
//
//   - both: every piece live at τ1 and at τ2 (one piece, so one offset);
//   - X: the A-items live at τ1 but not at τ2, and Y: those live at τ2 but
//     not at τ1 (the other pieces live at only one time are left out).
//
// In a valid plan with peak H the pieces of "both" are disjoint from every
// piece live at τ1 and from every piece live at τ2, so they avoid the union
// U of the footprints of X (at τ1) and of Y (at τ2): H ≥ both + |U|, where
// the A-items of "both" are counted in "both" (they are disjoint from X and
// from Y, so they add their own bytes to the union anyway).
//
// |U| is at least the smallest union any placement of X and Y can have.
// An A-item starts at a block boundary of the A-grid and covers whole
// blocks and then a prefix of its last block; the next A-item of the same
// time starts at a block boundary again. So in every block each time
// covers a prefix, and the union of the block is the larger of the two
// prefixes: |U| = Σ_blocks max(cX, cY). minUnion finds the smallest such
// sum exactly, by a search over blocks from the bottom (memoised; no height
// limit, which can only lower the minimum). Example (MiniMalloc C, every
// buffer ≥ 64 KiB aligned to 64 KiB, in 1 KiB units): at one time a
// 696-unit buffer, at the next 86, 144 and 466, and 319 units of small
// buffers live at both. 696 takes 11 blocks; the three need 13 blocks
// with partial last blocks, and the best union is 782, so H ≥ 319 + 782 =
// 1101, where max-live is 1015.
//
// The bound only grows when a time's live set grows (a piece added to
// both, to X or to Y never shrinks the union), so only the times at which
// pieces start are paired. Pairs are taken nearest first, under budgets of
// work (the constants below), so the bound stays cheap on large problems;
// a pair whose search would be too large gets the block relaxation
// (blockUnion), and what the budgets skip only leaves the bound lower.

// Limits of the two-time bound.
const (
	pairWork   = 5_000_000 // item visits over all pairs
	pairBlocks = 256       // items of more blocks get the relaxation only
	pairStates = 50_000    // memoised states of one minUnion
	pairTotal  = 250_000   // memoised states of all minUnion searches
	pairTimes  = 4_000     // more start times than this: the bound is skipped
)

// pairResult is the strongest two-time bound found.
type pairResult struct {
	lb         int64
	t1, t2     int64
	level      int64
	both, cost int64 // bytes live at both times, the smallest union
}

// pairBound returns the strongest two-time bound (see above) above best,
// or a zero result. Piece k (items[k]) is live on [starts[k], ends[k]).
func pairBound(starts, ends []int64, items []alignItem, best int64) pairResult {
	var res pairResult
	var levels []int64
	for _, it := range items {
		if it.whole && it.align > 1 && it.size > 0 && !slices.Contains(levels, it.align) {
			levels = append(levels, it.align)
		}
	}
	if len(levels) == 0 {
		return res
	}
	// The start times and the pieces live just after each of them.
	times := slices.Clone(starts)
	slices.Sort(times)
	times = slices.Compact(times)
	if len(times) > pairTimes {
		return res
	}
	order := make([]int, len(items))
	for k := range order {
		order[k] = k
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(starts[a], starts[b]) })
	live := make([][]int, len(times))
	var cur []int
	next := 0
	for i, t := range times {
		for ; next < len(order) && starts[order[next]] <= t; next++ {
			cur = append(cur, order[next])
		}
		cur = slices.DeleteFunc(cur, func(k int) bool { return ends[k] <= t })
		live[i] = slices.Clone(cur)
	}
	work, states := 0, 0
	memo := map[string]int64{}
	var xs, ys []int64
	for d := 1; d < len(times) && work < pairWork; d++ {
		for i := 0; i+d < len(times) && work < pairWork; i++ {
			j := i + d
			t1, t2 := times[i], times[j]
			var both int64
			for _, k := range live[i] {
				if ends[k] > t2 {
					both += items[k].size
				}
			}
			work += len(live[i]) + len(live[j])
			for _, A := range levels {
				xs, ys = xs[:0], ys[:0]
				var sx, sy int64
				for _, k := range live[i] {
					if it := items[k]; ends[k] <= t2 && it.whole && it.size > 0 && it.align%A == 0 {
						xs = append(xs, it.size)
						sx += it.size
					}
				}
				for _, k := range live[j] {
					if it := items[k]; starts[k] > t1 && it.whole && it.size > 0 && it.align%A == 0 {
						ys = append(ys, it.size)
						sy += it.size
					}
				}
				if len(xs) == 0 || len(ys) == 0 || both > math.MaxInt64/4 || sx > math.MaxInt64/4 || sy > math.MaxInt64/4 {
					continue
				}
				if both+sx+sy <= max(best, res.lb) || both+stackedUnion(xs, ys, A) <= max(best, res.lb) {
					continue // a placement with this union exists: cannot beat the best
				}
				u, ok := int64(0), false
				if states < pairTotal && slices.Max(xs) <= pairBlocks*A && slices.Max(ys) <= pairBlocks*A {
					var n int
					u, n, ok = minUnionMemo(memo, xs, ys, A)
					states += n
				}
				if !ok {
					u = blockUnion(xs, ys, A) // a relaxation: still a bound
				}
				if lb := both + u; lb > max(best, res.lb) {
					res = pairResult{lb: lb, t1: t1, t2: t2, level: A, both: both, cost: u}
				}
			}
		}
	}
	return res
}

// stackedUnion returns the union of one placement (so an upper bound on
// minUnion): each time's items stacked from block 0 up, largest first. It
// sorts xs and ys.
func stackedUnion(xs, ys []int64, A int64) int64 {
	desc := func(a, b int64) int { return cmp.Compare(b, a) }
	slices.SortFunc(xs, desc)
	slices.SortFunc(ys, desc)
	return runUnion(xs, ys, A)
}

// runUnion returns Σ_blocks max(cX, cY) when the items xs and ys are each
// stacked in the given order from block 0 up, without gaps.
func runUnion(xs, ys []int64, A int64) int64 {
	// Walk both stacks item by item; rx, ry are the bytes left of the
	// current items (0: take the next).
	var u, rx, ry int64
	i, j := 0, 0
	for {
		if rx == 0 && i < len(xs) {
			rx, i = xs[i], i+1
		}
		if ry == 0 && j < len(ys) {
			ry, j = ys[j], j+1
		}
		if rx == 0 && ry == 0 {
			return u
		}
		// Whole blocks both still fill: k of them at once.
		if k := min(rx, ry) / A; rx > A && ry > A && k > 1 {
			k--
			u += k * A
			rx, ry = rx-k*A, ry-k*A
			continue
		}
		if rx == 0 || ry == 0 {
			u += rx + ry // one stack is done: the rest of the other
			rx, ry = 0, 0
			continue
		}
		// One block: each covers min(r, A) of it.
		cx, cy := min(rx, A), min(ry, A)
		u += max(cx, cy)
		rx, ry = rx-cx, ry-cy
	}
}

// blockUnion is a lower bound on minUnion that forgets that an item's
// blocks are consecutive: every time is a bag of blocks (whole ones and
// each item's last), and the bags are matched largest to largest, which
// maximises Σ min and so minimises Σ max over all matchings.
func blockUnion(xs, ys []int64, A int64) int64 {
	bag := func(sizes []int64) (full int64, parts []int64) {
		for _, v := range sizes {
			full += (v - 1) / A
			if r := v - (v-1)/A*A; r == A {
				full++
			} else {
				parts = append(parts, r)
			}
		}
		slices.Sort(parts)
		slices.Reverse(parts)
		return full, parts
	}
	fx, px := bag(xs)
	fy, py := bag(ys)
	// Both sequences are A (full times) then the partial blocks, largest
	// first; the sum of maxima pairs position k of each. Let x have more
	// whole blocks: they pair with y's whole blocks and then with y's first
	// partial blocks, all at A.
	if fx < fy {
		fx, px, fy, py = fy, py, fx, px
	}
	u := fx * A
	if d := fx - fy; d < int64(len(py)) {
		py = py[d:]
	} else {
		py = nil
	}
	for k := range max(len(px), len(py)) {
		var a, b int64
		if k < len(px) {
			a = px[k]
		}
		if k < len(py) {
			b = py[k]
		}
		u += max(a, b)
	}
	return u
}

// minUnionMemo is minUnion with a cache keyed by the two multisets.
// It also returns the number of states the search took (0 from the cache).
func minUnionMemo(memo map[string]int64, xs, ys []int64, A int64) (int64, int, bool) {
	slices.Sort(xs)
	slices.Sort(ys)
	key := make([]byte, 0, 8*(len(xs)+len(ys)+2))
	key = binary.AppendVarint(key, A)
	for _, s := range xs {
		key = binary.AppendVarint(key, s)
	}
	key = binary.AppendVarint(key, -1)
	for _, s := range ys {
		key = binary.AppendVarint(key, s)
	}
	if v, ok := memo[string(key)]; ok {
		return v, 0, v >= 0
	}
	v, n, ok := minUnion(xs, ys, A)
	if !ok {
		v = -1
	}
	memo[string(key)] = v
	return v, n, ok
}

// minUnion returns the smallest Σ_blocks max(cX, cY) over all placements of
// the A-aligned items xs (one time) and ys (the other) on the A-grid, items
// of one time disjoint (see the comment at the top of this file); false
// when the search needs more than pairStates states. It also returns the
// number of states it took.
func minUnion(xs, ys []int64, A int64) (int64, int, bool) {
	if len(xs) > 255 || len(ys) > 255 {
		return 0, 0, false // counts are kept in bytes
	}
	u := unionSearch{A: A, memo: map[string]int64{}}
	u.x = u.types(slices.Sorted(slices.Values(xs)))
	u.y = u.types(slices.Sorted(slices.Values(ys)))
	ov, ok := u.best(lane{-1, 0}, lane{-1, 0})

	var total int64
	for _, s := range xs {
		total += s
	}
	for _, s := range ys {
		total += s
	}
	return total - ov, len(u.memo), ok
}

// itemType is a distinct size of one time: blocks, the bytes of its last
// block, and how many items of it are left.
type itemType struct {
	blocks int
	last   int64
	left   int
}

// lane is what one time has in the current block: the type of the item
// covering it (-1: none yet) and how many of its blocks lie below.
type lane struct {
	typ  int
	done int
}

type unionSearch struct {
	A    int64
	x, y []itemType
	memo map[string]int64
	key  []byte
}

func (u *unionSearch) types(sizes []int64) []itemType {
	var ts []itemType
	for _, s := range sizes {
		c := (s + u.A - 1) / u.A
		last := s - (c-1)*u.A
		if n := len(ts); n > 0 && ts[n-1].blocks == int(c) && ts[n-1].last == last {
			ts[n-1].left++
			continue
		}
		ts = append(ts, itemType{blocks: int(c), last: last, left: 1})
	}
	return ts
}

// best returns the largest overlap Σ min(cX, cY) the blocks from here up
// can still gain, given what each lane holds now.
func (u *unionSearch) best(lx, ly lane) (int64, bool) {
	nx, ny := left(u.x), left(u.y)
	if lx.typ < 0 && nx == 0 || ly.typ < 0 && ny == 0 {
		return 0, true // one time has nothing left: no more overlap
	}
	u.key = u.key[:0]
	for _, t := range u.x {
		u.key = append(u.key, byte(t.left))
	}
	for _, t := range u.y {
		u.key = append(u.key, byte(t.left))
	}
	u.key = binary.AppendVarint(u.key, int64(lx.typ))
	u.key = binary.AppendVarint(u.key, int64(lx.done))
	u.key = binary.AppendVarint(u.key, int64(ly.typ))
	u.key = binary.AppendVarint(u.key, int64(ly.done))
	if v, ok := u.memo[string(u.key)]; ok {
		return v, true
	}
	if len(u.memo) >= pairStates {
		return 0, false
	}
	key := string(u.key)
	var bestV int64 = -1
	for _, ox := range u.options(lx, u.x) {
		for _, oy := range u.options(ly, u.y) {
			if ox.typ < 0 && oy.typ < 0 {
				continue // a block empty at both times only lifts what is above
			}
			cx, nlx := u.step(ox, u.x, lx.typ < 0)
			cy, nly := u.step(oy, u.y, ly.typ < 0)
			v, ok := u.best(nlx, nly)
			if ox.typ >= 0 && lx.typ < 0 {
				u.x[ox.typ].left++
			}
			if oy.typ >= 0 && ly.typ < 0 {
				u.y[oy.typ].left++
			}
			if !ok {
				return 0, false
			}
			if v += min(cx, cy); v > bestV {
				bestV = v
			}
		}
	}
	u.memo[key] = bestV
	return bestV, true
}

// options lists what a lane can hold in the next block: its current item,
// or (when free) nothing or the first block of any type left.
func (u *unionSearch) options(l lane, ts []itemType) []lane {
	if l.typ >= 0 {
		return []lane{l}
	}
	out := []lane{{-1, 0}}
	for k, t := range ts {
		if t.left > 0 {
			out = append(out, lane{k, 0})
		}
	}
	return out
}

// step covers one block with option o of a lane: the bytes covered and the
// lane after the block. Starting an item (fresh) takes it from its type.
func (u *unionSearch) step(o lane, ts []itemType, fresh bool) (int64, lane) {
	if o.typ < 0 {
		return 0, o
	}
	t := &ts[o.typ]
	if fresh {
		t.left--
	}
	if o.done+1 == t.blocks {
		return t.last, lane{-1, 0}
	}
	return u.A, lane{o.typ, o.done + 1}
}

func left(ts []itemType) int {
	n := 0
	for _, t := range ts {
		n += t.left
	}
	return n
}
