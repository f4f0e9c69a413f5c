package blocks

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/verify"
)

// Take says that a buffer starts and occupies a block from byte Offset (its
// alias delta inside the block; 0 for a buffer without alias).
type Take struct {
	Buffer string `json:"buffer"`
	Block  int    `json:"block"`
	Offset int64  `json:"offset"`
	Size   int64  `json:"size"`
}

// Release says that a block returns to the free list: the buffer (alias
// group) Holder that held it has ended.
type Release struct {
	Block  int    `json:"block"`
	Holder string `json:"holder"`
}

// Step is what a runtime does at one time: first the releases, then the
// retires (blocks never used again, which it may free), then the new blocks
// (created at their final size), then the takes. Lifetimes are half-open, so
// a block released at t can be taken again at t.
type Step struct {
	Time    int64     `json:"time"`
	Release []Release `json:"release,omitempty"`
	Retire  []int     `json:"retire,omitempty"`
	New     []Block   `json:"new,omitempty"`
	Take    []Take    `json:"take,omitempty"`
}

// Schedule is a replayable allocation schedule of a block plan.
//
// Its rules (seed 002's, for a plan computed offline): a block is created
// ("new") at the first time a buffer takes it, at its final size, and
// "retired" after its last buffer ends; a block is "released" when the
// buffer or alias group holding it ends, and only a released block is taken
// again. NewBlocksWhileFree counts the new blocks created while a released
// block was free: 0 means the plan also obeys the online rule "create a
// block only when none is free" (greedy_in_order always does; a cheaper
// plan may reserve a free block for a later, larger buffer).
type Schedule struct {
	Blocks             []Block `json:"blocks"`
	TotalBytes         int64   `json:"total_bytes"`
	MaxBlocksLive      int     `json:"max_blocks_held"`
	NewBlocksWhileFree int     `json:"new_blocks_while_free"`
	Steps              []Step  `json:"steps"`
	// Models is the per-model view when buffer ids are qualified
	// "model/tensor" (nil otherwise).
	Models []ModelView `json:"models,omitempty"`
}

// NewSchedule builds the schedule of a block plan for p. The plan is checked
// with verify.BlockCheck first; an invalid plan is an error. Buffers without
// a block (size 0) do not appear.
func NewSchedule(p *model.Problem, bp *BlockPlan) (*Schedule, error) {
	in, err := prepare(p)
	if err != nil {
		return nil, err
	}
	if bp == nil {
		return nil, fmt.Errorf("blocks: schedule of a nil plan")
	}
	if v := verify.BlockCheck(p, bp.Sizes(), bp.Assign); len(v) > 0 {
		return nil, fmt.Errorf("blocks: the plan is invalid: %s", v[0].Msg)
	}
	s := &Schedule{Blocks: append([]Block(nil), bp.Blocks...), TotalBytes: bp.TotalBytes()}
	steps := map[int64]*Step{}
	step := func(t int64) *Step {
		st, ok := steps[t]
		if !ok {
			st = &Step{Time: t}
			steps[t] = st
		}
		return st
	}
	first := make([]int64, len(bp.Blocks))
	last := make([]int64, len(bp.Blocks))
	used := make([]bool, len(bp.Blocks))
	for u := range in.units {
		un := &in.units[u]
		b := bp.Assign[un.root]
		if !used[b] || un.start < first[b] {
			first[b] = un.start
		}
		if !used[b] || un.end > last[b] {
			last[b] = un.end
		}
		used[b] = true
		st := step(un.end)
		st.Release = append(st.Release, Release{Block: b, Holder: p.Buffers[un.root].ID})
		for _, i := range in.members[u] {
			if bp.Assign[i] >= 0 {
				bi := &p.Buffers[i]
				st := step(bi.Start)
				st.Take = append(st.Take, Take{Buffer: bi.ID, Block: b, Offset: in.delta[i], Size: bi.Size})
			}
		}
	}
	for b := range bp.Blocks {
		if used[b] {
			step(first[b]).New = append(step(first[b]).New, bp.Blocks[b])
			step(last[b]).Retire = append(step(last[b]).Retire, b)
		}
	}
	for _, st := range steps {
		slices.SortFunc(st.Release, func(a, b Release) int { return a.Block - b.Block })
		slices.Sort(st.Retire)
		slices.SortFunc(st.New, func(a, b Block) int { return a.ID - b.ID })
		slices.SortFunc(st.Take, func(a, b Take) int {
			if a.Block != b.Block {
				return a.Block - b.Block
			}
			return strings.Compare(a.Buffer, b.Buffer)
		})
		s.Steps = append(s.Steps, *st)
	}
	slices.SortFunc(s.Steps, func(a, b Step) int { return cmp.Compare(a.Time, b.Time) })
	s.countRules()
	s.Models = s.models()
	return s, nil
}

// countRules fills MaxBlocksLive and NewBlocksWhileFree by replaying.
func (s *Schedule) countRules() {
	held := map[int]bool{}
	free := 0
	for _, st := range s.Steps {
		for _, r := range st.Release {
			delete(held, r.Block)
		}
		free += len(st.Release) - len(st.Retire)
		newHere := map[int]bool{}
		for _, b := range st.New {
			newHere[b.ID] = true
		}
		for _, t := range st.Take {
			if held[t.Block] {
				continue
			}
			held[t.Block] = true
			if !newHere[t.Block] {
				free--
			}
		}
		if free > 0 { // blocks still free after this step's takes
			s.NewBlocksWhileFree += min(free, len(st.New))
		}
		s.MaxBlocksLive = max(s.MaxBlocksLive, len(held))
	}
}

// Events flattens the schedule into the verifier's event list, in replay
// order.
func (s *Schedule) Events() []verify.BlockEvent {
	var ev []verify.BlockEvent
	for _, st := range s.Steps {
		for _, r := range st.Release {
			ev = append(ev, verify.BlockEvent{Time: st.Time, Op: "release", Block: r.Block, Buffer: r.Holder})
		}
		for _, b := range st.Retire {
			ev = append(ev, verify.BlockEvent{Time: st.Time, Op: "retire", Block: b})
		}
		for _, b := range st.New {
			ev = append(ev, verify.BlockEvent{Time: st.Time, Op: "new", Block: b.ID, Size: b.Size})
		}
		for _, t := range st.Take {
			ev = append(ev, verify.BlockEvent{Time: st.Time, Op: "take", Block: t.Block, Buffer: t.Buffer, Size: t.Size, Offset: t.Offset})
		}
	}
	return ev
}

// Verify replays the schedule against p and bp with the independent checker.
func (s *Schedule) Verify(p *model.Problem, bp *BlockPlan) []verify.BlockViolation {
	return verify.BlockCheckSchedule(p, bp.Sizes(), bp.Assign, s.Events())
}
