package model

import (
	"fmt"
	"hash/maphash"
	"math"
	"strings"
)

// InputError is a problem with an input: a file (when known), a 1-based line
// (when known) and what is wrong. Its text is the one line the CLI prints.
type InputError struct {
	File string
	Line int
	Msg  string
}

func (e *InputError) Error() string {
	msg := e.Msg
	if len(msg) > maxMsg {
		// A safety net: messages quote input with Quote, but one line
		// must stay one readable line whatever the input.
		msg = msg[:maxMsg] + fmt.Sprintf("… (%d bytes cut)", len(msg)-maxMsg)
	}
	switch {
	case e.File != "" && e.Line > 0:
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, msg)
	case e.File != "":
		return fmt.Sprintf("%s: %s", e.File, msg)
	default:
		return msg
	}
}

// maxMsg is the longest message an InputError prints.
const maxMsg = 400

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
	dupAt, dupOf := firstDuplicate(p.Buffers)
	aliases := false
	var total int64
	for i := range p.Buffers {
		b := &p.Buffers[i]
		if b.ID == "" {
			return p.errorf(i, "empty id")
		}
		if i == dupAt {
			if l := p.Buffers[dupOf].Line; l > 0 {
				return p.errorf(i, "duplicate id (first defined on line %d)", l)
			}
			return p.errorf(i, "duplicate id")
		}
		aliases = aliases || b.Alias != nil
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
			names := make([]string, len(Kinds))
			for k, kind := range Kinds {
				names[k] = string(kind)
			}
			return p.errorf(i, "unknown kind %q (want one of %s)", b.Kind, strings.Join(names, ", "))
		}
		if b.Weight < 0 || math.IsNaN(b.Weight) || math.IsInf(b.Weight, 0) {
			return p.errorf(i, "weight %v must be a finite number ≥ 0", b.Weight)
		}
		if err := p.validateGaps(i); err != nil {
			return err
		}
	}
	if !aliases {
		return nil
	}
	return p.validateAliases(p.Index())
}

// firstDuplicate returns the first buffer whose id an earlier buffer has,
// and that earlier buffer; -1, -1 when the ids are distinct. The ids are
// hashed once, the buffers split by the hash's top bits into parts of about
// dupPart, and each part goes through an open-address table of 8-byte slots
// (index and hash tag) small enough to stay in the cache: one table for a
// million ids (twice as fast as a map[string]int) waited on memory at
// every insert.
func firstDuplicate(bs []Buffer) (int, int) {
	n := len(bs)
	seed := maphash.MakeSeed()
	hs := make([]uint64, n)
	for i := range bs {
		hs[i] = maphash.String(seed, bs[i].ID)
	}
	bits := 0
	for n>>bits > dupPart {
		bits++
	}
	// the buffers of each part in index order (a counting sort by part)
	parts := 1 << bits
	shift := uint(64 - bits)
	part := func(h uint64) int {
		if bits == 0 {
			return 0
		}
		return int(h >> shift)
	}
	ends := make([]int32, parts+1)
	for _, h := range hs {
		ends[part(h)+1]++
	}
	for q := 1; q <= parts; q++ {
		ends[q] += ends[q-1]
	}
	order := make([]int32, n)
	next := append([]int32(nil), ends[:parts]...)
	for i, h := range hs {
		q := part(h)
		order[next[q]] = int32(i)
		next[q]++
	}
	type slot struct{ idx, tag uint32 } // idx = buffer + 1; 0 = empty
	var table []slot
	dup, of := -1, -1
	for q := 0; q < parts; q++ {
		ks := order[ends[q]:ends[q+1]]
		size := 1
		for size < 2*len(ks) {
			size <<= 1
		}
		if cap(table) < size {
			table = make([]slot, size)
		}
		table = table[:size]
		clear(table)
		mask := uint64(size - 1)
		for _, k := range ks {
			h := hs[k]
			tag := uint32(h)
			for x := (h >> 8) & mask; ; x = (x + 1) & mask {
				s := table[x]
				if s.idx == 0 {
					table[x] = slot{uint32(k) + 1, tag}
					break
				}
				if s.tag == tag && bs[s.idx-1].ID == bs[k].ID {
					if dup < 0 || int(k) < dup {
						dup, of = int(k), int(s.idx-1)
					}
					break
				}
			}
			if dup >= 0 && int(k) >= dup {
				break // the rest of the part comes later
			}
		}
	}
	return dup, of
}

// dupPart is the number of ids a part of firstDuplicate holds: its table,
// 16 bytes an id, stays within a core's cache.
const dupPart = 1 << 14

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
// compared: their gaps may keep them apart.) Near-linear (AliasConflict).
func (p *Problem) validateAliasOverlaps(index map[string]int) error {
	n := len(p.Buffers)
	root, delta := p.AliasRoots(index)
	pools := p.PoolList()
	parent := make([]int, n)
	rel, size, start, end := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	compare := make([]bool, n)
	for i := range p.Buffers {
		b := &p.Buffers[i]
		parent[i] = -1
		if a := b.Alias; a != nil {
			parent[i], rel[i] = index[a.Parent], a.Delta
			// Root and member both sit on the pool's grid.
			if al := pools[0].Alignment(); len(pools) == 1 && delta[i]%al != 0 {
				return p.errorf(i, "alias delta %d inside %q is not a multiple of %d, the alignment of pool %q: no offset fits both",
					delta[i], p.Buffers[root[i]].ID, al, pools[0].Name)
			}
		}
		size[i], start[i], end[i] = b.Size, b.Start, b.End
		compare[i] = b.Alias != nil && len(b.Gaps) == 0
	}
	x, y, ok := AliasConflict(parent, rel, size, start, end, compare)
	if !ok {
		return nil
	}
	if p.Buffers[y].Line < p.Buffers[x].Line {
		x, y = y, x
	}
	return p.errorf(y, "shares bytes of %q with %q while both are live (neither is inside the other)",
		p.Buffers[root[y]].ID, p.Buffers[x].ID)
}

// AliasRoots returns, for every buffer, the index of its alias root (itself
// when it has no alias) and its byte delta inside that root, in O(n) for
// all buffers (Root walks one chain). The problem's alias chains must be
// valid (no cycle, parents exist).
func (p *Problem) AliasRoots(index map[string]int) (root []int, delta []int64) {
	parent := make([]int, len(p.Buffers))
	for i := range p.Buffers {
		parent[i] = -1
		if a := p.Buffers[i].Alias; a != nil {
			parent[i] = index[a.Parent]
		}
	}
	return p.rootsOf(parent)
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
