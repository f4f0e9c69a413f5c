package device

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/optalloc/optalloc/heuristics"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/solve"
	"github.com/optalloc/optalloc/verify"
)

// Simulate returns the plan the device makes of p: every buffer that is not
// online keeps its offset in plan (TFLite Micro's offline plan) and the
// online buffers are placed by TFLite Micro's greedy planner around them,
// as the runtime does (heuristics.TFLMGreedy with the offline buffers
// pinned); nil online means none. Members of alias groups are placed with
// their group.
func Simulate(ctx context.Context, p *model.Problem, online []bool, plan *model.Plan) (*model.Plan, error) {
	if online == nil {
		online = make([]bool, len(p.Buffers)) // none: every buffer offline
	}
	if len(online) != len(p.Buffers) || len(plan.Placements) != len(p.Buffers) {
		return nil, fmt.Errorf("device: %d online flags and %d placements for %d buffers", len(online), len(plan.Placements), len(p.Buffers))
	}
	q := *p
	q.Buffers = make([]model.Buffer, len(p.Buffers))
	copy(q.Buffers, p.Buffers)
	for i := range q.Buffers {
		b := &q.Buffers[i]
		if !online[i] && b.Alias == nil {
			o := plan.Placements[i].Offset
			b.Pin = &o
		}
	}
	greedy, ok := heuristics.ByName("tflm-greedy")
	if !ok {
		return nil, fmt.Errorf("device: no tflm-greedy planner")
	}
	d, err := greedy.Plan(ctx, &q)
	if err != nil {
		return nil, err
	}
	for i := range p.Buffers {
		if !online[i] && d.Placements[i].Offset != plan.Placements[i].Offset {
			return nil, fmt.Errorf("device: offline buffer %q moved from %d to %d (a bug)", p.Buffers[i].ID, plan.Placements[i].Offset, d.Placements[i].Offset)
		}
	}
	return d, nil
}

// Outcome says how the device's plan was chosen.
type Outcome struct {
	// Head is the device's arena head with the plan returned: the offline
	// buffers at their offsets, the online ones where the runtime puts
	// them.
	Head int64
	// JointPeak is the peak of the solver's plan of every buffer together
	// (the online ones where optalloc would put them).
	JointPeak int64
	// TFLMHead is the head TFLite Micro's own planner makes of the same
	// buffer list (no offline plan).
	TFLMHead int64
	// Candidate names the layout kept: "joint", "mirror", "tflm-greedy" or
	// the planner whose layout won.
	Candidate string
	// Fallback is true when TFLite Micro's own plan is kept because every
	// optalloc layout gave a larger head.
	Fallback bool
	// Online counts the buffers the runtime places.
	Online int
}

// SolveTFLM plans p for TFLite Micro, online[i] marking the buffers the
// runtime places itself (kernel scratch): see the package comment. The
// result's plan is the device's, its Peak the device's head, its
// LowerBound the joint problem's, and its Status optimal only when the head
// meets that bound. Without online buffers (online nil or all false) the
// head is the joint plan's peak.
func SolveTFLM(ctx context.Context, p *model.Problem, online []bool, opt solve.Options) (*solve.Result, *Outcome, error) {
	if online == nil {
		online = make([]bool, len(p.Buffers)) // none
	}
	if len(online) != len(p.Buffers) {
		return nil, nil, fmt.Errorf("device: %d online flags for %d buffers", len(online), len(p.Buffers))
	}
	res, err := solve.Solve(ctx, p, opt)
	if err != nil || res.Plan == nil {
		return res, nil, err
	}
	out := &Outcome{JointPeak: res.Peak}
	for i, on := range online {
		if on && p.Buffers[i].Size > 0 {
			out.Online++
		}
	}
	// The candidates: the joint plan, its mirror image (the same peak; the
	// greedy may fit the online buffers better around it), TFLite Micro's
	// own plan. The first with the smallest head wins.
	greedy, _ := heuristics.ByName("tflm-greedy")
	own, err := greedy.Plan(context.WithoutCancel(ctx), p)
	if err != nil {
		return nil, nil, err
	}
	cands := []Candidate{{"joint", res.Plan}}
	if out.Online > 0 {
		if m := mirror(p, res.Plan); m != nil {
			cands = append(cands, Candidate{"mirror", m})
		}
	}
	cands = append(cands, Candidate{"tflm-greedy", own})
	r, err := choose(ctx, p, online, res, cands, opt.Capacity, out)
	if err != nil || r.Plan == nil || r.Peak <= r.LowerBound || len(p.Buffers) > maxPlannerCandidates {
		return r, out, err
	}
	// The head is above the bound: every planner's joint layout is a
	// candidate too (a layout the greedy replays well may come from any).
	bctx, cancel := context.WithTimeout(ctx, candidateBudget(opt.TimeLimit))
	for _, name := range heuristics.Names() {
		if slices.Contains(heuristics.Searching, name) || bctx.Err() != nil {
			continue
		}
		pl, _ := heuristics.ByName(name)
		plan, err := pl.Plan(bctx, p)
		if err == nil && plan != nil {
			cands = append(cands, Candidate{name, plan})
		}
	}
	cancel()
	again := &Outcome{JointPeak: out.JointPeak, Online: out.Online}
	r2, err := choose(ctx, p, online, res, cands, opt.Capacity, again)
	if err != nil {
		return nil, nil, err
	}
	return r2, again, nil
}

