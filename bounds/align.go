package bounds

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/optalloc/optalloc/model"
)

// AlignResult is the alignment-aware lower bound of a problem (see
// Align) with what gave it.
type AlignResult struct {
	LowerBound int64
	MaxLive    int64
	// MaxLiveAt is the first time at which MaxLive bytes are live.
	MaxLiveAt int64
	// Level is the alignment of the strongest section bound (0 when the
	// bound is max-live), At the start of its slot, Items the number of
	// items of that level in it.
	Level, At int64
	Items     int
	// Section is the bound before rounding up to the grid; Grid is the
	// grid when the rounding raised it (else 0).
	Section, Grid int64
	// Pair is set when the two-time bound (pair.go) is the strongest:
	// at times At and At2, Both bytes live at both and the aligned buffers
	// live at only one of them need Union bytes of address space together.
	Pair             bool
	At2, Both, Union int64
}

// Detail explains the bound in one sentence.
func (r AlignResult) Detail() string {
	d := "the largest total size of buffers live at one time"
	switch {
	case r.Pair:
		d = fmt.Sprintf("at times %d and %d, %d bytes are live at both, and the buffers aligned to multiples of %d live at only one of them need at least %d bytes of address space together (max-live %d)",
			r.At, r.At2, r.Both, r.Level, r.Union, r.MaxLive)
	case r.Level != 0:
		d = fmt.Sprintf("at time %d, %d buffers aligned to multiples of %d: each takes whole %d-byte blocks except the topmost (max-live %d)",
			r.At, r.Items, r.Level, r.Level, r.MaxLive)
	}
	if r.Grid > 0 {
		d += fmt.Sprintf(", rounded up to a multiple of %d (every pushed-down plan's peak is one)", r.Grid)
	}
	return d
}

// Name names the bound in messages: "max-live" or "the alignment bound".
func (r AlignResult) Name() string {
	if r.LowerBound <= r.MaxLive {
		return "max-live"
	}
	return "the alignment bound"
}

// anyBuffer reports whether some buffer of p satisfies f (by pointer: a
// Buffer is large, and problems reach millions of them).
func anyBuffer(p *model.Problem, f func(*model.Buffer) bool) bool {
	for i := range p.Buffers {
		if f(&p.Buffers[i]) {
			return true
		}
	}
	return false
}

// alignItem is one piece of a section: its bytes and alignment (1 = fluid).
type alignItem struct {
	size, align int64
	// whole is set for a whole buffer (contiguous); else the bytes are
	// fluid (a gap window, an alias group's union).
	whole bool
}

