package verify

import (
	"fmt"
	"slices"

	"github.com/optalloc/optalloc/model"
)

// BlockKind enumerates what can be wrong with a block plan (the block
// layout: every buffer assigned to a reusable block) or its schedule.
type BlockKind int

// The block violation kinds.
const (
	BlockBadInput   BlockKind = iota // wrong lengths, negative block sizes, broken alias chains
	BlockUnassigned                  // a buffer with bytes has no block, or a block index is out of range
	BlockTooSmall                    // a buffer (at its alias delta) does not fit in its block
	BlockOverlap                     // two buffers alive at the same time share bytes of a block
	BlockAliasSplit                  // an alias child is not in its root's block
	BlockOrder                       // schedule events out of time order, or an unknown op
	BlockMismatch                    // schedule disagrees with the plan (block, size, time, offset)
	BlockOverwrite                   // schedule gives a held block to a buffer of another group
	BlockLifecycle                   // block used before "new" or after "retire", released while in use or twice, never released; buffer taken twice or never
	BlockTooMany                     // the list was cut: more violations exist
)

var blockKindNames = [...]string{"bad-input", "unassigned", "too-small", "block-overlap", "alias-split",
	"schedule-order", "schedule-mismatch", "overwrite", "lifecycle", "too-many"}

func (k BlockKind) String() string {
	if k >= 0 && int(k) < len(blockKindNames) {
		return blockKindNames[k]
	}
	return fmt.Sprintf("block-kind(%d)", int(k))
}

// BlockViolation is one thing wrong with a block plan or schedule.
type BlockViolation struct {
	Kind    BlockKind `json:"-"`
	Name    string    `json:"kind"`
	Buffers []string  `json:"buffers,omitempty"`
	Blocks  []int     `json:"blocks,omitempty"`
	Msg     string    `json:"message"`
}

func (v BlockViolation) String() string { return v.Name + ": " + v.Msg }

// BlockMaxViolations caps the violations one call returns (then one
// BlockTooMany follows).
const BlockMaxViolations = 100

// blockChecker holds the problem facts the block checks need. It derives
// alias roots itself: the verifier shares no code with the planners.
type blockChecker struct {
	p     *model.Problem
	index map[string]int
	root  []int   // alias root of each buffer (itself when none); -1 on a broken chain
	delta []int64 // byte offset of each buffer inside its root
	out   []BlockViolation
	full  bool
}

func (c *blockChecker) add(k BlockKind, blocks []int, msg string, ids ...string) {
	if c.full {
		return
	}
	if len(c.out) == BlockMaxViolations {
		c.out = append(c.out, BlockViolation{Kind: BlockTooMany, Name: BlockTooMany.String(), Msg: "more violations exist; the list stops here"})
		c.full = true
		return
	}
	c.out = append(c.out, BlockViolation{Kind: k, Name: k.String(), Buffers: ids, Blocks: blocks, Msg: msg})
}

func newBlockChecker(p *model.Problem) *blockChecker {
	n := len(p.Buffers)
	c := &blockChecker{p: p, index: make(map[string]int, n), root: make([]int, n), delta: make([]int64, n)}
	for i := range p.Buffers {
		if _, dup := c.index[p.Buffers[i].ID]; !dup {
			c.index[p.Buffers[i].ID] = i
		}
	}
	for i := range p.Buffers {
		j, d := i, int64(0)
		for steps := 0; p.Buffers[j].Alias != nil; steps++ {
			k, ok := c.index[p.Buffers[j].Alias.Parent]
			if !ok || steps > n {
				j = -1
				break
			}
			d += p.Buffers[j].Alias.Delta
			j = k
		}
		c.root[i], c.delta[i] = j, d
		if j < 0 {
			c.add(BlockBadInput, nil, fmt.Sprintf("buffer %q: its alias chain is broken (unknown parent or a cycle)", p.Buffers[i].ID), p.Buffers[i].ID)
		}
	}
	return c
}

