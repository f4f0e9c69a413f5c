package sat

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/verify"
)

// This file holds the test oracle for gaps and aliases (internal/brute
// handles neither): an exhaustive search over the roots' offsets on the
// grid of the GCD g of every size, delta, gap window, alignment and pin,
// whose every answer is a plan verify.Check accepts. It shares no code
// with the encoder: rectangles are expanded here the way verify does.

// grect is a rectangle of one buffer relative to its alias root's offset.
type grect struct {
	buf    int
	t0, t1 int64
	lo, hi int64
}

// expand returns buffer b's rectangles at byte delta inside its root
// (model.Buffer.Rects), tagged with its index.
func expand(b *model.Buffer, i int, delta int64) []grect {
	var out []grect
	for _, r := range b.Rects(delta, nil) {
		out = append(out, grect{buf: i, t0: r.Start, t1: r.End, lo: r.Lo, hi: r.Hi})
	}
	return out
}

// bruteGaps returns the minimum peak of a valid single-pool problem with
// gaps and aliases and a plan reaching it, or (−1, nil) when no plan is
// valid. Every offset of a root is tried on the grid of g up to the best
// peak found (a stacked plan first): rounding the offsets of any valid
// plan down to multiples of g keeps it valid (every constraint compares
// offsets through multiples of g), so the grid holds an optimum.
func bruteGaps(p *model.Problem) (int64, *model.Plan) { return searchGaps(p, false) }

// stackGaps returns the stacked plan bruteGaps starts from (pinned roots at
// their pins, every other group above everything placed before it), or
// (−1, nil) when no plan is valid.
func stackGaps(p *model.Problem) (int64, *model.Plan) { return searchGaps(p, true) }

func searchGaps(p *model.Problem, stackOnly bool) (int64, *model.Plan) {
	n := len(p.Buffers)
	index := p.Index()
	root, delta := make([]int, n), make([]int64, n)
	var g int64
	for i := range p.Buffers {
		b := &p.Buffers[i]
		root[i], delta[i] = p.Root(i, index)
		g = model.GCD(model.GCD(model.GCD(g, b.Size), delta[i]), b.Alignment())
		if b.Pin != nil {
			g = model.GCD(g, *b.Pin)
		}
		for _, gp := range b.Gaps {
			if gp.Window {
				g = model.GCD(model.GCD(g, gp.Lo), gp.Hi)
			}
		}
	}
	g = max(g, 1)
	var roots []int
	rects := map[int][]grect{}
	for i := range p.Buffers {
		if root[i] == i {
			roots = append(roots, i)
		}
		rects[root[i]] = append(rects[root[i]], expand(&p.Buffers[i], i, delta[i])...)
	}
	// Pinned roots first, then by index.
	ordered := make([]int, 0, len(roots))
	for _, r := range roots {
		if p.Buffers[r].Pin != nil {
			ordered = append(ordered, r)
		}
	}
	for _, r := range roots {
		if p.Buffers[r].Pin == nil {
			ordered = append(ordered, r)
		}
	}
	admissible := func(r int, v int64) bool {
		if b := &p.Buffers[r]; b.Pin != nil {
			return v == *b.Pin
		}
		for i := range p.Buffers {
			if root[i] == r && (v+delta[i])%p.Buffers[i].Alignment() != 0 {
				return false
			}
		}
		return true
	}
	off := make(map[int]int64, len(roots))
	plan := func() *model.Plan {
		pl := model.NewPlan(p)
		for i := range pl.Placements {
			pl.Placements[i].Offset = off[root[i]] + delta[i]
		}
		return pl
	}
	// A stacked plan: pinned roots at their pins, the others above
	// everything. If it is invalid, no plan is: what it breaks does not
	// depend on the free offsets (pins against pins, members of one group).
	var top int64
	for _, r := range ordered {
		if b := &p.Buffers[r]; b.Pin != nil {
			off[r] = *b.Pin
		} else {
			v := (top + g - 1) / g * g
			for ; !admissible(r, v); v += g {
				if v > top+1000*g {
					return -1, nil // contradictory congruences
				}
			}
			off[r] = v
		}
		if s := p.Buffers[r].Size; s > 0 {
			top = max(top, off[r]+s)
		}
	}
	best := plan()
	if len(verify.Check(p, best)) > 0 {
		return -1, nil
	}
	if stackOnly {
		return best.Peak(p), best
	}
	bestPeak := best.Peak(p)
	clash := func(r, q int) bool {
		for _, a := range rects[r] {
			for _, b := range rects[q] {
				if a.t0 < b.t1 && b.t0 < a.t1 && off[r]+a.lo < off[q]+b.hi && off[q]+b.lo < off[r]+a.hi {
					return true
				}
			}
		}
		return false
	}
	var dfs func(k int, peak int64)
	dfs = func(k int, peak int64) {
		if k == len(ordered) {
			if peak < bestPeak {
				pl := plan()
				if vs := verify.Check(p, pl); len(vs) > 0 {
					panic(fmt.Sprintf("bruteGaps: the partial check accepted a plan verify rejects: %v", vs))
				}
				best, bestPeak = pl, peak
			}
			return
		}
		r := ordered[k]
		s := p.Buffers[r].Size
		for v := int64(0); ; v += g {
			if b := &p.Buffers[r]; b.Pin != nil {
				if v > *b.Pin {
					return
				}
				v = *b.Pin
			}
			if s > 0 && v+s >= bestPeak {
				return
			}
			if s == 0 && v > 1000*g {
				return
			}
			if !admissible(r, v) {
				continue
			}
			off[r] = v
			ok := true
			for _, q := range ordered[:k] {
				if clash(r, q) {
					ok = false
					break
				}
			}
			if ok {
				np := peak
				if s > 0 {
					np = max(peak, v+s)
				}
				dfs(k+1, np)
				if s == 0 {
					return // a zero-size group occupies nothing: its lowest offset will do
				}
			}
		}
	}
	dfs(0, 0)
	return bestPeak, best
}

