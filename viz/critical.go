package viz

import "github.com/optalloc/optalloc/model"

// Critical reports, for every buffer, whether it defines the peak of its
// pool: it reaches the peak, or it lies directly under such a buffer at a
// time both are live, recursively (a stack of buffers with no free byte
// between them, from the peak down). Lowering the peak requires moving at
// least one buffer of every such stack. Gaps inside lifetimes are ignored.
func Critical(p *model.Problem, pl *model.Plan) []bool {
	n := len(p.Buffers)
	crit := make([]bool, n)
	if pl == nil || len(pl.Placements) != n {
		return crit
	}
	peaks := pl.PoolPeaks(p)
	type key struct {
		pool int
		top  int64
	}
	byTop := map[key][]int{}
	var queue []int
	for i, q := range pl.Placements {
		if q.Size <= 0 || q.Pool < 0 || q.Pool >= len(peaks) {
			continue
		}
		top := q.Offset + q.Size
		byTop[key{q.Pool, top}] = append(byTop[key{q.Pool, top}], i)
		if top == peaks[q.Pool] {
			crit[i] = true
			queue = append(queue, i)
		}
	}
	for len(queue) > 0 {
		i := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		q, b := pl.Placements[i], &p.Buffers[i]
		for _, j := range byTop[key{q.Pool, q.Offset}] {
			c := &p.Buffers[j]
			if !crit[j] && c.Start < b.End && b.Start < c.End {
				crit[j] = true
				queue = append(queue, j)
			}
		}
	}
	return crit
}
