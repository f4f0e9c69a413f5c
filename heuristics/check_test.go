package heuristics

import (
	"fmt"

	"github.com/optalloc/optalloc/model"
)

// checkPlan is a small brute-force checker used next to verify.Check: it
// shares no code with the planners (whole rectangles: gaps are ignored,
// which only makes it stricter).
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
	rootOf := make([]int, len(p.Buffers))
	for i := range p.Buffers {
		rootOf[i], _ = p.Root(i, index)
	}
	for i := range p.Buffers {
		for j := i + 1; j < len(p.Buffers); j++ {
			a, b := &p.Buffers[i], &p.Buffers[j]
			qa, qb := pl.Placements[i], pl.Placements[j]
			if rootOf[i] == rootOf[j] || qa.Pool != qb.Pool || qa.Size == 0 || qb.Size == 0 {
				continue
			}
			if a.Start < b.End && b.Start < a.End && qa.Offset < qb.Offset+qb.Size && qb.Offset < qa.Offset+qa.Size {
				return fmt.Errorf("buffers %s and %s overlap", a.ID, b.ID)
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
