package blocks

import (
	"cmp"
	"context"
	"slices"

	"github.com/optalloc/optalloc/model"
)

// EqualSlots plans one temporary area of n equal slots: every block has
// the size of the largest buffer (alias group), and the buffers take slots
// as greedy_in_order gives them, so n is the smallest count any plan needs
// (MinBlocks) whenever greedy_in_order reaches it — always, as it opens a
// block only when none is free. For runtimes whose pool hands out blocks
// of one size.
type EqualSlots struct {
	MaxBlocks int // 0 = unbounded
}

// Name implements Planner.
func (*EqualSlots) Name() string { return "equal_slots" }

// Plan implements Planner.
func (s *EqualSlots) Plan(ctx context.Context, p *model.Problem) (*BlockPlan, error) {
	bp, err := (&GreedyInOrder{MaxBlocks: s.MaxBlocks}).Plan(ctx, p)
	if err != nil {
		return nil, err
	}
	var size int64
	for _, b := range bp.Blocks {
		size = max(size, b.Size)
	}
	for k := range bp.Blocks {
		bp.Blocks[k].Size = size
	}
	return bp, nil
}

// StepCount is a run of time steps [Start, End) during which Blocks blocks
// hold a live buffer.
type StepCount struct {
	Start  int64 `json:"start"`
	End    int64 `json:"end"`
	Blocks int   `json:"blocks"`
}

// InUse returns, over the whole timeline, how many blocks of the plan hold
// a live buffer at each time step, as runs of equal counts (its largest
// count is the plan's block count at its busiest; MinBlocks is the least
// any plan can need there).
func (bp *BlockPlan) InUse(p *model.Problem) []StepCount {
	type event struct {
		t     int64
		block int
		d     int
	}
	var ev []event
	for i := range p.Buffers {
		if k := bp.Assign[i]; k >= 0 {
			b := &p.Buffers[i]
			ev = append(ev, event{b.Start, k, +1}, event{b.End, k, -1})
		}
	}
	slices.SortFunc(ev, func(a, b event) int {
		if c := cmp.Compare(a.t, b.t); c != 0 {
			return c
		}
		return cmp.Compare(a.d, b.d) // ends first: lifetimes are half-open
	})
	live := make([]int, len(bp.Blocks))
	var out []StepCount
	busy := 0
	for n := 0; n < len(ev); {
		t := ev[n].t
		for ; n < len(ev) && ev[n].t == t; n++ {
			e := ev[n]
			was := live[e.block] > 0
			live[e.block] += e.d
			if now := live[e.block] > 0; now != was {
				busy += e.d
			}
		}
		if len(out) > 0 {
			out[len(out)-1].End = t
		}
		if len(out) == 0 || out[len(out)-1].Blocks != busy {
			out = append(out, StepCount{Start: t, Blocks: busy})
		}
	}
	// the last run starts at the last end: nothing is live from there on
	return out[:max(len(out)-1, 0)]
}
