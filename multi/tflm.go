package multi

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/optalloc/optalloc/device"
	"github.com/optalloc/optalloc/heuristics"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/solve"
	"github.com/optalloc/optalloc/verify"
)

// TFLMOutcome says how the shared arena of several TFLite Micro models on
// one MicroAllocator was chosen.
type TFLMOutcome struct {
	// Head is the shared head: TFLite Micro reserves the largest head any
	// model's plan needs (MicroAllocator's max_head_buffer_usage_), and
	// every model's offsets start at the arena's start.
	Head int64
	// ModelHeads[k] is model k's own head in the plan returned (the end
	// of its highest buffer).
	ModelHeads []int64
	// OwnHeads[k] is the head TFLite Micro's own planner makes of model k
	// (no offline plan).
	OwnHeads []int64
	// OwnShared is TFLite Micro's own planner on one allocator: every
	// model's head from the arena's start, the largest reserved
	// (max OwnHeads). It is safe only when no two models run at the same
	// time; OwnSafe is its figure with the models of a concurrent stage
	// kept apart (one allocator each: the sum of their heads).
	OwnShared, OwnSafe int64
	// Candidate names the layout kept: "joint" (the combined plan, the
	// runtime's scratch placement replayed per model), "stacked" (each
	// model's own best device plan, concurrent models stacked) or
	// "tflm-greedy" (TFLite Micro's own offsets).
	Candidate string
	// Rejected counts candidate layouts dropped because the runtime's
	// per-model scratch placement made two concurrent models share bytes.
	Rejected int
}

// SolveTFLM plans several TFLite Micro models that share one
// MicroAllocator. TFLite Micro plans each model on its own when its
// interpreter allocates: the tensors at their offline offsets, the kernel
// scratch buffers (c.Online) placed by its greedy planner around that
// model's own tensors only, every offset from the arena's start; the head
// reserved is the largest model's. The plan returned has every buffer
// where the runtime puts it; it is verified on the combined problem, so
// that models running at the same time never share bytes, and its peak is
// the shared head. Its lower bound is the combined problem's.
//
// Candidates: the combined plan (scratch replayed per model), each model's
// best device plan (device.SolveTFLM) with the models of a concurrent stage
// stacked (those with scratch first: TFLite Micro may put a model's scratch
// at any byte its own tensors leave free, so only the lowest model of a
// stage can have scratch safely) when there are no handoffs, and TFLite
// Micro's own offsets when no stage is concurrent and there are no
// handoffs. The smallest verified head wins.
func SolveTFLM(ctx context.Context, c *Combined, opt solve.Options) (*solve.Result, *TFLMOutcome, error) {
	if opt.Capacity > 0 {
		return nil, nil, fmt.Errorf("several models: --capacity is not supported; the shared arena is minimised")
	}
	n := len(c.Models)
	out := &TFLMOutcome{ModelHeads: make([]int64, n), OwnHeads: make([]int64, n)}
	greedy, _ := heuristics.ByName("tflm-greedy")
	own := make([]*model.Plan, n)
	for k, m := range c.Models {
		pl, err := greedy.Plan(context.WithoutCancel(ctx), m.Problem)
		if err != nil {
			return nil, nil, err
		}
		own[k], out.OwnHeads[k] = pl, pl.Peak(m.Problem)
		out.OwnShared = max(out.OwnShared, out.OwnHeads[k])
	}
	for _, st := range c.Schedule.Stages {
		var sum int64
		for _, k := range st {
			sum += out.OwnHeads[k]
		}
		out.OwnSafe = max(out.OwnSafe, sum)
	}
	// Each model alone: the best device plan TFLite Micro can be given.
	start := time.Now()
	per := opt
	if opt.TimeLimit > 0 {
		per.TimeLimit = max(opt.TimeLimit/time.Duration(2*n), time.Millisecond)
	}
	alone := make([]*model.Plan, n)
	for k, m := range c.Models {
		r, _, err := device.SolveTFLM(ctx, m.Problem, m.Online, per)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", m.Name, err)
		}
		if r.Plan == nil {
			return nil, nil, fmt.Errorf("%s: no plan found", m.Name)
		}
		alone[k] = r.Plan
	}
	joint := opt
	if opt.TimeLimit > 0 {
		joint.TimeLimit = max(opt.TimeLimit-time.Since(start), time.Millisecond)
	}
	res, err := solve.Solve(ctx, c.Problem, joint)
	if err != nil {
		return nil, nil, err
	}
	type cand struct {
		name string
		plan *model.Plan
	}
	var cands []cand
	if res.Plan != nil {
		d, err := c.replay(ctx, c.Split(res.Plan))
		if err != nil {
			return nil, nil, err
		}
		cands = append(cands, cand{"joint", d})
	}
	concurrent := slices.ContainsFunc(c.Schedule.Stages, func(st []int) bool { return len(st) > 1 })
	if len(c.Handoffs) == 0 {
		d, err := c.replay(ctx, c.stack(alone))
		if err != nil {
			return nil, nil, err
		}
		cands = append(cands, cand{"stacked", d})
		if !concurrent {
			d, err := c.replay(ctx, own)
			if err != nil {
				return nil, nil, err
			}
			cands = append(cands, cand{"tflm-greedy", d})
		}
	}
	var best *model.Plan
	for _, cd := range cands {
		if vs := verify.Check(c.Problem, cd.plan); len(vs) > 0 {
			out.Rejected++
			continue
		}
		if h := cd.plan.Peak(c.Problem); best == nil || h < out.Head {
			best, out.Head, out.Candidate = cd.plan, h, cd.name
		}
	}
	if best == nil && !concurrent {
		return nil, nil, fmt.Errorf("TFLite Micro places each model's kernel scratch buffers itself, in the bytes that model's own tensors leave free: a model run between the two ends of a handoff puts its scratch where the handoff's buffer waits (%d layouts tried); run that model before or after both", out.Rejected)
	}
	if best == nil {
		return nil, nil, fmt.Errorf("TFLite Micro places each model's kernel scratch buffers itself, in the bytes that model's own tensors leave free: with these models running at the same time no layout keeps their scratch apart (%d layouts tried); run them in separate stages, or give the models with scratch a stage of their own", out.Rejected)
	}
	for k, pl := range c.Split(best) {
		out.ModelHeads[k] = pl.Peak(c.Models[k].Problem)
	}
	r := *res
	r.Plan = best
	r.Derive(c.Problem)
	if out.Candidate != "joint" {
		r.Method = out.Candidate
	}
	return &r, out, nil
}

