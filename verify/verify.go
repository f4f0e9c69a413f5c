package verify

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/optalloc/optalloc/model"
)

// Kind enumerates what can be wrong with a plan.
type Kind int

// The violation kinds.
const (
	MissingBuffer Kind = iota // no placement for a buffer
	Overlap                   // two buffers live at the same time share bytes
	Misaligned                // offset not a multiple of the buffer's or pool's alignment
	PinMoved                  // a pinned buffer is not at its pin
	OutOfCapacity             // a buffer ends beyond its pool's capacity (or has a negative offset)
	AliasBroken               // an aliased buffer is not at parent offset + delta in the parent's pool
	WrongPool                 // pool unknown or not allowed for the buffer
	ElasticRange              // granted size outside [min, max] (or not the size of a fixed buffer)
	GapMisuse                 // a gap outside the lifetime or a window outside the granted bytes
	TooMany                   // the list was cut: more violations exist
	WrongPeak                 // the plan states a peak (or pool peak) it does not have
)

var kindNames = [...]string{"missing-buffer", "overlap", "misaligned", "pin-moved", "out-of-capacity",
	"alias-broken", "wrong-pool", "elastic-range", "gap-misuse", "too-many", "wrong-peak"}

func (k Kind) String() string {
	if k >= 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", int(k))
}

// Violation is one thing wrong with a plan, naming the buffers involved.
type Violation struct {
	Kind    Kind     `json:"-"`
	Name    string   `json:"kind"`
	Buffers []string `json:"buffers"`
	Msg     string   `json:"message"`
}

func (v Violation) String() string { return v.Kind.String() + ": " + v.Msg }

// MaxViolations bounds the list Check returns; past it a TooMany violation
// closes the list.
const MaxViolations = 10000

type checker struct {
	p     *model.Problem
	pl    *model.Plan
	out   []Violation
	full  bool
	index map[string]int // buffer ID -> first buffer with it; see lookup
	// tin and tout number the alias forest (see numberAliasTree).
	tin, tout []int32
}

// lookup returns the first buffer with ID id. The index is built on first
// use: only aliases need it, and on a million buffers it costs more than
// the rest of a check of a plan without them.
func (c *checker) lookup(id string) (int, bool) {
	if c.index == nil {
		c.index = make(map[string]int, len(c.p.Buffers))
		for i := range c.p.Buffers {
			if _, dup := c.index[c.p.Buffers[i].ID]; !dup {
				c.index[c.p.Buffers[i].ID] = i
			}
		}
	}
	i, ok := c.index[id]
	return i, ok
}

func (c *checker) add(k Kind, msg string, ids ...string) {
	if c.full {
		return
	}
	if len(c.out) == MaxViolations {
		c.out = append(c.out, Violation{Kind: TooMany, Name: TooMany.String(), Msg: "more violations exist; the list stops here"})
		c.full = true
		return
	}
	c.out = append(c.out, Violation{Kind: k, Name: k.String(), Buffers: ids, Msg: msg})
}

// Check returns every violation of plan pl for problem p (at most
// MaxViolations, then one TooMany); an empty result means the plan is valid.
// It shares no code with the planners: it expands every buffer into its own
// time × byte rectangles (gaps included) and sweeps time with an interval
// tree per pool, so it runs in O(n log n + k) for k overlapping pairs; a
// cheaper sweep first checks that no two rectangles meet at all, and when
// none does (a valid plan without aliases) the interval-tree sweep, which
// would report nothing, is skipped.
// It never panics, even on a problem that did not pass Validate.
func Check(p *model.Problem, pl *model.Plan) []Violation {
	c := &checker{p: p, pl: pl}
	if pl == nil || len(pl.Placements) != len(p.Buffers) {
		n := 0
		if pl != nil {
			n = len(pl.Placements)
		}
		c.add(MissingBuffer, fmt.Sprintf("the plan has %d placements for %d buffers", n, len(p.Buffers)))
		return c.out
	}
	c.checkOverlaps(c.checkBuffers())
	c.checkStatedPeaks()
	return c.out
}

