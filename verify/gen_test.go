package verify_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/verify"
)

// source is what the generators draw from: a seeded PRNG in property tests,
// the fuzzer's bytes in fuzz targets.
type source interface{ intn(n int) int }

type rngSource struct{ r *rand.Rand }

func (s rngSource) intn(n int) int { return s.r.IntN(n) }

// byteSource reads choices from fuzz input; past its end every choice is 0.
type byteSource struct {
	data []byte
	pos  int
}

func (s *byteSource) intn(n int) int {
	if s.pos >= len(s.data) {
		return 0
	}
	v := int(s.data[s.pos])
	s.pos++
	if s.pos < len(s.data) && n > 256 {
		v = v<<8 | int(s.data[s.pos])
		s.pos++
	}
	return v % n
}

func i64(v int64) *int64 { return &v }

// genProblem returns a small valid problem: times below 12, sizes below 17
// (some 0), alignments 1..8, one gap now and then, aliases inside earlier
// buffers, elastic scratch, two pools when pools is set. Pins are added
// later by validPlan, which knows where buffers can go.
func genProblem(s source, n int, pools bool) *model.Problem {
	p := &model.Problem{}
	if pools {
		p.Pools = []model.Pool{{Name: "sram", Align: 2}, {Name: "dram", Rank: 1}}
	}
	for i := 0; i < n; i++ {
		b := model.Buffer{ID: fmt.Sprintf("b%d", i)}
		b.Start = int64(s.intn(10))
		b.End = b.Start + 1 + int64(s.intn(6))
		b.Size = int64(s.intn(17))
		b.Align = []int64{0, 1, 2, 4, 8}[s.intn(5)]
		if pools && s.intn(3) == 0 {
			b.Pools = []string{[]string{"sram", "dram"}[s.intn(2)]}
		}
		if s.intn(5) == 0 {
			b.MaxSize = b.Size + 1 + int64(s.intn(8))
		}
		if b.End-b.Start >= 3 && s.intn(3) == 0 {
			gs := b.Start + 1 + int64(s.intn(int(b.End-b.Start-2)))
			g := model.Gap{Start: gs, End: gs + 1 + int64(s.intn(int(b.End-gs-1)))}
			if b.Size > 0 && s.intn(2) == 0 {
				g.Window, g.Lo = true, int64(s.intn(int(b.Size)))
				g.Hi = g.Lo + int64(s.intn(int(b.Size-g.Lo)+1))
			}
			b.Gaps = []model.Gap{g}
		}
		if i > 0 && !b.Elastic() && s.intn(4) == 0 {
			par := &p.Buffers[s.intn(i)]
			if !par.Elastic() && par.Size >= b.Size {
				// Deltas are even so that members honour sram's alignment 2;
				// members inherit the parent's alignment.
				d := int64(s.intn(int(par.Size-b.Size)/2+1)) * 2
				if d+b.Size <= par.Size {
					b.Alias = &model.Alias{Parent: par.ID, Delta: d}
					b.Align, b.Pools = 0, nil
				}
			}
		}
		p.Buffers = append(p.Buffers, b)
		if b.Alias != nil && siblingClash(p, i) {
			p.Buffers[i].Alias = nil
		}
	}
	return p
}

// siblingClash reports whether alias member i shares bytes, while both are
// live, with a member of its group that is not its ancestor: the verifier
// (like the block checker) calls that an overlap, so such a problem has no
// valid plan. Validate does not reject it.
func siblingClash(p *model.Problem, i int) bool {
	ri, di := rootOf(p, i)
	mine := rectsAt(&p.Buffers[i], p.Buffers[i].Size, di)
	for j := range i {
		if rj, dj := rootOf(p, j); rj == ri && !ancestor(p, j, i) && !fits(mine, 0, rectsAt(&p.Buffers[j], p.Buffers[j].Size, dj)) {
			return true
		}
	}
	return false
}

// rectOf is a time × byte rectangle relative to an offset.
type rectOf struct{ t0, t1, lo, hi int64 }

// rectsAt lists the rectangles buffer b occupies with size bytes granted,
// shifted by delta, checking every time step (no gap arithmetic shared with
// the verifier).
func rectsAt(b *model.Buffer, size, delta int64) []rectOf {
	var out []rectOf
	for t := b.Start; t < b.End; t++ {
		lo, hi := int64(0), size
		for _, g := range b.Gaps {
			if t >= g.Start && t < g.End {
				lo, hi = 0, 0
				if g.Window {
					lo, hi = g.Lo, g.Hi
				}
			}
		}
		if hi > lo {
			out = append(out, rectOf{t, t + 1, delta + lo, delta + hi})
		}
	}
	return out
}

// rootOf follows alias parents by linear search.
func rootOf(p *model.Problem, i int) (int, int64) {
	var d int64
	for steps := 0; p.Buffers[i].Alias != nil && steps <= len(p.Buffers); steps++ {
		next := -1
		for j := range p.Buffers {
			if p.Buffers[j].ID == p.Buffers[i].Alias.Parent {
				next = j
			}
		}
		if next < 0 {
			break
		}
		d += p.Buffers[i].Alias.Delta
		i = next
	}
	return i, d
}

