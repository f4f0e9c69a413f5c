package encode

import (
	"fmt"
	"slices"

	"github.com/optalloc/optalloc/model"
)

// cong is a congruence on an item's offset: offset ≡ r (mod m).
type cong struct{ m, r int64 }

// item is what the encoding places: a buffer, or an alias group folded into
// its root. A group spans the hull of its members' lifetimes with the root's
// bytes. Gaps are ignored (the whole rectangle is occupied). Both are
// conservative: a plan of the items is a valid plan of the buffers, but an
// infeasible item model proves nothing unless the model is exact.
type item struct {
	start, end int64
	size       int64
	pin        int64 // -1 when free
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
	// exact is true when the item model equals the problem (no gaps, every
	// alias member lives within its root's lifetime): only then is an
	// infeasible item model a proof about the problem.
	exact bool
	why   string // why the model is not exact
}

func gcd(a, b int64) int64 {
	if a < 0 {
		a = -a
	}
	if b < 0 {
		b = -b
	}
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// unsupported is a problem the engine does not handle (not a bad input):
// the entry points answer Unknown with it as the reason, so a race goes on.
type unsupported string

func (u unsupported) Error() string { return string(u) }

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
	n := len(p.Buffers)
	in := &instance{p: p, of: make([]int, n), delta: make([]int64, n), exact: true}
	pos := make([]int, n)
	var index map[string]int
	for i := range p.Buffers {
		b := &p.Buffers[i]
		if len(b.Pools) > 0 && !slices.Contains(b.Pools, pool0.Name) {
			return nil, unsupported(fmt.Sprintf("%s: buffer %q may not live in pool %q; the SAT engine plans a single pool", p.Where(i), b.ID, pool0.Name))
		}
		if len(b.Gaps) > 0 && in.exact {
			in.exact, in.why = false, fmt.Sprintf("buffer %q has gaps (placed as a whole rectangle)", b.ID)
		}
		pos[i] = -1
		if b.Alias != nil {
			continue
		}
		it := item{start: b.Start, end: b.End, size: b.Size, pin: -1, root: i}
		if b.Pin != nil {
			it.pin = *b.Pin
		}
		if a := b.Alignment(); a > 1 {
			it.congs = append(it.congs, cong{a, 0})
		}
		if a := pool0.Alignment(); a > 1 {
			it.congs = append(it.congs, cong{a, 0})
		}
		pos[i] = len(in.items)
		in.of[i] = len(in.items)
		in.items = append(in.items, it)
	}
	for i := range p.Buffers {
		b := &p.Buffers[i]
		if b.Alias == nil {
			continue
		}
		if index == nil {
			index = p.Index()
		}
		r, d := p.Root(i, index)
		in.of[i], in.delta[i] = pos[r], d
		it := &in.items[pos[r]]
		if b.Size > 0 && (b.Start < it.start || b.End > it.end) && in.exact {
			in.exact, in.why = false, fmt.Sprintf("alias %q outlives its root %q (the group is placed as one rectangle)", b.ID, p.Buffers[r].ID)
		}
		if b.Size > 0 {
			it.start, it.end = min(it.start, b.Start), max(it.end, b.End)
		}
		for _, a := range []int64{b.Alignment(), pool0.Alignment()} {
			if a > 1 {
				it.congs = append(it.congs, cong{a, ((-d)%a + a) % a})
			}
		}
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
		g = gcd(g, it.size)
		if it.pin > 0 {
			g = gcd(g, it.pin)
		}
		for _, c := range it.congs {
			g = gcd(gcd(g, c.m), c.r)
		}
	}
	if g == 0 {
		g = 1
	}
	in.g = g
	for i := range in.items {
		it := &in.items[i]
		it.size /= g
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
	if it.pin >= 0 {
		return v == it.pin
	}
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
		if it.pin >= v && it.pin <= limit {
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

func (a *item) conflicts(b *item) bool {
	return a.size > 0 && b.size > 0 && a.start < b.end && b.start < a.end
}

// section is the set of items live in one elementary time slot, with its load.
type section struct {
	start, end int64
	items      []int
	load       int64
}

// sections returns the elementary slots of the items (loads in units), the
// largest load first being not required: they come in time order.
func sections(items []item, sel []int) []section {
	type ev struct {
		t   int64
		i   int
		add bool
	}
	evs := make([]ev, 0, 2*len(sel))
	for _, i := range sel {
		if items[i].size > 0 {
			evs = append(evs, ev{items[i].start, i, true}, ev{items[i].end, i, false})
		}
	}
	slices.SortFunc(evs, func(a, b ev) int {
		if a.t != b.t {
			if a.t < b.t {
				return -1
			}
			return 1
		}
		return 0
	})
	live := map[int]bool{}
	var load int64
	var out []section
	for k := 0; k < len(evs); {
		t := evs[k].t
		for ; k < len(evs) && evs[k].t == t; k++ {
			if evs[k].add {
				live[evs[k].i] = true
				load += items[evs[k].i].size
			} else {
				delete(live, evs[k].i)
				load -= items[evs[k].i].size
			}
		}
		if k < len(evs) && len(live) > 0 {
			s := section{start: t, end: evs[k].t, load: load}
			for i := range live {
				s.items = append(s.items, i)
			}
			slices.Sort(s.items)
			out = append(out, s)
		}
	}
	return out
}

// maxLive returns the largest section load of the selected items (units).
func maxLive(items []item, sel []int) int64 {
	var m int64
	for _, s := range sections(items, sel) {
		m = max(m, s.load)
	}
	return m
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
	for i := range items {
		for j := i + 1; j < len(items); j++ {
			if items[i].conflicts(&items[j]) && off[i] < off[j]+items[j].size && off[j] < off[i]+items[i].size {
				return fmt.Errorf("encode: internal error: items %d and %d overlap", i, j)
			}
		}
	}
	return nil
}