// BlockCheck returns every violation of a block plan for problem p: sizes[k]
// is the size of block k and assign[i] the block of p.Buffers[i] (-1: no
// block, allowed only for a buffer of size 0). The rules: every buffer with
// bytes has a block in range; an alias child is in its root's block and
// fits at its delta; every buffer fits in its block; two buffers alive at
// the same time ([Start, End) intersect, both sizes > 0) share a block only
// when they belong to one alias group and are related (ancestor and
// descendant) or use disjoint bytes of it. Gaps are ignored: a buffer holds
// its block for its whole lifetime, so this check is stricter than needed
// for buffers with gaps. Overlaps are found by a sweep per block, in
// O(n log n) for valid plans. An empty result means the plan is valid. It
// never panics, even on a problem that did not pass Validate.
func BlockCheck(p *model.Problem, sizes []int64, assign []int) []BlockViolation {
	if p == nil {
		return []BlockViolation{{Kind: BlockBadInput, Name: BlockBadInput.String(), Msg: "no problem"}}
	}
	c := newBlockChecker(p)
	if len(assign) != len(p.Buffers) {
		c.add(BlockBadInput, nil, fmt.Sprintf("the plan assigns %d buffers; the problem has %d", len(assign), len(p.Buffers)))
		return c.out
	}
	for k, s := range sizes {
		if s < 0 {
			c.add(BlockBadInput, []int{k}, fmt.Sprintf("block %d has negative size %d", k, s))
		}
	}
	members := make([][]int, len(sizes))
	for i := range p.Buffers {
		b := &p.Buffers[i]
		k := assign[i]
		switch {
		case k < -1 || k >= len(sizes):
			c.add(BlockUnassigned, nil, fmt.Sprintf("buffer %q is assigned block %d; there are %d blocks", b.ID, k, len(sizes)), b.ID)
			continue
		case k == -1:
			if b.Size > 0 {
				c.add(BlockUnassigned, nil, fmt.Sprintf("buffer %q (%d bytes) has no block", b.ID, b.Size), b.ID)
			}
			continue
		}
		r := c.root[i]
		if r >= 0 && r != i && assign[r] != k && (b.Size > 0 || assign[r] >= 0) {
			c.add(BlockAliasSplit, []int{k, assign[r]}, fmt.Sprintf("buffer %q is in block %d but its alias root %q is in block %d",
				b.ID, k, p.Buffers[r].ID, assign[r]), b.ID, p.Buffers[r].ID)
		}
		if b.Size < 0 || c.delta[i] < 0 || c.delta[i] > sizes[k] || b.Size > sizes[k]-c.delta[i] {
			c.add(BlockTooSmall, []int{k}, fmt.Sprintf("buffer %q (%d bytes at delta %d) does not fit in block %d of %d bytes",
				b.ID, b.Size, c.delta[i], k, sizes[k]), b.ID)
		}
		if b.Size > 0 && b.End > b.Start {
			members[k] = append(members[k], i)
		}
	}
	for k, ms := range members {
		c.sweepBlock(k, ms)
	}
	return c.out
}

// sweepBlock checks one block: buffers by start; the active list keeps the
// buffers alive at the current start (in a valid plan, one alias group).
func (c *blockChecker) sweepBlock(k int, ms []int) {
	bs := c.p.Buffers
	slices.SortStableFunc(ms, func(a, b int) int {
		switch {
		case bs[a].Start < bs[b].Start:
			return -1
		case bs[a].Start > bs[b].Start:
			return 1
		}
		return 0
	})
	var active []int
	for _, i := range ms {
		keep := active[:0]
		for _, j := range active {
			if bs[j].End > bs[i].Start {
				keep = append(keep, j)
			}
		}
		active = keep
		for _, j := range active {
			if !c.mayShare(i, j) {
				c.add(BlockOverlap, []int{k}, fmt.Sprintf("buffers %q [%d, %d) and %q [%d, %d) are alive at the same time in block %d",
					bs[j].ID, bs[j].Start, bs[j].End, bs[i].ID, bs[i].Start, bs[i].End, k), bs[j].ID, bs[i].ID)
				break
			}
		}
		active = append(active, i)
	}
}

// mayShare reports whether live buffers i and j may share a block: same
// alias group, and related or byte-disjoint inside the root.
func (c *blockChecker) mayShare(i, j int) bool {
	if c.root[i] < 0 || c.root[i] != c.root[j] {
		return false
	}
	if c.blockAncestor(i, j) || c.blockAncestor(j, i) {
		return true
	}
	bi, bj := &c.p.Buffers[i], &c.p.Buffers[j]
	return c.delta[i]+bi.Size <= c.delta[j] || c.delta[j]+bj.Size <= c.delta[i]
}

