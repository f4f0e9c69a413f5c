package sat

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/optalloc/optalloc/model"
)

// cong is a congruence on an item's offset: offset ≡ r (mod m).
type cong struct{ m, r int64 }

// item is what the encoding places: a buffer, or an alias group folded into
// its root. Its offset is the root's; its size (the root's) bounds its top
// under the height. What it occupies is its pieces: the full rectangle
// [start, end) × [0, size) for a plain buffer (pieces nil), otherwise
// exactly the bytes verify.Check sees — gaps honoured, each alias member at
// its delta, members that outlive the root included — with start, end the
// hull of the pieces. So the item model equals the problem: an infeasible
// item model is a proof (unless sizes were rounded up).
type item struct {
	start, end int64
	size       int64
	pieces     []piece // nil: the full rectangle
	pin        int64   // -1 when free
	congs      []cong
	root       int // buffer index of the root
	// limit > 0 caps the item's top (offset + size) below the height; the
	// large-neighbourhood search uses it for the buffers it frees.
	limit int64
}

// instance is a problem folded into items and scaled by the GCD g of every
// size, alignment, alias delta and pin: item sizes, pins and congruences are
// in units of g bytes. Any packing can be pushed down until every offset is
// 0 or a top rounded up to a congruence, so nothing is lost by the scaling.
type instance struct {
	p     *model.Problem
	items []item
	of    []int   // buffer → item
	delta []int64 // buffer → byte delta inside its item's root
	g     int64
	// exact is true when the item model equals the problem (always, unless
	// sizes were rounded up): only then is an infeasible item model a proof
	// about the problem.
	exact bool
	why   string // why the model is not exact
}

// unsupported is a problem the engine does not handle (not a bad input):
// the entry points answer Unknown with it as the reason, so a race goes on.
type unsupported string

func (u unsupported) Error() string { return string(u) }

// impossible is a problem no plan can satisfy whatever the offsets (alias
// members that share bytes while live, neither inside the other): Decide
// answers Infeasible with it as the reason, the other entry points treat it
// like unsupported.
type impossible string

func (u impossible) Error() string { return string(u) }

// declined returns the reason when err is unsupported or impossible.
func declined(err error) (string, bool) {
	switch u := err.(type) {
	case unsupported:
		return string(u), true
	case impossible:
		return string(u), true
	}
	return "", false
}

// newInstance folds and scales a validated problem. All buffers go to pool
// 0; a buffer whose pool list excludes pool 0 is an error. With roundUp > 1
// every item size is rounded up to a multiple of roundUp bytes: a
// restriction (plans stay valid, refutations prove nothing).
func newInstance(p *model.Problem, roundUp int64) (*instance, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	pools := p.PoolList()
	pool0 := pools[0]
	groups, of, delta := p.AliasGroups()
	in := &instance{p: p, of: of, delta: delta, exact: true}
	for i := range p.Buffers {
		b := &p.Buffers[i]
		if len(b.Pools) > 0 && !slices.Contains(b.Pools, pool0.Name) {
			return nil, unsupported(fmt.Sprintf("%s: buffer %q may not live in pool %q; the SAT engine plans a single pool", p.Where(i), b.ID, pool0.Name))
		}
	}
	for _, gr := range groups {
		b := &p.Buffers[gr.Root]
		it := item{start: b.Start, end: b.End, size: b.Size, pin: -1, root: gr.Root}
		if b.Pin != nil {
			it.pin = *b.Pin
		}
		// Each member's offset (root + delta) honours its own and the
		// pool's alignment: congruences on the root's offset.
		for _, i := range append([]int{gr.Root}, gr.Members...) {
			for _, a := range []int64{p.Buffers[i].Alignment(), pool0.Alignment()} {
				if a > 1 {
					it.congs = append(it.congs, cong{a, ((-delta[i])%a + a) % a})
				}
			}
		}
		in.items = append(in.items, it)
	}
	var index map[string]int
	// Pieces: what each item occupies, relative to its offset (bytes).
	for k := range in.items {
		it := &in.items[k]
		ms := groups[k].Members
		if len(ms) == 0 && len(p.Buffers[it.root].Gaps) == 0 {
			continue
		}
		if len(ms) > 0 && index == nil {
			index = p.Index()
		}
		deltas := make([]int64, len(ms))
		for a, m := range ms {
			deltas[a] = in.delta[m]
		}
		pcs, bad := groupPieces(p, it.root, ms, deltas, index)
		if bad != "" {
			return nil, impossible(bad)
		}
		it.pieces = pcs
		if it.pieces == nil {
			it.pieces = []piece{}
		}
		it.normalise()
	}
	if roundUp > 1 {
		for i := range in.items {
			it := &in.items[i]
			bad := it.pin >= 0 && it.pin%roundUp != 0
			for _, c := range it.congs {
				bad = bad || roundUp%c.m != 0 || c.r != 0
			}
			if bad {
				return nil, fmt.Errorf("%s: cannot round sizes up to %d bytes: buffer %q is pinned or aligned incompatibly",
					p.Where(it.root), roundUp, p.Buffers[it.root].ID)
			}
			it.size = (it.size + roundUp - 1) / roundUp * roundUp
			if it.pieces != nil { // rounded outwards: still a restriction
				rs := make([]piece, len(it.pieces))
				for a, pc := range it.pieces {
					rs[a] = piece{pc.start, pc.end, pc.lo / roundUp * roundUp, (pc.hi + roundUp - 1) / roundUp * roundUp}
				}
				it.pieces = unionPieces(rs)
				it.normalise()
			}
			// Offsets on multiples of roundUp satisfy the old congruences.
			it.congs = nil
			if it.pin < 0 {
				it.congs = []cong{{roundUp, 0}}
			}
		}
		in.exact, in.why = false, fmt.Sprintf("sizes rounded up to %d bytes", roundUp)
	}
	// Scale.
	var g int64
	for i := range in.items {
		it := &in.items[i]
		g = model.GCD(g, it.size)
		if it.pin > 0 {
			g = model.GCD(g, it.pin)
		}
		for _, c := range it.congs {
			g = model.GCD(model.GCD(g, c.m), c.r)
		}
		for _, pc := range it.pieces {
			g = model.GCD(model.GCD(g, pc.lo), pc.hi)
		}
	}
	if g == 0 {
		g = 1
	}
	in.g = g
	for i := range in.items {
		it := &in.items[i]
		it.size /= g
		for a := range it.pieces {
			it.pieces[a].lo /= g
			it.pieces[a].hi /= g
		}
		if it.pin > 0 {
			it.pin /= g
		}
		k := 0
		for _, c := range it.congs {
			c.m, c.r = c.m/g, c.r/g
			if c.m > 1 && !slices.Contains(it.congs[:k], c) {
				it.congs[k] = c
				k++
			}
		}
		it.congs = it.congs[:k]
	}
	return in, nil
}

