package tflm

import (
	"context"
	"fmt"
	"slices"

	"github.com/optalloc/optalloc/device"
	"github.com/optalloc/optalloc/formats/tflite"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/solve"
	"github.com/optalloc/optalloc/verify"
)

var _ device.Runtime = (*Runtime)(nil)

// Runtime is TensorFlow Lite Micro running a model (device.Runtime): its arena (tensors, then
// the kernels' scratch buffers, which the runtime places online) and the
// model the plan is written back into.
type Runtime struct {
	Model *tflite.Model
	Arena *tflite.Arena
}

// Name implements device.Runtime.
func (t *Runtime) Name() string {
	if t.Arena.Kernels == "" {
		return "tflite-micro (tensors alone)"
	}
	return "tflite-micro (" + t.Arena.Kernels + " kernels)"
}

func (t *Runtime) greedy() device.Greedy { return device.Greedy{Flags: t.Arena.Online()} }

// Online implements device.Runtime: the scratch buffers, when p is the
// arena. A model without scratch gets flags all false, not nil: its plan
// still goes through the runtime (device.SolveTFLM), so that it is never
// above TFLite Micro's own.
func (t *Runtime) Online(p *model.Problem) []bool {
	if len(p.Buffers) != len(t.Arena.Problem.Buffers) || len(p.PoolList()) > 1 {
		return nil
	}
	if on := t.greedy().Online(p); on != nil {
		return on
	}
	return make([]bool, len(p.Buffers))
}

// Replay implements device.Runtime.
func (t *Runtime) Replay(ctx context.Context, p *model.Problem, plan *model.Plan) (*model.Plan, error) {
	return device.Simulate(ctx, p, t.Online(p), plan)
}

// Own implements device.Runtime.
func (t *Runtime) Own(ctx context.Context, p *model.Problem) (*model.Plan, error) {
	return t.greedy().Own(ctx, p)
}

// Solve implements device.Runtime.
func (t *Runtime) Solve(ctx context.Context, p *model.Problem, opt solve.Options) (*solve.Result, *device.Outcome, error) {
	return device.SolveTFLM(ctx, p, t.Online(p), opt)
}

// WriteBack implements device.Runtime: a copy of the model with the plan's tensor
// offsets as its OfflineMemoryAllocation metadata (scratch buffers stay
// online, zero-byte tensors get -1). Before it is returned the copy is
// read back: its offsets must be the plan's, and the device's arena they
// give — the scratch buffers placed by TFLite Micro's greedy planner
// around them — must pass the verifier and equal the plan's peak.
func (t *Runtime) WriteBack(ctx context.Context, p *model.Problem, plan *model.Plan, out string) ([]byte, []string, error) {
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
	dev, err := device.Simulate(context.WithoutCancel(ctx), p, a.Online(), planFromOffsets(a, back.Offline.Offsets))
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
