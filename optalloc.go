package optalloc

import (
	"context"
	"fmt"

	"github.com/optalloc/optalloc/device"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/solve"
)

// Options control Plan: solve.Options (method, capacity, time limit,
// threads, seed, …) and how a runtime's own buffers are treated.
type Options struct {
	solve.Options
	// MethodOnly, for an input whose runtime places buffers itself, plans
	// with the method alone and replays the runtime's placement around its
	// plan (device.Simulate): the arena that method gives the device, what
	// compare measures. By default (and always for method auto) Plan keeps
	// the best device arena of several layouts, TFLite Micro's own plan
	// among them (device.SolveTFLM), as optalloc plan does.
	MethodOnly bool
}

// Result is a plan with how the device's arena was chosen.
type Result struct {
	*solve.Result
	// Device says how the device's arena was chosen; nil unless the
	// runtime places buffers itself.
	Device *device.Outcome
}

// ErrUnknownMethod is wrapped by Plan's error for a method that no engine
// or planner answers to (errors.Is): bad usage, not a failure.
var ErrUnknownMethod = solve.ErrUnknownMethod

// Plan plans in.Problem with opt: the device's arena when the runtime
// places some buffers itself (Input.Online), solve.Solve otherwise. A plan
// in the result has passed verify.Check.
func Plan(ctx context.Context, in *Input, opt Options) (*Result, error) {
	p := in.Problem
	on := in.Online()
	if on == nil {
		r, err := solve.Solve(ctx, p, opt.Options)
		if err != nil {
			return nil, err
		}
		return &Result{Result: r}, nil
	}
	if !opt.MethodOnly || opt.Method == "" || opt.Method == "auto" {
		r, out, err := in.rt.Solve(ctx, p, opt.Options)
		if err != nil {
			return nil, err
		}
		return &Result{Result: r, Device: out}, nil
	}
	return replay(ctx, in.rt, p, on, opt.Options)
}

// replay is Plan with MethodOnly: the method's plan, the online buffers
// where the runtime puts them around it.
func replay(ctx context.Context, rt device.Runtime, p *model.Problem, online []bool, opt solve.Options) (*Result, error) {
	r, err := solve.Solve(ctx, p, opt)
	if err != nil || r.Plan == nil {
		if err != nil {
			return nil, err
		}
		return &Result{Result: r}, nil
	}
	d, err := rt.Replay(context.WithoutCancel(ctx), p, r.Plan)
	if err != nil {
		return nil, err
	}
	out := &device.Outcome{JointPeak: r.Peak, Candidate: opt.Method}
	for i, on := range online {
		if on && p.Buffers[i].Size > 0 {
			out.Online++
		}
	}
	if own, err := rt.Own(context.WithoutCancel(ctx), p); err == nil {
		out.TFLMHead = own.Peak(p)
	}
	res := *r
	res.Plan = d
	out.Head = d.Peak(p)
	if opt.Capacity > 0 && out.Head > opt.Capacity {
		res.Plan, res.Best, res.Status = nil, d, solve.Unknown
		res.Reason = fmt.Sprintf("the buffers fit %d together, but the runtime's online placement needs %d", opt.Capacity, out.Head)
	}
	res.Derive(p)
	return &Result{Result: &res, Device: out}, nil
}