// admissible reports whether v satisfies the item's pin and congruences.
func (it *item) admissible(v int64) bool {
	if it.pin >= 0 && v != it.pin {
		return false
	}
	// A pinned root still owes its aligned alias members their congruences.
	for _, c := range it.congs {
		if v%c.m != c.r {
			return false
		}
	}
	return true
}

// lowest returns the smallest admissible offset ≥ v, or -1 if none is below
// limit.
func (it *item) lowest(v, limit int64) int64 {
	if it.pin >= 0 {
		if it.pin >= v && it.pin <= limit && it.admissible(it.pin) {
			return it.pin
		}
		return -1
	}
	for ; v <= limit; v++ {
		if it.admissible(v) {
			return v
		}
	}
	return -1
}

// floorHeight is the smallest height at which every item has an
// admissible offset: its pin or lowest admissible offset plus its size.
// It is a lower bound (units), like max-live.
func floorHeight(items []item) int64 {
	var f int64
	for i := range items {
		it := &items[i]
		if it.size == 0 {
			continue
		}
		if it.pin >= 0 {
			f = max(f, it.pin+it.size)
		} else {
			f = max(f, it.lowest(0, lcmAll(it))+it.size)
		}
	}
	return f
}

// conflicts reports whether the items may share bytes at some offsets:
// some pieces of theirs share a time.
func (a *item) conflicts(b *item) bool {
	if a.pieces == nil && b.pieces == nil {
		return a.size > 0 && b.size > 0 && a.start < b.end && b.start < a.end
	}
	var buf [4]span
	return len(forbidden(a, b, buf[:0])) > 0
}

// toPlan turns item offsets (units) into a plan of the problem.
func (in *instance) toPlan(off []int64) *model.Plan {
	pl := model.NewPlan(in.p)
	for i := range pl.Placements {
		pl.Placements[i].Offset = off[in.of[i]]*in.g + in.delta[i]
	}
	return pl
}

// checkItems verifies a packing of the items: admissible offsets, tops
// within h, no two conflicting items overlapping. It guards the decoder.
func checkItems(items []item, off []int64, h int64) error {
	for i := range items {
		it := &items[i]
		if off[i] < 0 || !it.admissible(off[i]) {
			return fmt.Errorf("encode: internal error: item %d at %d is not admissible", i, off[i])
		}
		if it.size > 0 && off[i]+it.size > h {
			return fmt.Errorf("encode: internal error: item %d ends at %d above the height %d", i, off[i]+it.size, h)
		}
	}
	// A sweep over time (start, end are the hull of an item's pieces):
	// only items alive together are compared, so a trace of 60 000 buffers
	// costs its conflicting pairs, not all 1.8 billion pairs.
	order := seq(len(items))
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(items[a].start, items[b].start) })
	var buf []span
	var active []int
	for _, i := range order {
		it := &items[i]
		active = slices.DeleteFunc(active, func(j int) bool { return items[j].end <= it.start })
		for _, j := range active {
			if overlapAt(&items[j], it, off[j], off[i], &buf) {
				return fmt.Errorf("encode: internal error: items %d and %d overlap", min(i, j), max(i, j))
			}
		}
		active = append(active, i)
	}
	return nil
}
