package blockunion

import (
	"cmp"
	"encoding/binary"
	"slices"
)

// Stacked returns the union of one placement (so an upper bound on
// Min): each time's items stacked from block 0 up, largest first. It
// sorts xs and ys.
func Stacked(xs, ys []int64, A int64) int64 {
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

// Relaxed is a lower bound on Min that forgets that an item's
// blocks are consecutive: every time is a bag of blocks (whole ones and
// each item's last), and the bags are matched largest to largest, which
// maximises Σ min and so minimises Σ max over all matchings.
func Relaxed(xs, ys []int64, A int64) int64 {
	bag := func(sizes []int64) (full int64, parts []int64) {
		for _, v := range sizes {
			n, last := blocksOf(v, A)
			if last == A {
				full += n
			} else {
				full += n - 1
				parts = append(parts, last)
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

// Cache remembers the answers of Min, keyed by the two multisets and A.
type Cache map[string]int64

// Min returns Min(xs, ys, A, maxStates) from the cache or computes and
// remembers it; the number of states is 0 for a remembered answer. It sorts
// xs and ys.
func (memo Cache) Min(xs, ys []int64, A int64, maxStates int) (int64, int, bool) {
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
	v, n, ok := Min(xs, ys, A, maxStates)
	if !ok {
		v = -1
	}
	memo[string(key)] = v
	return v, n, ok
}

// Min returns the smallest Σ_blocks max(cX, cY) over all placements of the
// A-aligned items xs (one time) and ys (the other) on the A-grid, items of
// one time disjoint (see the package comment); false when the search needs
// more than maxStates states. It also returns the number of states it
// took.
func Min(xs, ys []int64, A int64, maxStates int) (int64, int, bool) {
	if len(xs) > 255 || len(ys) > 255 {
		return 0, 0, false // counts are kept in bytes
	}
	u := unionSearch{A: A, memo: map[string]int64{}, maxStates: maxStates}
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
	A         int64
	x, y      []itemType
	memo      map[string]int64
	key       []byte
	maxStates int
}

// blocksOf returns the number of A-blocks an item of v > 0 bytes covers
// and the bytes it covers of the last one (1..A).
func blocksOf(v, A int64) (n, last int64) {
	n = (v + A - 1) / A
	return n, v - (n-1)*A
}

// types groups sorted sizes into item types.
func (u *unionSearch) types(sizes []int64) []itemType {
	var ts []itemType
	for _, s := range sizes {
		c, last := blocksOf(s, u.A)
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
	if len(u.memo) >= u.maxStates {
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