// validPlan places every alias group by first fit (lowest aligned offset
// whose rectangles meet nothing placed in the pool), grants elastic buffers
// a random size, then pins some placed buffers where they are and bounds
// the first pool at its peak. The plan is valid by construction.
func validPlan(s source, p *model.Problem) *model.Plan {
	pools := p.PoolList()
	pl := model.NewPlan(p)
	for i := range p.Buffers {
		if b := &p.Buffers[i]; b.Elastic() {
			pl.Placements[i].Size = b.Size + int64(s.intn(int(b.MaxSize-b.Size)+1))
		}
	}
	members := map[int][]int{}
	for i := range p.Buffers {
		r, _ := rootOf(p, i)
		members[r] = append(members[r], i)
	}
	placed := make([][]rectOf, len(pools))
	for r := range p.Buffers {
		ms, ok := members[r]
		if !ok {
			continue
		}
		root := &p.Buffers[r]
		pool := 0
		if len(root.Pools) > 0 {
			pool = p.PoolIndex(root.Pools[0])
		} else if len(pools) > 1 {
			pool = s.intn(len(pools))
		}
		step := max(root.Alignment(), pools[pool].Alignment())
		var group []rectOf
		for _, m := range ms {
			_, d := rootOf(p, m)
			group = append(group, rectsAt(&p.Buffers[m], pl.Placements[m].Size, d)...)
		}
		off := int64(0)
		for ; ; off += step {
			if fits(group, off, placed[pool]) {
				break
			}
		}
		for _, m := range ms {
			_, d := rootOf(p, m)
			pl.Placements[m].Offset, pl.Placements[m].Pool = off+d, pool
		}
		for _, g := range group {
			placed[pool] = append(placed[pool], rectOf{g.t0, g.t1, off + g.lo, off + g.hi})
		}
	}
	for i := range p.Buffers {
		if b := &p.Buffers[i]; b.Alias == nil && s.intn(4) == 0 {
			b.Pin = i64(pl.Placements[i].Offset)
		}
	}
	if len(pools) > 1 {
		p.Pools[0].Capacity = max(1, pl.PoolPeaks(p)[0])
	}
	return pl
}

func fits(group []rectOf, off int64, placed []rectOf) bool {
	for _, g := range group {
		for _, q := range placed {
			if g.t0 < q.t1 && q.t0 < g.t1 && off+g.lo < q.hi && q.lo < off+g.hi {
				return false
			}
		}
	}
	return true
}

// interpretable says whether the verifier can place buffer i at all: a
// placement exists, its pool index is valid, the granted size is allowed,
// its bytes fit in int64 and its gaps make sense. Check reports the others
// for that reason and leaves them out of the overlap test.
func interpretable(p *model.Problem, pl *model.Plan, i int) bool {
	b, q := &p.Buffers[i], pl.Placements[i]
	if q.Offset == model.MissingOffset || q.Pool < 0 || q.Pool >= len(p.PoolList()) {
		return false
	}
	if b.Elastic() {
		if q.Size < b.Size || q.Size > b.MaxSize {
			return false
		}
	} else if q.Size != b.Size {
		return false
	}
	if q.Offset < 0 || q.Size < 0 || q.Offset > math.MaxInt64-q.Size {
		return false
	}
	t := b.Start
	for _, g := range b.Gaps {
		if g.Start < t || g.End <= g.Start || g.End > b.End || (g.Window && (g.Lo < 0 || g.Hi < g.Lo || g.Hi > q.Size)) {
			return false
		}
		t = g.End
	}
	return true
}

// ancestor reports whether a is an alias ancestor of x.
func ancestor(p *model.Problem, a, x int) bool {
	for steps := 0; p.Buffers[x].Alias != nil && steps <= len(p.Buffers); steps++ {
		next := -1
		for j := range p.Buffers {
			if p.Buffers[j].ID == p.Buffers[x].Alias.Parent {
				next = j
				break
			}
		}
		if next < 0 {
			return false
		}
		if next == a {
			return true
		}
		x = next
	}
	return false
}

// bruteOverlaps checks every pair at every time step: both interpretable,
// same pool, neither an alias ancestor of the other, and sharing a byte.
func bruteOverlaps(p *model.Problem, pl *model.Plan) map[[2]string]bool {
	out := map[[2]string]bool{}
	for i := range p.Buffers {
		for j := i + 1; j < len(p.Buffers); j++ {
			if !interpretable(p, pl, i) || !interpretable(p, pl, j) || pl.Placements[i].Pool != pl.Placements[j].Pool ||
				ancestor(p, i, j) || ancestor(p, j, i) {
				continue
			}
			qi, qj := pl.Placements[i], pl.Placements[j]
			ri := rectsAt(&p.Buffers[i], qi.Size, qi.Offset)
			rj := rectsAt(&p.Buffers[j], qj.Size, qj.Offset)
			if fits(ri, 0, rj) {
				continue
			}
			out[[2]string{p.Buffers[i].ID, p.Buffers[j].ID}] = true
		}
	}
	return out
}

// overlapPairs collects the buffer pairs of Check's Overlap violations, in
// problem order.
func overlapPairs(p *model.Problem, vs []verify.Violation) map[[2]string]bool {
	pos := p.Index()
	out := map[[2]string]bool{}
	for _, v := range vs {
		if v.Kind != verify.Overlap {
			continue
		}
		a, b := v.Buffers[0], v.Buffers[1]
		if pos[a] > pos[b] {
			a, b = b, a
		}
		out[[2]string{a, b}] = true
	}
	return out
}

func kinds(vs []verify.Violation) []verify.Kind {
	var ks []verify.Kind
	for _, v := range vs {
		ks = append(ks, v.Kind)
	}
	return ks
}