// Align returns an alignment-aware lower bound on the peak of a single-pool
// problem: the largest, over the sections (sets of buffers live at one
// time), of a bound on the height of every 1-D packing of the section's
// buffers; never below max-live.
//
// # The bound of one section
//
// Take a section: items i with size s_i > 0 and effective alignment a_i (the
// lcm of the buffer's and the pool's alignment; every offset of a valid plan
// is a multiple of both). Pick a level A > 1 and call the items whose a_i is
// a multiple of A the A-items; they all start at multiples of A. Write
// c_i = ⌈s_i/A⌉ and pad_i = A·c_i − s_i. Every other byte of the section
// (items of other alignments, and pieces treated as fluid, below) is a
// non-A byte; let N be their number and W the total of the section.
//
// Look at any valid packing with peak H and let t be the A-item with the
// highest offset. An A-item i starting at k_i·A covers the blocks
// [k_i, k_i + c_i) of the A-grid only partly (its last block is padded by
// pad_i bytes), and the next A-item above it starts at a block boundary at
// or above its top, so no other A-item uses those blocks: the block ranges
// of A-items are disjoint, and those of every i ≠ t lie below k_t. Hence
//
//	k_t·A ≥ Σ_{i≠t} A·c_i + (non-A bytes below k_t·A that are not in the
//	         paddings of the items i ≠ t)
//	H − k_t·A ≥ s_t + (non-A bytes above k_t·A)
//
// and since the paddings of the items i ≠ t hold at most P_t = Σ_{i≠t} pad_i
// non-A bytes, H ≥ Σ_{i≠t} A·c_i + s_t + max(0, N − P_t) =
// max(W, S_A + P_t) where S_A = Σ s_i over the A-items. The smallest P_t
// is for t of the largest padding, so
//
//	H ≥ max(W, Σ_i A·c_i − max_i pad_i)          (over the A-items)
//
// The argument only counts non-A bytes, so it holds however they are shaped:
// unaligned items, items whose alignment A does not divide, gap windows and
// alias groups may fill the paddings completely (they are treated as fluid).
// Pins are extra constraints (a pinned offset honours the alignments too,
// else no plan is valid), elastic buffers are counted at their minimum size
// (a plan granting more only occupies more), so the bound holds for them.
//
// Indivisible items sharpen it. The non-A items are disjoint from the
// A-items, so a whole (contiguous) non-A item lies below the lowest A-item,
// above the top one, or in the gap between an A-item i and the next, whose
// length is L_i = pad_i + A·f_i (f_i ≥ 0 whole blocks). Then H ≥ S_A + P_t +
// N − Σ_{i≠t} sav_i with sav_i = pad_i + N_i − L_i ≤ min(pad_i, N_i) (N_i
// the non-A bytes in the gap; the region below the lowest A-item and the one
// above the top save nothing). Take a threshold τ; call the gaps with
// pad_i ≤ τ low and the k_τ whole non-A items larger than τ (L_τ bytes)
// large. A low gap holding a large item saves at most pad_i, and at most k_τ
// low gaps hold one; the other low gaps save at most the remaining bytes
// N − L_τ in total. So the saving of the low gaps is at most
// min(Σ_low pad, (the k_τ largest low paddings) + N − L_τ), that of the other
// gaps at most their paddings, and, minimising over t,
//
//	H ≥ S_A + L_τ + (the sum of the |low| − 1 − k_τ smallest low paddings)
//
// for every τ; τ = the largest padding with no large item gives the bound
// above. Every padding value is tried as τ (O(m log m) per level).
//
// The levels A are the effective alignments of the section's aligned items
// and the GCDs of pairs of them (the level gcd(4, 6) = 2 sees items of
// alignments 4 and 6 together); the bound of the section is the largest.
//
// # Gaps and aliases
//
// The section's occupancy comes from model.Pieces. A piece that is a whole
// buffer (no alias group, all its bytes) is an item with the buffer's
// alignment; a gap window or an alias group's union of byte ranges is fluid
// (alignment 1): sound, as above, but it adds no padding.
//
// # The pool bound
//
// The bound is monotone in the section (adding an item never lowers it), so
// only the slots entered by a start are evaluated; a slot whose load plus
// the paddings of its items to their own alignments (an upper bound on every
// level's value) cannot beat the best so far is skipped. Finally the bound is
// rounded up to the grid g (the GCD of sizes, alignments, alias deltas and
// pins, and gap windows' bounds): the optimum is the peak of a pushed-down
// plan, a multiple of g.
// Problems with several pools get max-live (the pools' loads are unknown
// before the split). The cost is O(S·n·levels + n log n) for S sections.
func Align(p *model.Problem) AlignResult { return AlignContext(context.Background(), p) }

