package blocks

import (
	"fmt"
	"strings"

	"github.com/optalloc/optalloc/model"
)

// The level bound.
//
// Claim. For a threshold x ≥ 0 let ω(x) be the largest number of units of
// size > x live at one time. Every valid block plan has
//
//	TotalBytes ≥ LB = ∫_0^∞ ω(x) dx = Σ_k ω(s_k)·(s_k − s_{k+1}),
//
// where s_1 > s_2 > … > s_K are the distinct unit sizes and s_{K+1} = 0
// (ω is constant on [s_{k+1}, s_k) and counts the units of size ≥ s_k).
//
// Proof. A block's size is the largest unit it holds, so
// TotalBytes = Σ_blocks size(b) = Σ_blocks ∫_0^∞ [size(b) > x] dx
// = ∫_0^∞ N(x) dx, where N(x) counts the blocks holding some unit of
// size > x. At the time where ω(x) units of size > x are live together,
// they conflict pairwise, so they sit in ω(x) distinct blocks, each of
// which holds a unit of size > x: N(x) ≥ ω(x) for every x, and integrating
// gives the claim. ∎
//
// At x = 0 the same argument gives the block count bound: no plan uses
// fewer than ω(0) = MinBlocks blocks. The bound is the classic one for
// max-colouring of interval graphs, which is NP-hard, so it is not always
// tight; the exact engine (exact.go) closes the rest of the gap with a
// strengthened, node-local version of it.

// segTree supports range add and global max over slots.
type segTree struct {
	n        int
	mx, lazy []int
}

func newSegTree(n int) *segTree {
	m := 1
	for m < max(n, 1) {
		m <<= 1
	}
	t := &segTree{n: m, mx: make([]int, 2*m), lazy: make([]int, 2*m)}
	// Slots beyond n must never win the max: start them very low.
	for k := n; k < m; k++ {
		t.add(k, k+1, -1<<40)
	}
	return t
}

// add adds v to slots [l, r).
func (t *segTree) add(l, r, v int) { t.addRec(1, 0, t.n, l, r, v) }

func (t *segTree) addRec(node, nl, nr, l, r, v int) {
	if r <= nl || nr <= l {
		return
	}
	if l <= nl && nr <= r {
		t.mx[node] += v
		t.lazy[node] += v
		return
	}
	mid := (nl + nr) / 2
	t.addRec(2*node, nl, mid, l, r, v)
	t.addRec(2*node+1, mid, nr, l, r, v)
	t.mx[node] = max(t.mx[2*node], t.mx[2*node+1]) + t.lazy[node]
}

// max returns the largest slot value.
func (t *segTree) max() int { return t.mx[1] }

// argmax returns a slot holding the largest value.
func (t *segTree) argmax() int {
	node, nl, nr := 1, 0, t.n
	want := t.mx[1]
	for nr-nl > 1 {
		want -= t.lazy[node]
		mid := (nl + nr) / 2
		if t.mx[2*node] == want {
			node, nr = 2*node, mid
		} else {
			node, nl = 2*node+1, mid
		}
	}
	return nl
}

// levelBound returns LB and ω(0) for the given units (see the proof above).
func levelBound(units []unit) (lb int64, minBlocks int) {
	if len(units) == 0 {
		return 0, 0
	}
	tl := newTimeline(units)
	t := newSegTree(tl.slots())
	order := sizeOrder(units)
	for k := 0; k < len(order); {
		s := units[order[k]].size
		for ; k < len(order) && units[order[k]].size == s; k++ {
			u := order[k]
			t.add(tl.lo[u], tl.hi[u], 1)
		}
		next := int64(0)
		if k < len(order) {
			next = units[order[k]].size
		}
		lb += int64(t.max()) * (s - next)
	}
	return lb, t.max()
}

// Bounds are the proven bounds of a problem's block layout.
type Bounds struct {
	// LowerBound is the level bound on total block bytes (see bound.go).
	LowerBound int64
	// MinBlocks is the largest number of units alive at once.
	MinBlocks int
	// At is a time where MinBlocks units are alive, and Live their root ids.
	At   int64
	Live []string
}

// ComputeBounds validates p and returns its block-layout bounds.
func ComputeBounds(p *model.Problem) (*Bounds, error) {
	in, err := prepare(p)
	if err != nil {
		return nil, err
	}
	return in.bounds(), nil
}

func (in *instance) bounds() *Bounds {
	b := &Bounds{}
	b.LowerBound, b.MinBlocks = levelBound(in.units)
	if len(in.units) == 0 {
		return b
	}
	tl := newTimeline(in.units)
	t := newSegTree(tl.slots())
	for u := range in.units {
		t.add(tl.lo[u], tl.hi[u], 1)
	}
	s := t.argmax()
	b.At = tl.times[s]
	for u := range in.units {
		if tl.lo[u] <= s && s < tl.hi[u] {
			b.Live = append(b.Live, in.p.Buffers[in.units[u].root].ID)
		}
	}
	return b
}

// capReason explains why maxBlocks blocks cannot hold the problem.
func (b *Bounds) capReason(maxBlocks int) string {
	ids := b.Live
	more := ""
	if len(ids) > 8 {
		ids, more = ids[:8], fmt.Sprintf(" and %d more", len(b.Live)-8)
	}
	return fmt.Sprintf("max blocks %d is below the minimum %d: at time %d, %d buffers are alive at once (%s%s) and each needs its own block",
		maxBlocks, b.MinBlocks, b.At, b.MinBlocks, strings.Join(ids, ", "), more)
}
