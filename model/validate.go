package model

import (
	"fmt"
	"math"
	"sort"
)

// InputError is a problem with an input: a file (when known), a 1-based line
// (when known) and what is wrong. Its text is the one line the CLI prints.
type InputError struct {
	File string
	Line int
	Msg  string
}

func (e *InputError) Error() string {
	switch {
	case e.File != "" && e.Line > 0:
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	case e.File != "":
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	default:
		return e.Msg
	}
}

func (p *Problem) errorf(i int, format string, args ...any) error {
	b := &p.Buffers[i]
	return &InputError{File: p.Name, Line: b.Line,
		Msg: fmt.Sprintf("buffer %q: ", b.ID) + fmt.Sprintf(format, args...)}
}

// addOK adds non-negative a and b and reports whether the sum fits in int64.
func addOK(a, b int64) (int64, bool) {
	if a > math.MaxInt64-b {
		return 0, false
	}
	return a + b, true
}

// MaxAlign is the largest alignment accepted (2^40 bytes): it keeps the
// least common multiples of alignments that planners compute in int64.
const MaxAlign = 1 << 40

// Validate checks that the problem is well formed and returns the first
// problem found as an *InputError naming the buffer (and file:line when the
// buffer was read from a file). It rejects negative sizes, empty or inverted
// lifetimes, duplicate ids, unknown or cyclic alias parents, aliases that do
// not fit inside their parent, negative alignments, pins that are negative or
// not a multiple of the alignment, unknown pools, bad gaps, elastic ranges
// with MaxSize < Size, and values whose sums overflow int64.
func (p *Problem) Validate() error {
	pools := p.PoolList()
	poolNames := make(map[string]bool, len(pools))
	for _, q := range pools {
		if q.Name == "" {
			return &InputError{File: p.Name, Msg: "a pool has no name"}
		}
		if poolNames[q.Name] {
			return &InputError{File: p.Name, Msg: fmt.Sprintf("pool %q is defined twice", q.Name)}
		}
		poolNames[q.Name] = true
		if q.Capacity < 0 {
			return &InputError{File: p.Name, Msg: fmt.Sprintf("pool %q: capacity %d is negative", q.Name, q.Capacity)}
		}
		if q.Align < 0 {
			return &InputError{File: p.Name, Msg: fmt.Sprintf("pool %q: alignment %d is negative", q.Name, q.Align)}
		}
		if q.Align > MaxAlign {
			return &InputError{File: p.Name, Msg: fmt.Sprintf("pool %q: alignment %d is above 2^40 (1 TiB)", q.Name, q.Align)}
		}
	}
	index := make(map[string]int, len(p.Buffers))
	var total int64
	for i := range p.Buffers {
		b := &p.Buffers[i]
		if b.ID == "" {
			return p.errorf(i, "empty id")
		}
		if j, dup := index[b.ID]; dup {
			if l := p.Buffers[j].Line; l > 0 {
				return p.errorf(i, "duplicate id (first defined on line %d)", l)
			}
			return p.errorf(i, "duplicate id")
		}
		index[b.ID] = i
		if b.Size < 0 {
			return p.errorf(i, "size %d is negative", b.Size)
		}
		if b.End <= b.Start {
			return p.errorf(i, "lifetime [%d, %d) is empty: end must be after start", b.Start, b.End)
		}
		if b.Start < 0 {
			return p.errorf(i, "start %d is negative", b.Start)
		}
		if b.Align < 0 {
			return p.errorf(i, "alignment %d is negative", b.Align)
		}
		if b.Align > MaxAlign {
			return p.errorf(i, "alignment %d is above 2^40 (1 TiB); no memory needs that", b.Align)
		}
		for k := range p.Pools {
			if q := &p.Pools[k]; q.Align > 1 && b.Align > 1 && b.Align/GCD(b.Align, q.Align) > MaxAlign/q.Align {
				return p.errorf(i, "alignment %d and pool %q's alignment %d have a common multiple above 2^40 (1 TiB)", b.Align, q.Name, q.Align)
			}
		}
		if b.MaxSize != 0 && b.MaxSize < b.Size {
			return p.errorf(i, "max size %d is below the minimum size %d", b.MaxSize, b.Size)
		}
		top := max(b.Size, b.MaxSize)
		var ok bool
		if total, ok = addOK(total, top); !ok {
			return p.errorf(i, "the sizes of the buffers up to this one add up to more than 2^63-1 bytes")
		}
		if b.Pin != nil {
			if *b.Pin < 0 {
				return p.errorf(i, "pinned offset %d is negative", *b.Pin)
			}
			if *b.Pin%b.Alignment() != 0 {
				return p.errorf(i, "pinned offset %d is not a multiple of the alignment %d", *b.Pin, b.Alignment())
			}
			// A pinned buffer lives in its first allowed pool (the only
			// pool of a single-pool problem), whose alignment applies too.
			var q *Pool
			if pools := p.PoolList(); len(b.Pools) > 0 {
				if k := p.PoolIndex(b.Pools[0]); k >= 0 {
					q = &pools[k]
				}
			} else if len(pools) == 1 {
				q = &pools[0]
			}
			if q != nil && *b.Pin%b.AlignmentIn(q) != 0 {
				return p.errorf(i, "pinned offset %d is not a multiple of %d, the alignment of pool %q", *b.Pin, q.Alignment(), q.Name)
			}
			if _, ok := addOK(*b.Pin, top); !ok {
				return p.errorf(i, "pinned offset %d plus size %d overflows int64", *b.Pin, top)
			}
		}
		if b.Hint != nil && *b.Hint < 0 && *b.Hint != -1 {
			return p.errorf(i, "hint %d is negative", *b.Hint)
		}
		for _, name := range b.Pools {
			if !poolNames[name] {
				return p.errorf(i, "unknown pool %q", name)
			}
		}
		if b.Kind != "" && !validKind(b.Kind) {
			return p.errorf(i, "unknown kind %q (want activation, scratch, input, output or weight)", b.Kind)
		}
		if b.Weight < 0 || math.IsNaN(b.Weight) || math.IsInf(b.Weight, 0) {
			return p.errorf(i, "weight %v must be a finite number ≥ 0", b.Weight)
		}
		if err := p.validateGaps(i); err != nil {
			return err
		}
	}
	return p.validateAliases(index)
}

