package heuristics

import (
	"context"
	"math/rand/v2"

	"github.com/optalloc/optalloc/model"
)

func init() {
	Register(&Skyline{})
}

// Skyline packs bottom-up on a skyline over time: every step it places,
// of all unplaced items, the one that can sit lowest on the current
// skyline (with Waste: the one that leaves the least hole area under it,
// relative to its own area — measured much worse, kept as a knob), ties
// going to the larger area; the skyline rises to the item's top over its
// lifetime. Holes under the skyline are never reused, so the plan is a
// stack; it is strong where lifetimes nest (accelerator traces). Pinned
// items are obstacles: an item sits on the skyline when that clears the
// pins of its lifetime, else just above the pins in its way. An alias
// group or a gapped buffer counts as its bounding rectangle (the skyline
// planners do not use exact footprints). It costs
// O(n²) (O(n · Σ lifetime ranks) with Waste); above MaxWork (default 1e7,
// about 3 000 items) it falls back to greedy-size.
type Skyline struct {
	Waste   bool
	MaxWork float64
	// Tie selects the tie-break among items that sit equally low: "area"
	// (default), "size" or "lifetime".
	Tie string
	// rnd, when set, picks the runner-up instead of the best with
	// probability eps (randomised restarts).
	rnd func() float64
	eps float64
}

// Name implements Planner.
func (s *Skyline) Name() string {
	if s.Waste {
		return "skyline-waste"
	}
	return "skyline"
}

// Plan implements Planner.
func (s *Skyline) Plan(ctx context.Context, p *model.Problem) (*model.Plan, error) {
	return perPool(ctx, p, s.plan)
}

func (s *Skyline) plan(ctx context.Context, its []item) ([]int64, error) {
	off, _, err := s.order(ctx, its)
	if off == nil && err == nil {
		return (&BestFit{Order: "size"}).planItems(ctx, its, 0)
	}
	return off, err
}

// order runs the skyline and returns the offsets and the order in which
// the items were placed; nil, nil, nil when the work would exceed MaxWork.
func (s *Skyline) order(ctx context.Context, its []item) ([]int64, []int32, error) {
	rs, re := timeRanks(its)
	limit := s.MaxWork
	if limit <= 0 {
		limit = 1e7
	}
	n := len(its)
	work := float64(n) * float64(n)
	var sky []int64
	if s.Waste {
		var w float64
		for k := range its {
			w += float64(re[k] - rs[k])
		}
		work = w * float64(n)
		T := 0
		for _, e := range re {
			T = max(T, int(e))
		}
		sky = make([]int64, T+1)
	}
	if work > limit {
		return nil, nil, nil
	}
	var seq []int32
	off := make([]int64, n)
	done := make([]bool, n)
	raw := make([]int64, n) // the skyline's height over each item's lifetime
	rise := func(b int, top int64) {
		for k := range its {
			if !done[k] && rs[k] < re[b] && rs[b] < re[k] {
				raw[k] = max(raw[k], top)
			}
		}
		for t := rs[b]; sky != nil && t < re[b]; t++ {
			sky[t] = max(sky[t], top)
		}
	}
	left := 0
	// Pinned items are obstacles, not part of the skyline: an item sits at
	// the skyline if that clears every pin of its lifetime, else just above
	// the pins in the way, so the room below and between pins is used.
	for k := range its {
		if its[k].pin >= 0 {
			off[k], done[k] = its[k].pin, true
		} else if its[k].size == 0 {
			off[k], done[k] = its[k].up(0), true
		} else {
			left++
		}
	}
	pins := pinsInLifetimes(its, rs, re)
	var seen, cleared []int64 // cleared[k]: clearPins' answer at skyline height seen[k] (-1: none yet)
	if pins != nil {
		seen, cleared = make([]int64, n), make([]int64, n)
		for k := range seen {
			seen[k] = -1
		}
	}
	for ; left > 0; left-- {
		if left&63 == 0 && ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		best, second := -1, -1
		var bh, sh int64
		var bw, sw float64
		for k := range its {
			if done[k] {
				continue
			}
			h := its[k].up(raw[k])
			if pins != nil {
				if seen[k] != raw[k] {
					seen[k], cleared[k] = raw[k], clearPins(its, k, h, pins[k])
				}
				h = cleared[k]
			}
			w := float64(h)
			if s.Waste {
				var hole int64
				for t := rs[k]; t < re[k]; t++ {
					hole += h - sky[t]
				}
				w = float64(hole) / float64(its[k].size*int64(re[k]-rs[k]))
			}
			if best < 0 || w < bw || (w == bw && (h < bh || (h == bh && s.tie(&its[k], &its[best])))) {
				second, sh, sw = best, bh, bw
				best, bh, bw = k, h, w
			} else if second < 0 || w < sw || (w == sw && (h < sh || (h == sh && s.tie(&its[k], &its[second])))) {
				second, sh, sw = k, h, w
			}
		}
		if s.rnd != nil && second >= 0 && s.rnd() < s.eps {
			best, bh = second, sh
		}
		off[best], done[best] = bh, true
		seq = append(seq, int32(best))
		rise(best, bh+its[best].size)
	}
	return off, seq, nil
}