// AlignContext is Align stopped by ctx: the sections are evaluated until ctx
// ends, and the bound is then the best found so far (every section's bound
// is sound on its own, so any prefix of them is; never below max-live).
// A staircase of 20 000 aligned buffers, 10 000 live at once, took 61 s
// with no way to stop it.
func AlignContext(ctx context.Context, p *model.Problem) AlignResult {
	pools := p.PoolList()
	// Nothing aligned (or several pools): max-live alone, without the
	// sweep's components and sections (1.5 s → 0.2 s on 1 000 000 dense
	// random buffers).
	if len(pools) != 1 {
		ml, at := MaxLiveAt(p)
		return AlignResult{LowerBound: ml, MaxLive: ml, MaxLiveAt: at}
	}
	if ml, at, aligned := maxLiveAt(p, &pools[0]); !aligned {
		return AlignResult{LowerBound: ml, MaxLive: ml, MaxLiveAt: at}
	}
	sw := p.ComputeSweep()
	res := AlignResult{LowerBound: sw.MaxLive, MaxLive: sw.MaxLive}
	for _, sl := range sw.Slots {
		if sl.Load == sw.MaxLive {
			res.MaxLiveAt = sl.Start
			break
		}
	}
	whole := WholeBuffers(p)
	type event struct {
		t     int64
		start bool
		item  alignItem
		id    int
	}
	pieces := p.Pieces()
	events := make([]event, 0, 2*len(pieces))
	aligned := false // some whole buffer aligned
	items := make([]alignItem, len(pieces))
	starts, ends := make([]int64, len(pieces)), make([]int64, len(pieces))
	for k, pc := range pieces {
		starts[k], ends[k] = pc.Start, pc.End
		it := alignItem{size: pc.Bytes, align: 1}
		if b := &p.Buffers[pc.Buffer]; whole[pc.Buffer] && pc.Bytes == b.Size {
			it.align, it.whole = b.AlignmentIn(&pools[0]), true
		}
		if it.align > 1 {
			aligned = true
		}
		items[k] = it
		events = append(events, event{pc.Start, true, it, k}, event{pc.End, false, it, k})
	}
	if !aligned {
		return res
	}
	slices.SortFunc(events, func(a, b event) int {
		switch {
		case a.t != b.t:
			return cmp.Compare(a.t, b.t)
		case a.start != b.start:
			if !a.start {
				return -1 // ends first: lifetimes are half-open
			}
			return 1
		}
		return cmp.Compare(int64(a.id), int64(b.id))
	})
	// live holds the live pieces; pos[id] is a piece's index in it.
	var live []int
	pos := make([]int, len(pieces))
	var upper int64 // load + paddings to own alignments
	best := sw.MaxLive
	section := make([]alignItem, 0, 64)
	for k := 0; k < len(events); {
		t := events[k].t
		started := false
		for ; k < len(events) && events[k].t == t; k++ {
			e := events[k]
			pad := padTo(e.item.size, e.item.align)
			if e.start {
				pos[e.id] = len(live)
				live = append(live, e.id)
				upper = satAdd(upper, satAdd(e.item.size, pad))
				started = true
			} else {
				j, last := pos[e.id], live[len(live)-1]
				live[j], pos[last] = last, j
				live = live[:len(live)-1]
				upper -= satAdd(e.item.size, pad)
			}
		}
		if !started || upper <= best || k == len(events) {
			continue
		}
		if ctx.Err() != nil {
			break // out of time: the best section bound so far
		}
		section = section[:0]
		for _, id := range live {
			section = append(section, items[id])
		}
		if lb, level, n := sectionBound(ctx, section); lb > best {
			best = lb
			res.Level, res.At, res.Items = level, t, n
		}
	}
	if pr := pairBound(ctx, starts, ends, items, best); pr.lb > best {
		best = pr.lb
		res.Pair, res.Level, res.At, res.At2, res.Both, res.Union = true, pr.level, pr.t1, pr.t2, pr.both, pr.cost
	}
	res.Section = best
	if g := Grid(p); best%g != 0 && best <= math.MaxInt64-g {
		best += g - best%g
		res.Grid = g
	}
	res.LowerBound = max(best, sw.MaxLive)
	return res
}