func validKind(k Kind) bool {
	for _, v := range Kinds {
		if v == k {
			return true
		}
	}
	return false
}

func (p *Problem) validateGaps(i int) error {
	b := &p.Buffers[i]
	prevEnd := b.Start
	for _, g := range b.Gaps {
		if g.End <= g.Start {
			return p.errorf(i, "gap [%d, %d) is empty", g.Start, g.End)
		}
		if g.Start < prevEnd || g.End > b.End {
			return p.errorf(i, "gap [%d, %d) must lie inside the lifetime [%d, %d) and after the previous gap", g.Start, g.End, b.Start, b.End)
		}
		prevEnd = g.End
		if g.Window && (g.Lo < 0 || g.Hi < g.Lo || g.Hi > b.Size) {
			return p.errorf(i, "gap window [%d, %d) must lie inside the buffer's %d bytes", g.Lo, g.Hi, b.Size)
		}
	}
	return nil
}

func (p *Problem) validateAliases(index map[string]int) error {
	// state: 0 unvisited, 1 on the current chain, 2 done.
	state := make([]uint8, len(p.Buffers))
	for i := range p.Buffers {
		for j := i; state[j] == 0; {
			state[j] = 1
			a := p.Buffers[j].Alias
			if a == nil {
				break
			}
			k, ok := index[a.Parent]
			if !ok {
				return p.errorf(j, "alias parent %q does not exist", a.Parent)
			}
			if state[k] == 1 {
				return p.errorf(j, "alias chain through %q is a cycle", a.Parent)
			}
			c, q := &p.Buffers[j], &p.Buffers[k]
			// Written so that a huge Delta cannot wrap around int64.
			if a.Delta < 0 || a.Delta > q.Size-max(c.Size, c.MaxSize) {
				return p.errorf(j, "alias at delta %d with size %d does not fit inside parent %q of size %d", a.Delta, c.Size, q.ID, q.Size)
			}
			if c.Pin != nil {
				return p.errorf(j, "an aliased buffer cannot be pinned; pin its parent %q", a.Parent)
			}
			if c.Elastic() || q.Elastic() {
				return p.errorf(j, "aliases and elastic sizes cannot be combined")
			}
			j = k
		}
		for j := i; state[j] == 1; {
			state[j] = 2
			if a := p.Buffers[j].Alias; a != nil {
				j = index[a.Parent]
			}
		}
	}
	return p.validateAliasOverlaps(index)
}

