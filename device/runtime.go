package device

import (
	"context"
	"errors"
	"slices"

	"github.com/optalloc/optalloc/heuristics"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/solve"
)

// Runtime is a runtime that uses an offline plan and may place some
// buffers of its arena itself: what the front door (package optalloc)
// plans and writes for. device/tflm's Runtime (TFLite Micro running a
// model) is the first implementation; Greedy is the same runtime given
// only by its online buffers.
type Runtime interface {
	// Name names the runtime and the kernels its figures hold for.
	Name() string
	// Online marks the buffers of p the runtime places itself (nil when
	// none, or when p is not its arena: other buffers, several pools).
	Online(p *model.Problem) []bool
	// Replay is the runtime's plan of p: the other buffers at plan's
	// offsets, the online ones where the runtime puts them around them.
	Replay(ctx context.Context, p *model.Problem, plan *model.Plan) (*model.Plan, error)
	// Own is the plan the runtime makes of p by itself.
	Own(ctx context.Context, p *model.Problem) (*model.Plan, error)
	// Solve plans p for the runtime: the device's arena (see SolveTFLM).
	Solve(ctx context.Context, p *model.Problem, opt solve.Options) (*solve.Result, *Outcome, error)
	// WriteBack returns the runtime's own file carrying plan (named out in
	// messages) and notes about it; ErrNoWriteBack when it has none.
	WriteBack(ctx context.Context, p *model.Problem, plan *model.Plan, out string) ([]byte, []string, error)
}

// ErrNoWriteBack is WriteBack's error for a runtime without a file of its
// own to carry a plan.
var ErrNoWriteBack = errors.New("the runtime has no file of its own to write the plan into")

// Greedy is a TFLite-Micro-like runtime given by the buffers it places
// itself (Flags): its greedy planner places them around the offline ones.
// It has no file of its own.
type Greedy struct {
	Flags []bool
}

// Name implements Runtime.
func (g Greedy) Name() string { return "tflm-greedy" }

// Online implements Runtime.
func (g Greedy) Online(p *model.Problem) []bool { return OnlineOf(g.Flags, p) }

// Replay implements Runtime (Simulate).
func (g Greedy) Replay(ctx context.Context, p *model.Problem, plan *model.Plan) (*model.Plan, error) {
	return Simulate(ctx, p, g.Online(p), plan)
}

// Own implements Runtime: TFLite Micro's greedy planner alone.
func (g Greedy) Own(ctx context.Context, p *model.Problem) (*model.Plan, error) {
	greedy, _ := heuristics.ByName("tflm-greedy")
	return greedy.Plan(ctx, p)
}

// Solve implements Runtime (SolveTFLM).
func (g Greedy) Solve(ctx context.Context, p *model.Problem, opt solve.Options) (*solve.Result, *Outcome, error) {
	return SolveTFLM(ctx, p, g.Online(p), opt)
}

// WriteBack implements Runtime: ErrNoWriteBack.
func (g Greedy) WriteBack(context.Context, *model.Problem, *model.Plan, string) ([]byte, []string, error) {
	return nil, nil, ErrNoWriteBack
}

// OnlineOf is flags when they are p's (one per buffer, one pool, one of
// them online), else nil: what a Runtime's Online returns.
func OnlineOf(flags []bool, p *model.Problem) []bool {
	if flags == nil || len(flags) != len(p.Buffers) || len(p.PoolList()) > 1 || !slices.Contains(flags, true) {
		return nil
	}
	return flags
}
