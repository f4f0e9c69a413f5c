package bounds

import (
	"cmp"
	"slices"

	"github.com/optalloc/optalloc/model"
)

// Section cuts.
//
// On a problem whose peak is far above max-live (MiniMalloc D and J), the
// excess comes from contiguity: a buffer keeps one offset over its whole
// lifetime, so the stacks of the fullest time steps constrain one another
// through the buffers they share. A section cut keeps only some elementary
// time slots (sections) of the schedule — the fullest ones, wherever they
// lie — and drops the time in between: each buffer is live on the chosen
// sections its lifetime covers (a contiguous run of them, since the chosen
// sections are taken in time order), and buffers that cover none are
// dropped. Two buffers that share a chosen section share a time step of the
// problem, so every plan of the problem is a plan of the cut with the same
// offsets, and a refutation of the cut at a height C (an exhausted search,
// an UNSAT answer) proves the problem's peak exceeds C. Unlike a time
// window (consecutive sections), a cut ties together the full sections of
// the whole schedule through the long-lived buffers that span them.

// Section is one elementary time slot [Start, End) of a problem: between
// consecutive distinct lifetime ends, with the bytes live there.
type Section struct {
	Start, End int64
	Load       int64
}

// Sections returns the elementary time slots of p spanned by at least one
// buffer of positive size, in time order, with their loads (the bytes of
// the buffers live there, minimum sizes). Gaps are ignored (the load is an
// upper estimate there).
func Sections(p *model.Problem) []Section {
	var pts []int64
	for i := range p.Buffers {
		b := &p.Buffers[i]
		if b.Size > 0 {
			pts = append(pts, b.Start, b.End)
		}
	}
	slices.Sort(pts)
	pts = slices.Compact(pts)
	if len(pts) < 2 {
		return nil
	}
	diff := make([]int64, len(pts))
	for i := range p.Buffers {
		b := &p.Buffers[i]
		if b.Size <= 0 {
			continue
		}
		s, _ := slices.BinarySearch(pts, b.Start)
		e, _ := slices.BinarySearch(pts, b.End)
		diff[s] += b.Size
		diff[e] -= b.Size
	}
	var out []Section
	var load int64
	for i := 0; i+1 < len(pts); i++ {
		load += diff[i]
		if load > 0 {
			out = append(out, Section{Start: pts[i], End: pts[i+1], Load: load})
		}
	}
	return out
}

// Fullest returns the indices (into secs, ascending) of the k sections of
// highest load (ties: earlier first); all of them when k ≥ len(secs).
func Fullest(secs []Section, k int) []int {
	idx := make([]int, len(secs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(secs[b].Load, secs[a].Load) })
	idx = idx[:min(max(k, 0), len(idx))]
	slices.Sort(idx)
	return idx
}

// Cut returns the relaxation of p to the chosen sections (indices into
// secs, ascending): section k of the choice becomes time step k, each
// buffer is live on the chosen sections its lifetime covers, and buffers
// that cover none (or have size 0) are left out. It returns, for each
// buffer of the cut, its index in p. Sizes, alignments and pins are kept;
// the cut has one unbounded pool. It returns nil for problems with gaps,
// aliases, elastic buffers or several pools, whose cuts this does not build.
func Cut(p *model.Problem, secs []Section, chosen []int) (*model.Problem, []int) {
	if len(p.PoolList()) > 1 {
		return nil, nil
	}
	for i := range p.Buffers {
		b := &p.Buffers[i]
		if len(b.Gaps) > 0 || b.Alias != nil || b.Elastic() {
			return nil, nil
		}
	}
	starts := make([]int64, len(chosen))
	for k, c := range chosen {
		starts[k] = secs[c].Start
	}
	q := &model.Problem{Name: p.Name + " (section cut)"}
	var from []int
	for i := range p.Buffers {
		b := p.Buffers[i]
		if b.Size <= 0 {
			continue
		}
		// chosen sections k with b.Start ≤ starts[k] < b.End
		lo, _ := slices.BinarySearch(starts, b.Start)
		hi, _ := slices.BinarySearch(starts, b.End)
		if lo >= hi {
			continue
		}
		b.Start, b.End = int64(lo), int64(hi)
		b.Hint, b.Line = nil, 0
		q.Buffers = append(q.Buffers, b)
		from = append(from, i)
	}
	if len(p.Pools) == 1 {
		q.Pools = []model.Pool{{Name: p.Pools[0].Name, Align: p.Pools[0].Align}}
	}
	return q, from
}