// sectionBound returns the bound of one section (see Align), the
// level that gives it (0 for the total) and the number of items of that
// level. Levels whose sums overflow int64 are skipped, and so are the
// levels left when ctx ends (the bound is then that of the levels tried).
func sectionBound(ctx context.Context, items []alignItem) (lb, level int64, n int) {
	var total int64
	var aligns []int64
	for _, it := range items {
		total += it.size
		if it.align > 1 && !slices.Contains(aligns, it.align) {
			aligns = append(aligns, it.align)
		}
	}
	lb = total
	var pads, others []int64
	for _, A := range levelsOf(aligns) {
		if ctx.Err() != nil {
			break
		}
		var sA int64
		pads, others = pads[:0], others[:0]
		ok := true
		for _, it := range items {
			if it.align%A != 0 {
				if it.whole {
					others = append(others, it.size)
				}
				continue
			}
			pad := padTo(it.size, A)
			if pad < 0 || sA > math.MaxInt64-it.size || pad > math.MaxInt64/int64(len(items)) {
				ok = false
				break
			}
			sA += it.size
			pads = append(pads, pad)
		}
		if !ok || len(pads) == 0 {
			continue
		}
		if v := levelBound(sA, pads, others); v > lb {
			lb, level, n = v, A, len(pads)
		}
	}
	return lb, level, n
}

// levelBound returns the bound of one level A of a section (see
// Align): sA is the bytes of the A-items, pads their paddings to
// A, others the sizes of the whole (indivisible) non-A items. pads and others
// are sorted in place. The result is the largest over thresholds τ (each
// padding value) of
//
//	sA + L_τ + (sum of the |low_τ| − 1 − k_τ smallest paddings ≤ τ)
//
// where k_τ items of L_τ bytes are larger than τ. With τ the largest
// padding and no item above it this is Σ A·c_i − max pad_i.
func levelBound(sA int64, pads, others []int64) int64 {
	slices.Sort(pads)
	slices.Sort(others)
	// prefix[j] = sum of the j smallest paddings; suffix sums of others.
	var best int64
	var prefix int64
	prefixes := make([]int64, len(pads)+1)
	for j, p := range pads {
		prefix += p
		prefixes[j+1] = prefix
	}
	large := make([]int64, len(others)+1) // large[j] = sum of others[j:]
	for j := len(others) - 1; j >= 0; j-- {
		large[j] = large[j+1] + others[j]
	}
	for j := 0; j < len(pads); j++ {
		if j+1 < len(pads) && pads[j+1] == pads[j] {
			continue // the threshold takes every padding ≤ τ
		}
		tau := pads[j]
		low := j + 1
		first, _ := slices.BinarySearch(others, tau+1) // first item > τ
		k := len(others) - first
		m := max(low-1-k, 0)
		if sA+large[first] > math.MaxInt64-prefixes[m] {
			continue // overflow: skip this threshold (sound)
		}
		if v := sA + large[first] + prefixes[m]; v > best {
			best = v
		}
	}
	return best
}

// maxLevels caps the number of levels tried per section.
const maxLevels = 64

// levelsOf returns the alignments and their pairwise GCDs (> 1), at most
// maxLevels of them.
func levelsOf(aligns []int64) []int64 {
	out := append([]int64(nil), aligns...)
	for i := 0; i < len(aligns) && len(out) < maxLevels; i++ {
		for j := i + 1; j < len(aligns) && len(out) < maxLevels; j++ {
			if g := model.GCD(aligns[i], aligns[j]); g > 1 && !slices.Contains(out, g) {
				out = append(out, g)
			}
		}
	}
	return out
}

// WholeBuffers marks the buffers whose pieces are whole copies of
// themselves at their own offset when they have all their bytes: buffers
// that are neither alias members nor roots of alias groups.
func WholeBuffers(p *model.Problem) []bool {
	whole := make([]bool, len(p.Buffers))
	for i := range whole {
		whole[i] = p.Buffers[i].Alias == nil
	}
	var root []int
	for i := range p.Buffers {
		if p.Buffers[i].Alias != nil {
			if root == nil {
				root, _ = p.AliasRoots(p.Index())
			}
			whole[root[i]] = false
		}
	}
	return whole
}
