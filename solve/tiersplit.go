package solve

import (
	"context"
	"math/bits"
	"slices"
	"time"

	"github.com/optalloc/optalloc/exact/bnb"
	"github.com/optalloc/optalloc/model"
)

// The exact split: which candidates a faster pool keeps so that the weight
// spilled to slower pools is minimal. A group's weight is its buffers'
// Weight when they give one, else its bytes; latency-critical scratch comes
// first (its bytes are compared before any weight). The search is a
// branch-and-bound over the candidates, heaviest first: include (when the
// pool still fits), then exclude; a branch ends when the weight it can still
// keep — the candidates that fit beside its choice by max-live — cannot beat
// the best split found, which starts as the heuristic one. "Fits" is decided
// by max-live, then a heuristic plan, then the branch-and-bound engine
// (bnb.Decide), so a kept set is always packable and an excluded one was
// refuted — unless the engine ran out of effort, in which case the split is
// reported as not proven.

// Split tells how a multi-pool problem's buffers were split over the pools.
type Split struct {
	// Method is "exact" when the exact search chose every faster pool's
	// share, "heuristic" otherwise.
	Method string `json:"method"`
	// Proven is set when the spilled weight is proven minimal: fastest pool
	// first, each pool keeps the heaviest share that fits.
	Proven bool        `json:"proven"`
	Pools  []PoolShare `json:"pools"`
}

// PoolShare is one pool's part of a split.
type PoolShare struct {
	Name    string `json:"name"`
	Buffers int    `json:"buffers"`
	Bytes   int64  `json:"bytes"`
	// SpilledWeight is the weight of the candidates of this pool that did
	// not fit and moved on to slower pools (weights, or bytes when a buffer
	// gives none).
	SpilledWeight float64 `json:"spilled_weight"`
}

// maxExactSplit bounds the candidates of a pool the exact split searches
// (2^n subsets in the worst case); maxSplitDecisions bounds its fit tests.
// splitDecideLimit bounds one decision.
const (
	maxExactSplit     = 24
	maxSplitDecisions = 20000
	splitDecideLimit  = 2 * time.Second
	splitTimeout      = 30 * time.Second // the whole split when Options.TimeLimit is 0
)

// value is what keeping a group in a faster pool is worth, compared
// lexicographically: latency-critical bytes first, then weight.
type value struct {
	critical int64
	weight   float64
}

func (v value) add(w value) value { return value{v.critical + w.critical, v.weight + w.weight} }

// better reports v > w (weights within a relative 1e-9 count as equal).
func (v value) better(w value) bool {
	if v.critical != w.critical {
		return v.critical > w.critical
	}
	return v.weight > w.weight+1e-9*max(1, w.weight)
}

func (g *group) value() value {
	v := value{weight: g.weight}
	if g.critical {
		v.critical = g.size
	}
	return v
}

// exactSplit searches the share of cand that pool keeps (beside the fixed
// groups) with the most value; incumbent (a subset of cand that fits) is the
// split to beat. It reports whether the result is proven best.
func (s *solver) exactSplit(ctx context.Context, pool model.Pool, fixed, cand, incumbent []*group) (take, rest []*group, proven bool) {
	n := len(cand)
	if n > maxExactSplit {
		return incumbent, without(cand, incumbent), false
	}
	cs := slices.Clone(cand)
	slices.SortStableFunc(cs, func(a, b *group) int {
		switch va, vb := a.value(), b.value(); {
		case va.better(vb):
			return -1
		case vb.better(va):
			return 1
		}
		return 0
	})
	var bestMask uint32
	var best value
	for k, g := range cs {
		if slices.Contains(incumbent, g) {
			bestMask |= 1 << k
			best = best.add(g.value())
		}
	}
	known := map[uint32]bool{bestMask: true}
	proven = true
	decisions := 0
	members := func(mask uint32) []*group {
		out := slices.Clone(fixed)
		for k := range n {
			if mask&(1<<k) != 0 {
				out = append(out, cs[k])
			}
		}
		return out
	}
	fits := func(mask uint32) bool {
		if ok, seen := known[mask]; seen {
			return ok
		}
		gs := members(mask)
		ok := maxLiveWithin(gs, pool.Capacity)
		if ok {
			decisions++
			ok = s.packs(ctx, pool, gs, &proven)
		}
		known[mask] = ok
		return ok
	}
	var dfs func(k int, mask uint32, kept value)
	dfs = func(k int, mask uint32, kept value) {
		if k == n {
			if kept.better(best) {
				best, bestMask = kept, mask
			}
			return
		}
		if ctx.Err() != nil || decisions >= maxSplitDecisions {
			proven = false
			return
		}
		// What this branch can still keep: the remaining candidates that
		// fit beside its choice by max-live.
		ub := kept
		base := members(mask)
		for j := k; j < n; j++ {
			if maxLiveWithin(append(base[:len(base):len(base)], cs[j]), pool.Capacity) {
				ub = ub.add(cs[j].value())
			}
		}
		if !ub.better(best) {
			return
		}
		if with := mask | 1<<k; fits(with) {
			dfs(k+1, with, kept.add(cs[k].value()))
		}
		dfs(k+1, mask, kept)
	}
	dfs(0, 0, value{})
	s.res.Stats.engine("split_"+pool.Name, map[string]any{"candidates": n, "fit_decisions": decisions, "kept": bits.OnesCount32(bestMask), "proven": proven})
	for k, g := range cs {
		if bestMask&(1<<k) != 0 {
			take = append(take, g)
		} else {
			rest = append(rest, g)
		}
	}
	return take, rest, proven
}

// packs reports whether the groups fit the pool's capacity: a quick
// heuristic plan, else the branch-and-bound's decision. An answer the
// engine could not give (time, effort, gaps it models conservatively)
// counts as "does not fit" and clears *proven.
func (s *solver) packs(ctx context.Context, pool model.Pool, gs []*group, proven *bool) bool {
	sub, _ := subProblem(s.p, pool, gs)
	if len(sub.Buffers) == 0 {
		return true
	}
	c := s.child(sub)
	c.quick = true
	if r, err := c.heuristicOnly(ctx); err == nil && r.Plan != nil {
		return true
	}
	opt := s.opt.BnB
	opt.Threads, opt.Seed = 1, s.opt.Seed
	dctx, cancel := context.WithTimeout(ctx, splitDecideLimit)
	defer cancel()
	_, status, _, err := bnb.Decide(dctx, sub, pool.Capacity, opt)
	if err != nil || status == bnb.Unknown {
		*proven = false
		return false
	}
	return status == bnb.Feasible
}

// without returns the groups of all that are not in some.
func without(all, some []*group) []*group {
	var out []*group
	for _, g := range all {
		if !slices.Contains(some, g) {
			out = append(out, g)
		}
	}
	return out
}