// maxPlannerCandidates bounds the problems whose every planner's layout is
// tried when the head stays above the bound (TFLite Micro models have
// hundreds of buffers; the planners run in milliseconds there).
const maxPlannerCandidates = 5000

// candidateBudget is the time the planners' layouts may take together: a
// tenth of the time limit, between 50 ms and 1 s (1 s without a limit), so
// that --time-limit still holds.
func candidateBudget(limit time.Duration) time.Duration {
	if limit <= 0 {
		return time.Second
	}
	return min(max(limit/10, 50*time.Millisecond), time.Second)
}

// Candidate is a layout of the offline buffers to replay: "joint" (the
// solver's), "mirror", "tflm-greedy" (TFLite Micro's own) or a planner's
// name.
type Candidate struct {
	Name string
	Plan *model.Plan
}

// choose replays the online placement around each candidate and returns
// res with the device's plan of the first candidate of the smallest head;
// "tflm-greedy" is TFLite Micro's own plan (the fallback).
func choose(ctx context.Context, p *model.Problem, online []bool, res *solve.Result, cands []Candidate, capacity int64, out *Outcome) (*solve.Result, error) {
	var best *model.Plan
	for _, c := range cands {
		d, err := Simulate(context.WithoutCancel(ctx), p, online, c.Plan)
		if err != nil {
			return nil, err
		}
		if vs := verify.Check(p, d); len(vs) > 0 {
			if c.Name != "joint" && c.Name != "tflm-greedy" {
				continue // a mirror image can break alignment; a candidate is optional
			}
			return nil, fmt.Errorf("internal error: the device's plan from the %s layout is rejected by the verifier: %v; please report it", c.Name, vs[0])
		}
		h := d.Peak(p)
		if c.Name == "tflm-greedy" {
			out.TFLMHead = h
		}
		if best == nil || h < out.Head {
			best, out.Head, out.Candidate = d, h, c.Name
		}
	}
	out.Fallback = out.Candidate == "tflm-greedy"
	r := *res
	r.Plan = best
	if capacity > 0 && out.Head > capacity {
		// The joint plan fits, the device's arena does not: no plan
		// within the capacity, the device's as the best above it.
		r.Plan, r.Best, r.Status = nil, best, solve.Unknown
		r.Reason = fmt.Sprintf("the tensors and scratch fit %d together, but TFLite Micro's online placement of the scratch needs %d", capacity, out.Head)
	}
	r.Derive(p)
	if out.Fallback {
		r.Method = "tflm-greedy"
	}
	return &r, nil
}

// mirror returns plan upside down (offset' = peak - offset - size), nil
// when a buffer is pinned or aliased (its offset cannot move).
func mirror(p *model.Problem, plan *model.Plan) *model.Plan {
	if len(p.PoolList()) > 1 {
		return nil
	}
	peak := plan.Peak(p)
	m := &model.Plan{Placements: make([]model.Placement, len(plan.Placements))}
	for i, pl := range plan.Placements {
		if b := &p.Buffers[i]; b.Pin != nil || b.Alias != nil {
			return nil
		}
		pl.Offset = peak - pl.Offset - pl.Size
		m.Placements[i] = pl
	}
	return m
}
