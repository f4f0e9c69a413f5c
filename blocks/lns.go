package blocks

import (
	"cmp"
	"context"
	"math/rand/v2"
	"slices"
)

// DefaultLNSRounds bounds the large-neighbourhood rounds when the context
// has no deadline.
const DefaultLNSRounds = 2000

// lnsSubUnits caps the units of one neighbourhood, and lnsSubNodes the
// nodes of its search: sub-instances this small are usually solved to
// optimality in milliseconds.
const (
	lnsSubUnits = 40
	lnsSubNodes = 20000
)

// improve runs large-neighbourhood search on s's incumbent until ctx is
// done or the rounds are used: pick 2–6 blocks (deterministic PCG stream;
// every other round a run of blocks adjacent in size order, which can trade
// units, else blocks at random),
// re-partition their units with a node-limited search seeded with their
// current partition, and keep the result when it is cheaper (and, with
// MaxBlocks, uses no more blocks). It returns the nodes spent.
func (e *Exact) improve(ctx context.Context, units []unit, s *search, lb int64) int64 {
	rounds := e.LNSRounds
	if _, has := ctx.Deadline(); !has && rounds == 0 {
		rounds = DefaultLNSRounds
	}
	r := rand.New(rand.NewPCG(0x6c6e73, uint64(len(units))))
	cur := append([]int(nil), s.bestAssign...)
	// members[b]: units of block b; size[b]: its size.
	nb := 0
	for _, b := range cur {
		nb = max(nb, b+1)
	}
	members := make([][]int, nb)
	for u, b := range cur {
		members[b] = append(members[b], u)
	}
	sizes := make([]int64, nb)
	for u, b := range cur {
		sizes[b] = max(sizes[b], units[u].size)
	}
	size := func(b int) int64 { return sizes[b] }
	cost := s.best
	var nodes int64
	sub := &Exact{NodeLimit: lnsSubNodes, NoLNS: true, NoSeed: true, MaxBlocks: 0}
	for round := 0; rounds == 0 || round < rounds; round++ {
		if ctx.Err() != nil || cost <= lb {
			break
		}
		live := make([]int, 0, nb)
		for b := range members {
			if len(members[b]) > 0 {
				live = append(live, b)
			}
		}
		if len(live) < 2 {
			break
		}
		k := 2 + r.IntN(5)
		var chosen []int
		var picked []int
		total := 0
		take := func(b int) {
			if !slices.Contains(chosen, b) && total+len(members[b]) <= lnsSubUnits {
				chosen = append(chosen, b)
				total += len(members[b])
			}
		}
		if round%2 == 0 {
			// Blocks of similar sizes: their units can trade places.
			slices.SortStableFunc(live, func(a, b int) int { return cmp.Compare(size(b), size(a)) })
			start := r.IntN(len(live))
			for x := start; x < len(live) && len(chosen) < k; x++ {
				take(live[x])
			}
		} else {
			for tries := 0; len(chosen) < k && tries < 4*k; tries++ {
				take(live[r.IntN(len(live))])
			}
		}
		if len(chosen) < 2 {
			continue
		}
		var before int64
		inc := make([]int, 0, total)
		for x, b := range chosen {
			before += size(b)
			for _, u := range members[b] {
				picked = append(picked, u)
				inc = append(inc, x)
			}
		}
		subUnits := make([]unit, len(picked))
		for x, u := range picked {
			subUnits[x] = units[u]
		}
		sub.MaxBlocks = 0
		if e.MaxBlocks > 0 {
			sub.MaxBlocks = len(chosen) + (e.MaxBlocks - len(live))
		}
		ss := newSearch(subUnits, sub)
		ss.offer(inc, before)
		ss.ctx = ctx
		if ss.best > ss.rootLB {
			ss.dfs(0)
		}
		nodes += ss.nodes
		if ss.best >= before {
			continue
		}
		// Apply: the chosen blocks take the new partition; extra blocks
		// are appended.
		for _, b := range chosen {
			members[b], sizes[b] = members[b][:0], 0
		}
		slots := append([]int(nil), chosen...)
		for x, u := range picked {
			nbk := ss.bestAssign[x]
			for nbk >= len(slots) {
				members = append(members, nil)
				sizes = append(sizes, 0)
				slots = append(slots, len(members)-1)
			}
			b := slots[nbk]
			members[b] = append(members[b], u)
			sizes[b] = max(sizes[b], units[u].size)
			cur[u] = b
		}
		nb = len(members)
		cost -= before - ss.best
	}
	if cost < s.best {
		s.best = cost
		s.bestAssign = cur
	}
	return nodes
}