// checkStatedPeaks compares the peaks a plan file states with the peaks of
// its placements: max(offset + granted size) over the buffers of non-zero
// size in each pool, computed here.
func (c *checker) checkStatedPeaks() {
	if c.pl.StatedPeak == nil && c.pl.StatedPoolPeaks == nil {
		return
	}
	pools := c.p.PoolList()
	peaks := make([]int64, len(pools))
	for _, q := range c.pl.Placements {
		if q.Pool < 0 || q.Pool >= len(pools) || q.Size <= 0 || q.Offset < 0 || q.Offset > math.MaxInt64-q.Size {
			continue // reported by checkBuffers
		}
		peaks[q.Pool] = max(peaks[q.Pool], q.Offset+q.Size)
	}
	if c.pl.StatedPeak != nil {
		peak := int64(0)
		for _, v := range peaks {
			peak = max(peak, v)
		}
		if *c.pl.StatedPeak != peak {
			c.add(WrongPeak, fmt.Sprintf("the plan states peak %d; its placements reach %d", *c.pl.StatedPeak, peak))
		}
	}
	names := make([]string, 0, len(c.pl.StatedPoolPeaks))
	for name := range c.pl.StatedPoolPeaks {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		stated := c.pl.StatedPoolPeaks[name]
		k := slices.IndexFunc(pools, func(q model.Pool) bool { return q.Name == name })
		switch {
		case k < 0:
			c.add(WrongPeak, fmt.Sprintf("the plan states a peak for pool %q, which the problem does not have", name))
		case stated != peaks[k]:
			c.add(WrongPeak, fmt.Sprintf("the plan states peak %d for pool %q; its placements reach %d", stated, name, peaks[k]))
		}
	}
}

// checkBuffers checks each buffer on its own and returns the rectangles
// of those that passed (occupancy), in buffer order; then the aliases of
// those. One pass over the buffers does both: on a million, each pass
// reads 170 MB.
func (c *checker) checkBuffers() []occ {
	pools := c.p.Pools
	if len(pools) == 0 {
		pools = []model.Pool{{Name: model.DefaultPool}}
	}
	ok := make([]bool, len(c.p.Buffers))
	rects := make([]occ, 0, len(c.p.Buffers)) // one each without gaps
	aliased := false
	for i := range c.p.Buffers {
		b, q := &c.p.Buffers[i], c.pl.Placements[i]
		aliased = aliased || b.Alias != nil
		if q.Offset == model.MissingOffset {
			c.add(MissingBuffer, fmt.Sprintf("buffer %q has no placement", b.ID), b.ID)
			continue
		}
		if q.Pool < 0 || q.Pool >= len(pools) {
			c.add(WrongPool, fmt.Sprintf("buffer %q is in pool #%d; there are %d pools", b.ID, q.Pool, len(pools)), b.ID)
			continue
		}
		pool := &pools[q.Pool]
		if len(b.Pools) > 0 && !slices.Contains(b.Pools, pool.Name) {
			c.add(WrongPool, fmt.Sprintf("buffer %q is in pool %q; allowed: %s", b.ID, pool.Name, strings.Join(b.Pools, ", ")), b.ID)
		}
		if b.MaxSize > b.Size {
			if q.Size < b.Size || q.Size > b.MaxSize {
				c.add(ElasticRange, fmt.Sprintf("buffer %q is granted %d bytes; allowed %d..%d", b.ID, q.Size, b.Size, b.MaxSize), b.ID)
				continue
			}
		} else if q.Size != b.Size {
			c.add(ElasticRange, fmt.Sprintf("buffer %q is granted %d bytes; its size is %d", b.ID, q.Size, b.Size), b.ID)
			continue
		}
		if q.Offset < 0 || q.Size < 0 || q.Offset > math.MaxInt64-q.Size {
			c.add(OutOfCapacity, fmt.Sprintf("buffer %q has offset %d and size %d: outside any memory", b.ID, q.Offset, q.Size), b.ID)
			continue
		}
		if pool.Capacity > 0 && q.Size > 0 && q.Offset+q.Size > pool.Capacity {
			c.add(OutOfCapacity, fmt.Sprintf("buffer %q occupies [%d, %d), beyond the capacity %d of pool %q", b.ID, q.Offset, q.Offset+q.Size, pool.Capacity, pool.Name), b.ID)
		}
		for _, a := range []int64{b.Align, pool.Align} {
			if a > 1 && q.Offset%a != 0 {
				c.add(Misaligned, fmt.Sprintf("buffer %q at offset %d is not a multiple of %d", b.ID, q.Offset, a), b.ID)
			}
		}
		if b.Pin != nil && q.Offset != *b.Pin {
			c.add(PinMoved, fmt.Sprintf("buffer %q is pinned at %d but placed at %d", b.ID, *b.Pin, q.Offset), b.ID)
		}
		if !c.checkGaps(b, q) {
			continue
		}
		ok[i] = true
		rects = c.occupancy(i, rects)
	}
	if aliased {
		for i := range c.p.Buffers {
			if ok[i] {
				c.checkAlias(i)
			}
		}
	}
	return rects
}