// gapOpts shapes randomGapAlias.
type gapOpts struct {
	horizon, maxSize      int64
	gap, window, alias    float64 // probabilities: a buffer has gaps; a gap is partial; a buffer is an alias
	align, pin, zero      float64
	twoGaps, alignMembers bool
	// split: members take at most half their parent's bytes, so that
	// several fit side by side (a split whose parts outlive the input)
	split bool
}

// randomGapAlias returns a valid random problem of n buffers with gaps
// (absent and partial), alias groups whose members may outlive their root
// (chains too), alignment, pins and zero sizes as opts says.
func randomGapAlias(rng *rand.Rand, n int, o gapOpts) *model.Problem {
	for {
		p := &model.Problem{Name: "gaps"}
		for i := 0; i < n; i++ {
			s := rng.Int64N(o.horizon - 1)
			e := s + 1 + rng.Int64N(o.horizon-s)
			b := model.Buffer{ID: fmt.Sprint(i), Start: s, End: e, Size: 1 + rng.Int64N(o.maxSize)}
			var parents []int
			for j := range p.Buffers {
				if p.Buffers[j].Size > 0 {
					parents = append(parents, j)
				}
			}
			if len(parents) > 0 && rng.Float64() < o.alias {
				par := &p.Buffers[parents[rng.IntN(len(parents))]]
				b.Size = 1 + rng.Int64N(par.Size)
				if o.split {
					b.Size = 1 + rng.Int64N(max(par.Size/2, 1))
				}
				b.Alias = &model.Alias{Parent: par.ID, Delta: rng.Int64N(par.Size - b.Size + 1)}
				if o.alignMembers && rng.Float64() < o.align {
					b.Align = 2
				}
			} else {
				if rng.Float64() < o.zero {
					b.Size = 0
				}
				if rng.Float64() < o.align {
					b.Align = 2 + rng.Int64N(2)
				}
				if rng.Float64() < o.pin {
					v := b.Alignment() * rng.Int64N(o.maxSize)
					b.Pin = &v
				}
			}
			if rng.Float64() < o.gap && e-s >= 2 {
				k := 1
				if o.twoGaps && e-s >= 4 && rng.IntN(2) == 0 {
					k = 2
				}
				cuts := make([]int64, 0, 2*k)
				for len(cuts) < 2*k {
					t := s + rng.Int64N(e-s+1)
					dup := false
					for _, c := range cuts {
						dup = dup || c == t
					}
					if !dup {
						cuts = append(cuts, t)
					}
				}
				slices.Sort(cuts)
				for a := 0; a < k; a++ {
					gp := model.Gap{Start: cuts[2*a], End: cuts[2*a+1]}
					if rng.Float64() < o.window && b.Size > 0 {
						gp.Window = true
						gp.Lo = rng.Int64N(b.Size + 1)
						gp.Hi = gp.Lo + rng.Int64N(b.Size-gp.Lo+1)
					}
					b.Gaps = append(b.Gaps, gp)
				}
			}
			p.Buffers = append(p.Buffers, b)
		}
		if p.Validate() == nil {
			return p
		}
	}
}
