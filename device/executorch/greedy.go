package executorch

import (
	"slices"

	"github.com/optalloc/optalloc/model"
)

// sharedObject is ExecuTorch's SharedObject: a segment of the arena that
// specs share, with the allocations inside it.
type sharedObject struct {
	size   int64
	allocs []allocation
}

type allocation struct {
	offset, size, first, last int64 // last inclusive
}

// live reports whether a spec live over [first, last] (inclusive) overlaps
// the allocation in time.
func (a allocation) live(first, last int64) bool { return !(last < a.first || first > a.last) }

// Greedy is ExecuTorch's default planner, exir/memory_planning.py's greedy
// with pick_shared_obj and allow_overlapping_allocations (its default), on
// the buffers idx of p (one mem_id): it returns their offsets from the
// arena's start and the arena's size. The specs are taken largest first
// (a stable sort by size, reversed, as its bisect.insort then reverse);
// each goes at offset 0 of the first shared object none of whose
// allocations it meets in time, else above the allocations it meets in
// the first object where it still fits, else into a new object of its
// size. Objects are laid end to end in the order they were made. Lifetimes
// are inclusive: a buffer's [Start, End) is [Start, End-1].
func Greedy(p *model.Problem, idx []int) (offsets []int64, size int64) {
	order := slices.Clone(idx)
	slices.SortStableFunc(order, func(x, y int) int {
		sx, sy := p.Buffers[x].Size, p.Buffers[y].Size
		switch {
		case sx < sy:
			return -1
		case sx > sy:
			return 1
		}
		return 0
	})
	slices.Reverse(order)
	var objs []*sharedObject
	objOf := make(map[int]int, len(idx))
	within := make(map[int]int64, len(idx))
	for _, i := range order {
		b := &p.Buffers[i]
		first, last, sz := b.Start, b.End-1, b.Size
		picked, at := -1, int64(0)
		for k, o := range objs {
			free := true
			for _, a := range o.allocs {
				if a.live(first, last) {
					free = false
					break
				}
			}
			if free {
				picked = k
				break
			}
		}
		if picked < 0 {
			for k, o := range objs {
				var top int64
				for _, a := range o.allocs {
					if a.live(first, last) {
						top = max(top, a.offset+a.size)
					}
				}
				if top > 0 && top+sz <= o.size {
					picked, at = k, top
					break
				}
			}
		}
		if picked < 0 {
			objs = append(objs, &sharedObject{size: sz})
			picked = len(objs) - 1
		}
		objs[picked].allocs = append(objs[picked].allocs, allocation{offset: at, size: sz, first: first, last: last})
		objOf[i], within[i] = picked, at
	}
	starts := make([]int64, len(objs))
	for k, o := range objs {
		starts[k] = size
		size += o.size
	}
	offsets = make([]int64, len(idx))
	for j, i := range idx {
		offsets[j] = starts[objOf[i]] + within[i]
	}
	return offsets, size
}
