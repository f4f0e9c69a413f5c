package heuristics

import (
	"cmp"
	"context"
	"slices"

	"github.com/optalloc/optalloc/model"
)

// Breadth (an experiment of issue 44 item 3, not registered: measured
// worse than the planners in the portfolio, docs/experiments.md) is first fit in the breadth order (Pisarchyk and Lee's "greedy
// by breadth", 2020, for the offsets of a plan): every item gets the
// highest load — the bytes live at one time — over its lifetime, and the
// items go heaviest first, so that the items crossing the trace's
// high-load times are packed first, bottom-up, and those living only where
// the load is low fill the holes afterwards. Items whose highest load is
// reached at one time all meet one another there; they come together,
// longest-lived first (as in PeakFirst, which is this order cut after its
// first time). Its names are "firstfit-breadth" and, with BestFit (into the
// smallest gap that holds the item), "greedy-breadth".
type Breadth struct {
	// BestFit puts each item into the smallest gap that holds it instead of
	// the lowest.
	BestFit bool
}

// Name implements Planner.
func (b *Breadth) Name() string {
	if b.BestFit {
		return "greedy-breadth"
	}
	return "firstfit-breadth"
}

// Plan implements Planner.
func (b *Breadth) Plan(ctx context.Context, p *model.Problem) (*model.Plan, error) {
	return perPool(ctx, p, func(ctx context.Context, its []item) ([]int64, error) {
		pc := newPlacer(its)
		if _, err := pc.run(ctx, breadthOrder(its), !b.BestFit); err != nil {
			return nil, err
		}
		return pc.off, nil
	})
}

// breadthOrder sorts the items by the highest load over their lifetimes,
// heaviest first, then by the (first) time of that load, then longest-lived
// first (longestFirst).
func breadthOrder(its []item) []int32 {
	load, at := lifetimeLoads(its)
	order := make([]int32, len(its))
	for k := range order {
		order[k] = int32(k)
	}
	slices.SortFunc(order, func(a, b int32) int {
		if c := cmp.Compare(load[b], load[a]); c != 0 {
			return c
		}
		if c := cmp.Compare(at[a], at[b]); c != 0 {
			return c
		}
		return longestFirst(its, a, b)
	})
	return order
}

// lifetimeLoads returns, for every item, the highest load (bytes live at
// one time, exact footprints) over its lifetime [start, end) and the first
// time rank at which it is reached; items of no bytes or no time get 0.
// O(n log n): the load per stretch between two consecutive event times,
// then a range-maximum query per item on a segment tree.
func lifetimeLoads(its []item) (load []int64, at []int32) {
	ts := make([]int64, 0, 2*len(its))
	for k := range its {
		ts = append(ts, its[k].start, its[k].end)
	}
	slices.Sort(ts)
	ts = slices.Compact(ts)
	rank := func(t int64) int {
		i, _ := slices.BinarySearch(ts, t)
		return i
	}
	// diff[i] is the change of load at time ts[i]; stretch i is [ts[i], ts[i+1])
	diff := make([]int64, len(ts)+1)
	for k := range its {
		it := &its[k]
		if it.fp != nil {
			for _, r := range it.fp.load {
				diff[rank(r.start)] += r.hi
				diff[rank(r.end)] -= r.hi
			}
		} else if it.size > 0 {
			diff[rank(it.start)] += it.size
			diff[rank(it.end)] -= it.size
		}
	}
	m := 1
	for m < len(ts) {
		m *= 2
	}
	// a segment tree of (load, rank) maxima, leaves at m..2m-1
	tv := make([]int64, 2*m)
	ti := make([]int32, 2*m)
	var cur int64
	for i := range ts {
		cur += diff[i]
		tv[m+i], ti[m+i] = cur, int32(i)
	}
	for i := m - 1; i >= 1; i-- {
		l, r := 2*i, 2*i+1
		if tv[r] > tv[l] {
			tv[i], ti[i] = tv[r], ti[r]
		} else {
			tv[i], ti[i] = tv[l], ti[l]
		}
	}
	load = make([]int64, len(its))
	at = make([]int32, len(its))
	for k := range its {
		it := &its[k]
		lo, hi := rank(it.start), rank(it.end) // stretches lo..hi-1
		if it.size == 0 || hi <= lo {
			continue
		}
		bv, bi := int64(-1), int32(0)
		take := func(n int) {
			if tv[n] > bv || (tv[n] == bv && ti[n] < bi) {
				bv, bi = tv[n], ti[n]
			}
		}
		for l, r := lo+m, hi+m; l < r; l, r = l/2, r/2 {
			if l&1 == 1 {
				take(l)
				l++
			}
			if r&1 == 1 {
				r--
				take(r)
			}
		}
		load[k], at[k] = bv, bi
	}
	return load, at
}
