package solve

import (
	"context"
	"fmt"
	"slices"
	"sort"

	"github.com/optalloc/optalloc/heuristics"
)

// freeListSplit assigns the groups not yet in a pool by a free-list sweep
// over the whole problem (Options.FreeListTiers: seed 000's own tier rule;
// with FillFast the fast pool is filled — reuse, then fresh memory within
// its capacity — before the next is tried) instead of by priority. The
// sweep only proposes: a bounded pool keeps, of the groups it proposes
// (and those spilled from faster pools), what fitPool confirms the usual
// pipeline can plan within its capacity; the rest moves on to the next
// pool, the last pool takes what is left. It returns the groups that fit
// nowhere and records the split.
func (s *solver) freeListSplit(ctx context.Context, free []*group, assigned [][]*group, split *Split) ([]*group, error) {
	fl := *s.opt.FreeListTiers
	plan, err := fl.Plan(heuristics.WithSettings(ctx, &heuristics.Settings{FreeList: &fl}), s.p)
	if err != nil {
		return nil, fmt.Errorf("free-list tier split: %w", err)
	}
	pools := s.p.PoolList()
	order := make([]int, len(pools))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return pools[order[a]].Rank < pools[order[b]].Rank })
	rank := make([]int, len(pools))
	for n, k := range order {
		rank[k] = n
	}
	proposed := make([][]*group, len(pools)) // in priority order
	for _, g := range free {
		k := plan.Placements[g.members[0]].Pool
		proposed[k] = append(proposed[k], g)
	}
	var spilled []*group
	for n, k := range order {
		var cand, later []*group
		for _, g := range slices.Concat(spilled, proposed[k]) {
			if g.allowed == nil || g.allowed[k] {
				cand = append(cand, g)
			} else {
				later = append(later, g)
			}
		}
		sort.SliceStable(cand, func(a, b int) bool { return cand[a].before(cand[b]) })
		take, rest := cand, []*group(nil)
		if n < len(order)-1 && pools[k].Capacity > 0 {
			take, rest = s.fitPool(ctx, pools[k], assigned[k], cand)
		}
		assigned[k] = append(assigned[k], take...)
		spilled = append(later, rest...)
		// the weight the sweep or the fit test sent on to slower pools
		for _, g := range free {
			if q := plan.Placements[g.members[0]].Pool; rank[q] > n && (g.allowed == nil || g.allowed[k]) {
				split.Pools[k].SpilledWeight += g.weight
			}
		}
		for _, g := range rest {
			split.Pools[k].SpilledWeight += g.weight
		}
	}
	split.Method, split.Proven = "freelist", false
	return spilled, nil
}
