package bounds

import (
	"github.com/optalloc/optalloc/model"
)

// MaxLive is the largest number of bytes live at one time (gaps and alias
// groups as the sweep counts them): plain buffers straight from the
// problem, the others through their pieces.
func MaxLive(p *model.Problem) int64 {
	live, _ := MaxLiveAt(p)
	return live
}

// MaxLiveAt is MaxLive and the first time at which that many bytes are
// live (0 when nothing is).
func MaxLiveAt(p *model.Problem) (live, at int64) {
	live, at, _ = maxLiveAt(p, nil)
	return live, at
}

// maxLiveAt is MaxLiveAt; with pool set, it first reports (aligned true,
// no max-live) whether a buffer's alignment in that pool is above 1, from
// the same pass that looks for aliases and gaps (Align takes another path
// then; a pass over a million buffers reads 170 MB).
func maxLiveAt(p *model.Problem, pool *model.Pool) (live, at int64, aligned bool) {
	// one pass for the span of the times and whether any buffer has an
	// alias or gaps (or, with pool, an alignment)
	var lo, hi int64
	n := 0
	pieces := false
	pa := int64(1)
	if pool != nil {
		pa = pool.Alignment()
	}
	for i := range p.Buffers {
		b := &p.Buffers[i]
		if pool != nil && (pa > 1 || b.Alignment() > 1) {
			return 0, 0, true
		}
		if b.Alias != nil || len(b.Gaps) > 0 {
			if pool == nil {
				live, at = model.PeakLoad(p.Pieces())
				return live, at, false
			}
			pieces = true
		}
		if b.Size <= 0 || b.End <= b.Start {
			continue
		}
		if n == 0 {
			lo, hi = b.Start, b.End
		}
		lo, hi = min(lo, b.Start), max(hi, b.End)
		n++
	}
	if pieces {
		live, at = model.PeakLoad(p.Pieces())
		return live, at, false
	}
	if n == 0 {
		return 0, 0, false
	}
	if span := uint64(hi) - uint64(lo); span < 3*uint64(n)+1024 {
		// whole lifetimes with op-index times: the bytes starting minus
		// the bytes ending at each time step, one word a step (the counts
		// of model.LiveCounts are not needed here)
		delta := make([]int64, span+1)
		for i := range p.Buffers {
			if b := &p.Buffers[i]; b.Size > 0 && b.End > b.Start {
				delta[b.Start-lo] += b.Size
				delta[b.End-lo] -= b.Size
			}
		}
		var load int64
		for t, d := range delta {
			load += d
			if load > live {
				live, at = load, lo+int64(t)
			}
		}
		return live, at, false
	}
	c := p.LiveCounts()
	return c.MaxLive, c.At, false
}