func (c *blockChecker) blockAncestor(anc, x int) bool {
	for steps := 0; c.p.Buffers[x].Alias != nil && steps <= len(c.p.Buffers); steps++ {
		k, ok := c.index[c.p.Buffers[x].Alias.Parent]
		if !ok {
			return false
		}
		if k == anc {
			return true
		}
		x = k
	}
	return false
}

// BlockEvent is one step of a block schedule, as a runtime replays it.
// Op is one of:
//   - "new": create block Block of Size bytes;
//   - "take": buffer Buffer (Size bytes) starts and occupies block Block
//     from byte Offset (its alias delta; 0 for a root);
//   - "release": block Block returns to the free list; Buffer names the
//     alias root whose group held it;
//   - "retire": block Block will never be used again (the runtime may free it).
//
// Events are sorted by Time; at one time, releases come first, then
// retires, then new blocks, then takes (lifetimes are half-open).
type BlockEvent struct {
	Time   int64  `json:"time"`
	Op     string `json:"op"`
	Block  int    `json:"block"`
	Buffer string `json:"buffer,omitempty"`
	Size   int64  `json:"size,omitempty"`
	Offset int64  `json:"offset,omitempty"`
}

var blockOpRank = map[string]int{"release": 0, "retire": 1, "new": 2, "take": 3}

// BlockCheckSchedule replays a schedule against the problem and its block
// plan (sizes, assign as in BlockCheck) and returns every inconsistency: an
// event out of order, a block created twice, with another size than the
// plan's, or used before "new" or after "retire"; a take at another time,
// block or offset than the buffer's start, plan and alias delta; a take into
// a block still held by another alias group (that would overwrite a live
// tensor); a release of a free block, by the wrong group, or while a
// buffer of the group is still alive; a buffer with bytes never taken or
// taken twice; a block still held at the end. It does not re-check the plan
// itself: call BlockCheck for that.
func BlockCheckSchedule(p *model.Problem, sizes []int64, assign []int, events []BlockEvent) []BlockViolation {
	if p == nil || len(assign) != len(p.Buffers) {
		return []BlockViolation{{Kind: BlockBadInput, Name: BlockBadInput.String(), Msg: "no problem, or the plan does not assign every buffer"}}
	}
	c := newBlockChecker(p)
	n := len(sizes)
	const (
		absent = iota
		created
		retired
	)
	state := make([]int, n)
	holder := make([]int, n) // alias root holding the block, -1 when free
	for k := range holder {
		holder[k] = -1
	}
	taken := make([]bool, len(p.Buffers))
	inBlock := make([][]int, n) // buffers taken since the block was last released
	inRange := func(e BlockEvent) bool {
		if e.Block < 0 || e.Block >= n {
			c.add(BlockMismatch, nil, fmt.Sprintf("time %d: %s names block %d; the plan has %d blocks", e.Time, e.Op, e.Block, n))
			return false
		}
		return true
	}
	for x, e := range events {
		rank, known := blockOpRank[e.Op]
		if !known {
			c.add(BlockOrder, nil, fmt.Sprintf("event %d: unknown op %q (want new, take, release or retire)", x, e.Op))
			continue
		}
		if x > 0 {
			prev := events[x-1]
			if pr, ok := blockOpRank[prev.Op]; ok && (e.Time < prev.Time || e.Time == prev.Time && rank < pr) {
				c.add(BlockOrder, nil, fmt.Sprintf("event %d (%s at time %d) comes after %s at time %d", x, e.Op, e.Time, prev.Op, prev.Time))
			}
		}
		if !inRange(e) {
			continue
		}
		k := e.Block
		switch e.Op {
		case "new":
			if state[k] != absent {
				c.add(BlockLifecycle, []int{k}, fmt.Sprintf("time %d: block %d is created twice", e.Time, k))
			}
			if e.Size != sizes[k] {
				c.add(BlockMismatch, []int{k}, fmt.Sprintf("time %d: block %d is created with %d bytes; the plan says %d", e.Time, k, e.Size, sizes[k]))
			}
			state[k] = created
		case "retire":
			if state[k] != created || holder[k] >= 0 {
				c.add(BlockLifecycle, []int{k}, fmt.Sprintf("time %d: block %d is retired while not created, already retired, or held", e.Time, k))
			}
			state[k] = retired
		case "take":
			c.replayTake(e, state[k] == created, holder, taken, inBlock, assign)
		case "release":
			c.replayRelease(e, holder, inBlock)
		}
	}
	for i := range p.Buffers {
		b := &p.Buffers[i]
		if b.Size > 0 && !taken[i] && assign[i] >= 0 {
			c.add(BlockLifecycle, []int{assign[i]}, fmt.Sprintf("buffer %q is never taken", b.ID), b.ID)
		}
	}
	for k := range holder {
		if holder[k] >= 0 {
			c.add(BlockLifecycle, []int{k}, fmt.Sprintf("block %d is never released (held by %q)", k, p.Buffers[holder[k]].ID))
		}
	}
	return c.out
}