// pinsInLifetimes returns, for every free item, the pinned items (of
// non-zero size) live at some time of its lifetime; nil without pins.
func pinsInLifetimes(its []item, rs, re []int32) [][]int {
	var pinned []int
	for k := range its {
		if its[k].pin >= 0 && its[k].size > 0 {
			pinned = append(pinned, k)
		}
	}
	if len(pinned) == 0 {
		return nil
	}
	out := make([][]int, len(its))
	for k := range its {
		if its[k].pin >= 0 {
			continue
		}
		for _, q := range pinned {
			if rs[q] < re[k] && rs[k] < re[q] {
				out[k] = append(out[k], q)
			}
		}
	}
	return out
}

// clearPins returns the lowest offset ≥ h (on item k's alignment) at which
// k overlaps none of the pinned items pins.
func clearPins(its []item, k int, h int64, pins []int) int64 {
	for moved := true; moved; {
		moved = false
		for _, q := range pins {
			if h < its[q].pin+its[q].size && its[q].pin < h+its[k].size {
				h, moved = its[k].up(its[q].pin+its[q].size), true
			}
		}
	}
	return h
}

func (s *Skyline) tie(a, b *item) bool {
	switch s.Tie {
	case "size":
		return a.size > b.size
	case "lifetime":
		return a.end-a.start > b.end-b.start
	}
	return area(a) > area(b)
}

func area(it *item) float64 { return float64(it.size) * float64(it.end-it.start) }

func init() {
	Register(&SkylineRandom{Seed: 1})
}

// SkylineRandom restarts the skyline with random choices: at every step it
// takes the runner-up instead of the lowest item with probability Eps, and
// restarts alternate the tie-break between lifetime and area. It keeps the
// best plan. The first two restarts are the plain skylines (no randomness).
// Deterministic for a given Seed; the number of restarts is capped by
// Restarts and by the work budget (the same measure as Skyline.MaxWork).
type SkylineRandom struct {
	Seed int64
	// Restarts caps the restarts; 0 means 1000.
	Restarts int
	// Eps is the probability of taking the runner-up; 0 means 0.15.
	Eps float64
	// Budget caps the total work (n² per restart); 0 means 2e8 scaled by
	// min(1, (1000/n)²), so that large instances get a single restart. Over
	// Skyline's MaxWork for one run it falls back to greedy-size.
	Budget float64
}

// Name implements Planner.
func (s *SkylineRandom) Name() string { return "skyline-random" }

// WithSeed implements Seeded.
func (s *SkylineRandom) WithSeed(seed int64) Planner {
	c := *s
	c.Seed = seed
	return &c
}

// Plan implements Planner.
func (s *SkylineRandom) Plan(ctx context.Context, p *model.Problem) (*model.Plan, error) {
	return perPool(ctx, p, s.plan)
}

func (s *SkylineRandom) plan(ctx context.Context, its []item) ([]int64, error) {
	restarts, eps, budget := s.Restarts, s.Eps, s.Budget
	if restarts <= 0 {
		restarts = 1000
	}
	if eps == 0 {
		eps = 0.15
	}
	if budget <= 0 {
		budget = scaledBudget(2e8, len(its))
	}
	work := float64(len(its)) * float64(len(its))
	if hasPins(its) {
		work *= pinnedWork // pins cost a check per candidate position
	}
	lb := maxLive(its)
	rng := rand.New(rand.NewPCG(uint64(s.Seed), 0x5851f42d4c957f2d))
	var best []int64
	bestPeak := int64(-1)
	for r := 0; r < restarts && (r == 0 || budget >= work) && bestPeak != lb; r++ {
		budget -= work
		sk := &Skyline{Tie: "lifetime"}
		if r%2 == 1 {
			sk.Tie = "area"
		}
		if r >= 2 {
			sk.rnd, sk.eps = rng.Float64, eps
		}
		off, _, err := sk.order(ctx, its)
		if err != nil {
			if best != nil {
				break
			}
			return nil, err
		}
		if off == nil { // too much work for even one run
			return (&BestFit{Order: "size"}).planItems(ctx, its, 0)
		}
		if pk := peakOf(its, off); bestPeak < 0 || pk < bestPeak {
			best, bestPeak = off, pk
		}
	}
	return best, nil
}

// pinnedWork is how much more a skyline run costs with pins (measured on
// MiniMalloc J with a fifth of its buffers pinned: 2.5-3× the time).
const pinnedWork = 3

// scaledBudget is the default work budget of the improvement passes: base
// on instances of up to 1000 items, shrinking as (1000/n)² above, so that
// the passes cost about one greedy run on instances of thousands of items.
func scaledBudget(base float64, n int) float64 {
	if n <= 1000 {
		return base
	}
	r := 1000 / float64(n)
	return base * r * r
}
