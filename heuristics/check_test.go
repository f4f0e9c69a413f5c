package heuristics

import (
	"fmt"

	"github.com/optalloc/optalloc/model"
)

// checkPlan is a small brute-force checker used next to verify.Check: it
// shares no code with the planners; it walks every time step two buffers
// share (exact occupancy: gaps honoured, alias ancestors exempt).
func checkPlan(p *model.Problem, pl *model.Plan) error {
	if len(pl.Placements) != len(p.Buffers) {
		return fmt.Errorf("%d placements for %d buffers", len(pl.Placements), len(p.Buffers))
	}
	pools := p.PoolList()
	index := p.Index()
	for i := range p.Buffers {
		b, q := &p.Buffers[i], pl.Placements[i]
		if q.Pool < 0 || q.Pool >= len(pools) {
			return fmt.Errorf("buffer %s: pool %d", b.ID, q.Pool)
		}
		if q.Offset < 0 || q.Offset%b.Alignment() != 0 || q.Offset%pools[q.Pool].Alignment() != 0 {
			return fmt.Errorf("buffer %s: offset %d misaligned", b.ID, q.Offset)
		}
		if q.Size < b.Size || (q.Size > b.Size && q.Size > b.MaxSize) {
			return fmt.Errorf("buffer %s: granted %d", b.ID, q.Size)
		}
		if b.Pin != nil && *b.Pin != q.Offset {
			return fmt.Errorf("buffer %s: pinned at %d, placed at %d", b.ID, *b.Pin, q.Offset)
		}
		if len(b.Pools) > 0 && !containsStr(b.Pools, pools[q.Pool].Name) {
			return fmt.Errorf("buffer %s: pool %s not allowed", b.ID, pools[q.Pool].Name)
		}
		if c := pools[q.Pool].Capacity; c > 0 && q.Size > 0 && q.Offset+q.Size > c {
			return fmt.Errorf("buffer %s: ends at %d beyond capacity %d", b.ID, q.Offset+q.Size, c)
		}
		if b.Alias != nil {
			par := index[b.Alias.Parent]
			if pq := pl.Placements[par]; pq.Pool != q.Pool || pq.Offset+b.Alias.Delta != q.Offset {
				return fmt.Errorf("buffer %s: alias not at parent+%d", b.ID, b.Alias.Delta)
			}
		}
	}
	// occupied reports whether buffer i, placed at q, uses byte x at time t
	// (gaps honoured: absent windows use nothing, partial ones [Lo, Hi)).
	occupied := func(i int, t, lo, hi int64) bool {
		b, q := &p.Buffers[i], pl.Placements[i]
		if t < b.Start || t >= b.End {
			return false
		}
		a, z := q.Offset, q.Offset+q.Size
		for _, g := range b.Gaps {
			if t >= g.Start && t < g.End {
				if !g.Window {
					return false
				}
				a, z = q.Offset+g.Lo, q.Offset+g.Hi
			}
		}
		return a < hi && lo < z
	}
	ancestor := func(a, x int) bool {
		for p.Buffers[x].Alias != nil {
			x = index[p.Buffers[x].Alias.Parent]
			if x == a {
				return true
			}
		}
		return false
	}
	for i := range p.Buffers {
		for j := i + 1; j < len(p.Buffers); j++ {
			a, b := &p.Buffers[i], &p.Buffers[j]
			qa, qb := pl.Placements[i], pl.Placements[j]
			if ancestor(i, j) || ancestor(j, i) || qa.Pool != qb.Pool || qa.Size == 0 || qb.Size == 0 {
				continue
			}
			// every time step both may share (lifetimes are small in tests)
			for t := max(a.Start, b.Start); t < min(a.End, b.End); t++ {
				// b's bytes at t, intersected with a's
				lo, hi := qb.Offset, qb.Offset+qb.Size
				for _, g := range b.Gaps {
					if t >= g.Start && t < g.End && g.Window {
						lo, hi = qb.Offset+g.Lo, qb.Offset+g.Hi
					}
				}
				if occupied(j, t, lo, hi) && occupied(i, t, lo, hi) {
					return fmt.Errorf("buffers %s and %s overlap at time %d", a.ID, b.ID, t)
				}
			}
		}
	}
	return nil
}

func containsStr(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}
