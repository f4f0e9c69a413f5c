package device

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/optalloc/optalloc/formats/tflite"
	"github.com/optalloc/optalloc/heuristics"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/solve"
	"github.com/optalloc/optalloc/verify"
)

// Runtime is a runtime that uses an offline plan and may place some
// buffers of its arena itself: what the front door (package optalloc)
// plans and writes for. TFLM is the first implementation.
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
func (g Greedy) Online(p *model.Problem) []bool { return onlineOf(g.Flags, p) }

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

// onlineOf is flags when they are p's (one per buffer, one pool), else nil.
func onlineOf(flags []bool, p *model.Problem) []bool {
	if flags == nil || len(flags) != len(p.Buffers) || len(p.PoolList()) > 1 || !slices.Contains(flags, true) {
		return nil
	}
	return flags
}

// TFLM is TensorFlow Lite Micro running a model: its arena (tensors, then
// the kernels' scratch buffers, which the runtime places online) and the
// model the plan is written back into.
type TFLM struct {
	Model *tflite.Model
	Arena *tflite.Arena
}

// Name implements Runtime.
func (t *TFLM) Name() string {
	if t.Arena.Kernels == "" {
		return "tflite-micro (tensors alone)"
	}
	return "tflite-micro (" + t.Arena.Kernels + " kernels)"
}

func (t *TFLM) greedy() Greedy { return Greedy{Flags: t.Arena.Online()} }

// Online implements Runtime: the scratch buffers, when p is the arena.
func (t *TFLM) Online(p *model.Problem) []bool {
	if len(p.Buffers) != len(t.Arena.Problem.Buffers) {
		return nil
	}
	return t.greedy().Online(p)
}

// Replay implements Runtime.
func (t *TFLM) Replay(ctx context.Context, p *model.Problem, plan *model.Plan) (*model.Plan, error) {
	return Simulate(ctx, p, t.Online(p), plan)
}

// Own implements Runtime.
func (t *TFLM) Own(ctx context.Context, p *model.Problem) (*model.Plan, error) {
	return t.greedy().Own(ctx, p)
}

// Solve implements Runtime.
func (t *TFLM) Solve(ctx context.Context, p *model.Problem, opt solve.Options) (*solve.Result, *Outcome, error) {
	return SolveTFLM(ctx, p, t.Online(p), opt)
}

// WriteBack implements Runtime: a copy of the model with the plan's tensor
// offsets as its OfflineMemoryAllocation metadata (scratch buffers stay
// online, zero-byte tensors get -1). Before it is returned the copy is
// read back: its offsets must be the plan's, and the device's arena they
// give — the scratch buffers placed by TFLite Micro's greedy planner
// around them — must pass the verifier and equal the plan's peak.
func (t *TFLM) WriteBack(ctx context.Context, p *model.Problem, plan *model.Plan, out string) ([]byte, []string, error) {
	m, a := t.Model, t.Arena
	if len(a.Problem.Buffers) != len(p.Buffers) {
		return nil, nil, fmt.Errorf("%s: the plan is not of the model's arena (a bug)", m.Name)
	}
	off, err := a.OfflinePlan(m, plan)
	if err != nil {
		return nil, nil, err
	}
	data, err := m.WithOfflinePlan(off)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %v", out, err)
	}
	back, err := tflite.Decode(data, out)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: the written model does not read back: %v (a bug)", out, err)
	}
	if back.Offline == nil || !slices.Equal(back.Offline.Offsets, off.Offsets) {
		return nil, nil, fmt.Errorf("%s: the written model does not carry the plan (a bug)", out)
	}
	dev, err := Simulate(context.WithoutCancel(ctx), p, a.Online(), planFromOffsets(a, back.Offline.Offsets))
	if err != nil {
		return nil, nil, err
	}
	if vs := verify.Check(p, dev); len(vs) > 0 {
		return nil, nil, fmt.Errorf("%s: the offline plan read back is rejected by the verifier: %v (a bug)", out, vs[0])
	}
	if h, want := dev.Peak(p), plan.Peak(p); h != want {
		return nil, nil, fmt.Errorf("%s: the offline plan read back gives the device an arena of %d, not the %d planned (a bug)", out, h, want)
	}
	var notes []string
	if m.OfflineEntries > 1 {
		notes = append(notes, fmt.Sprintf("note: %s had %d %s entries; the last, the one TFLite Micro uses, now holds the plan (the others are kept)", m.Name, m.OfflineEntries, tflite.OfflineMetadata))
	}
	if len(m.Subgraphs) > 1 {
		notes = append(notes, fmt.Sprintf("warning: %s: the model has %d subgraphs: TFLite Micro releases before 2023-03-29 (tflite-micro PR #1195) read a multi-subgraph offline plan per subgraph and would corrupt memory; run it with a newer TFLite Micro", out, len(m.Subgraphs)))
	}
	return data, notes, nil
}

// planFromOffsets reads the arena's plan out of an offline plan (tensors
// left online and scratch buffers get offset 0: callers place them).
func planFromOffsets(a *tflite.Arena, offsets []int32) *model.Plan {
	pl := model.NewPlan(a.Problem)
	for j, i := range a.Tensors {
		if o := offsets[i]; o >= 0 {
			pl.Placements[j].Offset = int64(o)
		}
	}
	return pl
}
