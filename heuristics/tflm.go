package heuristics

import (
	"cmp"
	"context"
	"slices"

	"github.com/optalloc/optalloc/model"
)

func init() { Register(TFLMGreedy{}) }

// TFLMGreedy reproduces TFLite Micro's GreedyMemoryPlanner
// (tensorflow/lite/micro/memory_planner/greedy_memory_planner.cc), the
// planner a TFLite Micro interpreter runs on a model without an offline
// plan, so that a model's arena under TFLite Micro can be computed and
// compared without a device:
//
//   - pinned buffers (TFLite Micro's offline-planned ones) keep their
//     offsets and are entered first, in problem order;
//   - the others are taken largest first; TFLite Micro fills its sort
//     array from the tail and bubble-sorts it stably, so equal sizes come
//     in reverse problem order;
//   - each buffer goes at the lowest offset where it fits: walking the
//     placed buffers in offset order, skipping those whose lifetimes do not
//     intersect its own, the candidate is the end of the highest one passed
//     so far, and the buffer goes there when the gap up to the next one
//     holds it, else on top of the last.
//
// TFLite Micro's lifetimes are inclusive scopes [first, last]; a problem
// read from a .tflite file holds them as [first+1, last+2), so that two
// buffers intersect here exactly when they do there. Alias groups and
// buffers with gaps are placed by their bounding rectangles. Where a
// buffer's alignment does not divide the candidate (never for TFLite
// Micro's sizes, all multiples of its 16-byte alignment) the candidate is
// rounded up to it.
type TFLMGreedy struct{}

// Name implements Planner.
func (TFLMGreedy) Name() string { return "tflm-greedy" }

// Plan implements Planner.
func (TFLMGreedy) Plan(ctx context.Context, p *model.Problem) (*model.Plan, error) {
	return perPool(ctx, p, tflmPlace)
}

func tflmPlace(ctx context.Context, its []item) ([]int64, error) {
	order := make([]int, 0, len(its))
	for k := range its {
		if its[k].pin >= 0 {
			order = append(order, k)
		}
	}
	pinned := len(order)
	for k := range its {
		if its[k].pin < 0 {
			order = append(order, k)
		}
	}
	free := order[pinned:]
	slices.SortStableFunc(free, func(a, b int) int {
		if c := cmp.Compare(its[b].size, its[a].size); c != 0 {
			return c
		}
		return cmp.Compare(b, a)
	})
	off := make([]int64, len(its))
	// next[k] links the placed items in increasing offset order.
	next := make([]int, len(its))
	head := -1
	for n, k := range order {
		if n%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		it := &its[k]
		if it.pin >= 0 {
			off[k] = it.pin
		} else {
			off[k] = tflmFit(its, off, next, head, it)
		}
		// insert after every placed item whose offset is ≤ off[k]
		if head < 0 || off[head] > off[k] {
			next[k], head = head, k
			continue
		}
		cur := head
		for next[cur] >= 0 && off[next[cur]] <= off[k] {
			cur = next[cur]
		}
		next[k], next[cur] = next[cur], k
	}
	return off, nil
}

// tflmFit returns the lowest offset at which it fits between the placed
// items, walked in offset order, whose lifetimes intersect its own.
func tflmFit(its []item, off []int64, next []int, head int, it *item) int64 {
	var candidate int64
	for cur := head; cur >= 0; cur = next[cur] {
		o := &its[cur]
		if o.end <= it.start || o.start >= it.end {
			continue
		}
		candidate = it.up(candidate)
		if off[cur]-candidate >= it.size {
			return candidate
		}
		candidate = max(candidate, off[cur]+o.size)
	}
	return it.up(candidate)
}