// replay places each model's online buffers as TFLite Micro does, around
// that model's offline buffers at their offsets in plans, and returns the
// combined plan.
func (c *Combined) replay(ctx context.Context, plans []*model.Plan) (*model.Plan, error) {
	dev := make([]*model.Plan, len(plans))
	for k, m := range c.Models {
		d, err := device.Simulate(context.WithoutCancel(ctx), m.Problem, m.Online, plans[k])
		if err != nil {
			return nil, err
		}
		dev[k] = d
	}
	return c.Join(dev), nil
}

// stack moves each model's plan so that the models of a concurrent stage
// lie one above another (those with online buffers lowest, then in stage
// order).
func (c *Combined) stack(plans []*model.Plan) []*model.Plan {
	moved := slices.Clone(plans)
	for _, st := range c.Schedule.Stages {
		order := slices.Clone(st)
		slices.SortStableFunc(order, func(x, y int) int {
			return boolInt(!hasOnline(c.Models[x])) - boolInt(!hasOnline(c.Models[y]))
		})
		var base int64
		for _, k := range order {
			// Above the models below, at an offset every alignment of
			// this model divides.
			a := int64(1)
			for i := range c.Models[k].Problem.Buffers {
				a = model.LCM(a, c.Models[k].Problem.Buffers[i].Alignment())
			}
			base = (base + a - 1) / a * a
			p := &model.Plan{Placements: slices.Clone(plans[k].Placements)}
			for i := range p.Placements {
				p.Placements[i].Offset += base
			}
			moved[k] = p
			base = p.Peak(c.Models[k].Problem)
		}
	}
	return moved
}

func hasOnline(m Model) bool { return slices.Contains(m.Online, true) }

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
