package blocks

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/verify"
)

// DefaultTimeLimit bounds the exact engine inside Solve when
// Options.TimeLimit is 0.
const DefaultTimeLimit = 10 * time.Second

// MinCostFlowAutoUnits: "auto" skips min_cost_flow on larger instances (it
// takes over 10 s on the 5620-buffer BERT trace); name it to run it anyway.
const MinCostFlowAutoUnits = 3000

// Options configure Solve.
type Options struct {
	// Method is "auto" (or "" or "exact": every heuristic, then the exact
	// engine from the best of them) or one planner name (see Methods).
	Method string
	// MaxBlocks caps the block count; 0 = no cap.
	MaxBlocks int
	// TimeLimit bounds the exact engine, and each heuristic separately (a
	// heuristic that runs out of time is skipped: min_cost_flow is
	// quadratic); 0 means DefaultTimeLimit.
	TimeLimit time.Duration
	// Exact carries the exact engine's pruning switches (its MaxBlocks and
	// TimeLimit are taken from these Options).
	Exact Exact
}

// Heuristics lists the heuristic planner names, in the order Solve runs them.
var Heuristics = []string{"greedy_in_order", "greedy_by_size", "greedy_by_breadth", "min_cost_flow"}

// Methods lists every accepted Options.Method value.
// equal_slots solves another objective (one slot size) and is never
// chosen by auto.
func Methods() []string {
	return append(append([]string{"auto", "exact"}, Heuristics...), "equal_slots")
}

// NewPlanner returns the planner with the given name, capped at maxBlocks
// (0 = no cap).
func NewPlanner(name string, maxBlocks int) (Planner, error) {
	switch name {
	case "greedy_in_order":
		return &GreedyInOrder{MaxBlocks: maxBlocks}, nil
	case "greedy_by_size":
		return &GreedyBySize{MaxBlocks: maxBlocks}, nil
	case "greedy_by_breadth":
		return &GreedyByBreadth{MaxBlocks: maxBlocks}, nil
	case "min_cost_flow":
		return &MinCostFlow{MaxBlocks: maxBlocks}, nil
	case "exact":
		return &Exact{MaxBlocks: maxBlocks, TimeLimit: DefaultTimeLimit}, nil
	case "equal_slots":
		return &EqualSlots{MaxBlocks: maxBlocks}, nil
	}
	return nil, fmt.Errorf("blocks: unknown method %q (want %s)", name, strings.Join(Methods(), ", "))
}

// Solve plans the block layout of p. It validates p (an invalid problem is
// an error naming the buffer), computes the bounds, runs the requested
// planners, verifies the chosen plan with verify.BlockCheck and reports
// what is proven. When MaxBlocks is below MinBlocks the result has status
// Infeasible, a nil Plan and the Reason (naming a time and the buffers alive
// then); the error is nil. A named heuristic that cannot meet MaxBlocks is
// an error wrapping *CapError.
func Solve(ctx context.Context, p *model.Problem, o Options) (*Result, error) {
	t0 := time.Now()
	in, err := prepare(p)
	if err != nil {
		return nil, err
	}
	method := o.Method
	if method == "" {
		method = "auto"
	}
	if method != "auto" && method != "exact" {
		if _, err := NewPlanner(method, 0); err != nil {
			return nil, err
		}
	}
	if o.MaxBlocks < 0 {
		return nil, fmt.Errorf("blocks: max blocks %d is negative", o.MaxBlocks)
	}
	bd := in.bounds()
	res := &Result{LowerBound: bd.LowerBound, MinBlocks: bd.MinBlocks, Status: Unknown}
	defer func() { res.Elapsed = time.Since(t0) }()
	if o.MaxBlocks > 0 && o.MaxBlocks < bd.MinBlocks {
		res.Status = Infeasible
		res.Reason = bd.capReason(o.MaxBlocks)
		return res, nil
	}
	names := Heuristics
	if method != "auto" && method != "exact" {
		names = []string{method}
	}
	limit := o.TimeLimit
	if limit == 0 {
		limit = DefaultTimeLimit
	}
	var best *BlockPlan
	for _, name := range names {
		if ctx.Err() != nil && len(names) > 1 {
			// Out of time: each planner would still prepare the problem
			// first (0.1 s each on 62 000 buffers). A single method
			// still reports its own error.
			break
		}
		pl, _ := NewPlanner(name, o.MaxBlocks)
		a := Attempt{Method: name, Status: Feasible}
		if name == "min_cost_flow" && len(names) > 1 && len(in.units) > MinCostFlowAutoUnits {
			a.Err, a.Status = fmt.Errorf("skipped: more than %d buffers (its network is quadratic)", MinCostFlowAutoUnits), Unknown
			res.Attempts = append(res.Attempts, a)
			continue
		}
		ts := time.Now()
		hctx, cancel := context.WithTimeout(ctx, limit)
		bp, err := pl.Plan(hctx, p)
		cancel()
		a.Elapsed = time.Since(ts)
		if err != nil {
			a.Err, a.Status = err, Unknown
			res.Attempts = append(res.Attempts, a)
			if len(names) == 1 {
				return nil, fmt.Errorf("blocks: %s: %w", name, err)
			}
			continue
		}
		a.TotalBytes, a.Blocks = bp.TotalBytes(), len(bp.Blocks)
		res.Attempts = append(res.Attempts, a)
		if best == nil || a.TotalBytes < best.TotalBytes() {
			best, res.Method = bp, name
		}
	}
	if (method == "auto" || method == "exact") && ctx.Err() == nil {
		ex := o.Exact
		ex.MaxBlocks = o.MaxBlocks
		ex.TimeLimit = limit
		ts := time.Now()
		er, err := ex.Solve(ctx, p, best)
		a := Attempt{Method: "exact", Elapsed: time.Since(ts)}
		if err != nil {
			return nil, err
		}
		a.Status = er.Status
		res.Nodes = er.Nodes
		if er.Plan != nil {
			a.TotalBytes, a.Blocks = er.TotalBytes, len(er.Plan.Blocks)
			if best == nil || er.TotalBytes < best.TotalBytes() {
				best, res.Method = er.Plan, "exact"
			}
			res.LowerBound = max(res.LowerBound, er.LowerBound)
		}
		res.Attempts = append(res.Attempts, a)
	}
	if best == nil {
		res.Reason = "no planner found a plan in time"
		if err := ctx.Err(); err != nil {
			res.Reason = err.Error()
		}
		return res, nil
	}
	if v := verify.BlockCheck(p, best.Sizes(), best.Assign); len(v) > 0 {
		return nil, fmt.Errorf("blocks: %s produced an invalid plan (a bug): %s", res.Method, v[0])
	}
	res.Plan, res.TotalBytes, res.BlocksUsed = best, best.TotalBytes(), len(best.Blocks)
	res.Status = Feasible
	if res.TotalBytes <= res.LowerBound {
		res.Status = Optimal
		res.LowerBound = res.TotalBytes
	}
	return res, nil
}

// IsCapError reports whether err comes from a planner that exceeded
// MaxBlocks.
func IsCapError(err error) bool {
	var ce *CapError
	return errors.As(err, &ce)
}