func (c *blockChecker) replayTake(e BlockEvent, usable bool, holder []int, taken []bool, inBlock [][]int, assign []int) {
	k := e.Block
	i, ok := c.index[e.Buffer]
	if !ok {
		c.add(BlockMismatch, []int{k}, fmt.Sprintf("time %d: take of unknown buffer %q", e.Time, e.Buffer), e.Buffer)
		return
	}
	b := &c.p.Buffers[i]
	if taken[i] {
		c.add(BlockLifecycle, []int{k}, fmt.Sprintf("time %d: buffer %q is taken twice", e.Time, b.ID), b.ID)
	}
	taken[i] = true
	if !usable {
		c.add(BlockLifecycle, []int{k}, fmt.Sprintf("time %d: buffer %q takes block %d, which is not created or already retired", e.Time, b.ID, k), b.ID)
	}
	if assign[i] != k || e.Time != b.Start || e.Offset != c.delta[i] || e.Size != b.Size {
		c.add(BlockMismatch, []int{k}, fmt.Sprintf("time %d: buffer %q takes block %d at offset %d with %d bytes; the plan says block %d at time %d, offset %d, %d bytes",
			e.Time, b.ID, k, e.Offset, e.Size, assign[i], b.Start, c.delta[i], b.Size), b.ID)
	}
	r := c.root[i]
	if r < 0 {
		return
	}
	if h := holder[k]; h >= 0 && h != r {
		for _, j := range inBlock[k] {
			if c.p.Buffers[j].End > e.Time && c.p.Buffers[j].Size > 0 && b.Size > 0 {
				c.add(BlockOverwrite, []int{k}, fmt.Sprintf("time %d: buffer %q takes block %d while %q is alive in it", e.Time, b.ID, k, c.p.Buffers[j].ID), b.ID, c.p.Buffers[j].ID)
				break
			}
		}
		c.add(BlockLifecycle, []int{k}, fmt.Sprintf("time %d: buffer %q takes block %d, still held by the group of %q (no release)", e.Time, b.ID, k, c.p.Buffers[h].ID), b.ID)
	}
	holder[k] = r
	inBlock[k] = append(inBlock[k], i)
}

func (c *blockChecker) replayRelease(e BlockEvent, holder []int, inBlock [][]int) {
	k := e.Block
	h := holder[k]
	if h < 0 {
		c.add(BlockLifecycle, []int{k}, fmt.Sprintf("time %d: block %d is released but nothing holds it", e.Time, k))
		return
	}
	if e.Buffer != "" && e.Buffer != c.p.Buffers[h].ID {
		c.add(BlockMismatch, []int{k}, fmt.Sprintf("time %d: release of block %d names %q; the holder is the group of %q", e.Time, k, e.Buffer, c.p.Buffers[h].ID), e.Buffer)
	}
	for _, j := range inBlock[k] {
		if b := &c.p.Buffers[j]; b.End > e.Time {
			c.add(BlockLifecycle, []int{k}, fmt.Sprintf("time %d: block %d is released while %q is alive until %d", e.Time, k, b.ID, b.End), b.ID)
			break
		}
	}
	holder[k] = -1
	inBlock[k] = inBlock[k][:0]
}