func (c *checker) checkGaps(b *model.Buffer, q model.Placement) bool {
	good := true
	t := b.Start
	for _, g := range b.Gaps {
		if g.Start < t || g.End <= g.Start || g.End > b.End {
			c.add(GapMisuse, fmt.Sprintf("buffer %q: gap [%d, %d) is not inside the lifetime [%d, %d) after the previous gap", b.ID, g.Start, g.End, b.Start, b.End), b.ID)
			good = false
		}
		if g.Window && (g.Lo < 0 || g.Hi < g.Lo || g.Hi > q.Size) {
			c.add(GapMisuse, fmt.Sprintf("buffer %q: gap window [%d, %d) is outside its %d granted bytes", b.ID, g.Lo, g.Hi, q.Size), b.ID)
			good = false
		}
		t = g.End
	}
	return good
}

func (c *checker) checkAlias(i int) {
	b := &c.p.Buffers[i]
	if b.Alias == nil {
		return
	}
	j, found := c.lookup(b.Alias.Parent)
	if !found || j == i {
		c.add(AliasBroken, fmt.Sprintf("buffer %q aliases unknown parent %q", b.ID, b.Alias.Parent), b.ID)
		return
	}
	q, r := c.pl.Placements[i], c.pl.Placements[j]
	if q.Pool != r.Pool || q.Offset != r.Offset+b.Alias.Delta {
		c.add(AliasBroken, fmt.Sprintf("buffer %q must sit at offset %d+%d of parent %q (pool #%d) but is at %d (pool #%d)",
			b.ID, r.Offset, b.Alias.Delta, b.Alias.Parent, r.Pool, q.Offset, q.Pool), b.ID, b.Alias.Parent)
	}
	if b.Alias.Delta < 0 || q.Size > r.Size-b.Alias.Delta {
		c.add(AliasBroken, fmt.Sprintf("buffer %q (%d bytes at delta %d) does not fit inside parent %q (%d bytes)",
			b.ID, q.Size, b.Alias.Delta, b.Alias.Parent, r.Size), b.ID, b.Alias.Parent)
	}
}

// related reports whether one of the buffers is an alias ancestor of the
// other: such buffers share bytes by design.
func (c *checker) related(a, b int) bool {
	if c.tin == nil {
		c.numberAliasTree()
	}
	return c.ancestor(a, b) || c.ancestor(b, a)
}

func (c *checker) ancestor(anc, x int) bool {
	return c.tin[anc] >= 0 && c.tin[x] >= 0 && c.tin[anc] <= c.tin[x] && c.tout[x] <= c.tout[anc]
}

// numberAliasTree numbers the alias forest in depth-first order (entry and
// exit times), so that "is a an ancestor of b" takes constant time. Buffers
// on an alias cycle or under an unknown parent (an unvalidated problem) are
// not reached and count as related to nothing.
func (c *checker) numberAliasTree() {
	n := len(c.p.Buffers)
	c.tin, c.tout = make([]int32, n), make([]int32, n)
	children := make([][]int32, n)
	var roots []int32
	for i := range c.p.Buffers {
		c.tin[i] = -1
		a := c.p.Buffers[i].Alias
		if a == nil {
			roots = append(roots, int32(i))
			continue
		}
		if j, ok := c.lookup(a.Parent); ok && j != i {
			children[j] = append(children[j], int32(i))
		}
	}
	var clock int32
	type frame struct{ node, next int32 }
	var stack []frame
	for _, r := range roots {
		c.tin[r] = clock
		clock++
		stack = append(stack[:0], frame{r, 0})
		for len(stack) > 0 {
			f := &stack[len(stack)-1]
			if int(f.next) < len(children[f.node]) {
				ch := children[f.node][f.next]
				f.next++
				if c.tin[ch] < 0 {
					c.tin[ch] = clock
					clock++
					stack = append(stack, frame{ch, 0})
				}
				continue
			}
			c.tout[f.node] = clock
			clock++
			stack = stack[:len(stack)-1]
		}
	}
}