// validateAliasOverlaps rejects two members of one alias group, neither
// inside the other, that use the same bytes of the root while both are live:
// no plan could keep their contents apart. (Members with gaps are not
// compared: their gaps may keep them apart.)
func (p *Problem) validateAliasOverlaps(index map[string]int) error {
	type member struct {
		i     int
		delta int64
	}
	groups := map[int][]member{}
	pools := p.PoolList()
	for i := range p.Buffers {
		if p.Buffers[i].Alias != nil {
			r, d := p.Root(i, index)
			groups[r] = append(groups[r], member{i, d})
			// Root and member both sit on the pool's grid.
			if a := pools[0].Alignment(); len(pools) == 1 && d%a != 0 {
				return p.errorf(i, "alias delta %d inside %q is not a multiple of %d, the alignment of pool %q: no offset fits both",
					d, p.Buffers[r].ID, a, pools[0].Name)
			}
		}
	}
	roots := make([]int, 0, len(groups))
	for r := range groups {
		roots = append(roots, r)
	}
	sort.Ints(roots)
	for _, r := range roots {
		ms := groups[r]
		sort.Slice(ms, func(a, b int) bool { return ms[a].delta < ms[b].delta })
		for a := range ms {
			x := &p.Buffers[ms[a].i]
			for b := a + 1; b < len(ms) && ms[b].delta < ms[a].delta+x.Size; b++ {
				y := &p.Buffers[ms[b].i]
				if x.Size == 0 || y.Size == 0 || len(x.Gaps) > 0 || len(y.Gaps) > 0 ||
					x.End <= y.Start || y.End <= x.Start ||
					p.IsAncestor(ms[a].i, ms[b].i, index) || p.IsAncestor(ms[b].i, ms[a].i, index) {
					continue
				}
				i, j := ms[a].i, ms[b].i
				if p.Buffers[j].Line < p.Buffers[i].Line {
					i, j = j, i
				}
				return p.errorf(j, "shares bytes of %q with %q while both are live (neither is inside the other)",
					p.Buffers[r].ID, p.Buffers[i].ID)
			}
		}
	}
	return nil
}

// IsAncestor reports whether buffer anc is on the alias chain above x (the
// problem must be valid; index maps ids to positions, see Index).
func (p *Problem) IsAncestor(anc, x int, index map[string]int) bool {
	for p.Buffers[x].Alias != nil {
		x = index[p.Buffers[x].Alias.Parent]
		if x == anc {
			return true
		}
	}
	return false
}

// Root returns the index of the alias root of buffer i (i itself when it has
// no alias) and the byte delta of i inside that root. The problem must be
// valid.
func (p *Problem) Root(i int, index map[string]int) (root int, delta int64) {
	for p.Buffers[i].Alias != nil {
		delta += p.Buffers[i].Alias.Delta
		i = index[p.Buffers[i].Alias.Parent]
	}
	return i, delta
}
