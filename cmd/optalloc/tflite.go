package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/optalloc/optalloc/formats/tflite"
	"github.com/optalloc/optalloc/heuristics"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/verify"
)

// isTFLitePath reports whether a path names a .tflite model.
func isTFLitePath(path string) bool { return strings.HasSuffix(strings.ToLower(path), ".tflite") }

// checkTFLiteOutput refuses -o MODEL.tflite unless the input is a .tflite
// model planned as TFLite Micro's single arena (no pools, offsets layout).
func checkTFLiteOutput(e *env, input, out string) error {
	if !isTFLitePath(out) {
		return nil
	}
	if !isTFLitePath(input) {
		return usageErr("-o %s writes a TFLite model with the plan as its offline plan; the input must be a .tflite model file", out)
	}
	if specs, _ := e.flags.GetStringArray("pool"); len(specs) > 0 {
		return usageErr("-o %s: TFLite Micro's offline plan is one arena; leave out --pool", out)
	}
	return nil
}

// writeTFLite writes a copy of the input model with the plan as its
// OfflineMemoryAllocation metadata. Before anything is written the copy is
// read back: its offsets must be the plan's and pass the verifier.
func writeTFLite(e *env, input, out string, p *model.Problem, plan *model.Plan) error {
	m, a, err := readArena(input)
	if err != nil {
		return err
	}
	if len(a.Problem.Buffers) != len(p.Buffers) {
		return fmt.Errorf("%s: the model changed while it was planned", input)
	}
	off, err := a.OfflinePlan(m, plan)
	if err != nil {
		return err
	}
	data, err := m.WithOfflinePlan(off)
	if err != nil {
		return fmt.Errorf("%s: %v", out, err)
	}
	back, err := tflite.Decode(data, out)
	if err != nil {
		return fmt.Errorf("%s: the written model does not read back: %v (a bug)", out, err)
	}
	if back.Offline == nil || !slices.Equal(back.Offline.Offsets, off.Offsets) {
		return fmt.Errorf("%s: the written model does not carry the plan (a bug)", out)
	}
	if vs := verify.Check(p, planFromOffsets(a, back.Offline.Offsets)); len(vs) > 0 {
		return fmt.Errorf("%s: the offline plan read back is rejected by the verifier: %v (a bug)", out, vs[0])
	}
	return writeOutput(e, out, func(w io.Writer) error {
		_, err := io.Copy(w, bytes.NewReader(data))
		return err
	})
}

func readArena(path string) (*tflite.Model, *tflite.Arena, error) {
	m, err := tflite.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	a, err := m.Arena()
	if err != nil {
		return nil, nil, err
	}
	return m, a, nil
}

// planFromOffsets reads the arena's plan out of an offline plan (tensors
// left Online get offset 0: callers check only fully planned arenas).
func planFromOffsets(a *tflite.Arena, offsets []int32) *model.Plan {
	pl := model.NewPlan(a.Problem)
	for j, i := range a.Tensors {
		if o := offsets[i]; o >= 0 {
			pl.Placements[j].Offset = int64(o)
		}
	}
	return pl
}

// verifyOffline checks the offline plan a .tflite model carries: the
// tensors it places must not share bytes while live (under TFLite Micro's
// lifetimes), and the arena is what TFLite Micro's greedy planner makes of
// it, placing the tensors the plan leaves to the runtime around the others.
func verifyOffline(ctx context.Context, e *env, path string) error {
	m, err := tflite.ReadFile(path)
	if err != nil {
		return err
	}
	if m.Offline == nil {
		return &model.InputError{File: path, Msg: "has no " + tflite.OfflineMetadata + " metadata (give a PLAN to check, or write one with 'optalloc plan " + path + " -o planned.tflite')"}
	}
	// The problem plan solves: tensors the plan nests inside another live
	// one are aliases (in-place use), every other pair must not overlap.
	a, err := m.Arena()
	if err != nil {
		return err
	}
	// The offline-placed tensors alone, pinned at their offsets.
	sub := &model.Problem{Name: a.Problem.Name}
	full := &model.Problem{Name: a.Problem.Name, Buffers: slices.Clone(a.Problem.Buffers)}
	online := 0
	for j, i := range a.Tensors {
		o := int64(m.Offline.Offsets[i])
		if o < 0 {
			online++
			continue
		}
		if full.Buffers[j].Alias == nil {
			full.Buffers[j].Pin = &o
		}
		sub.Buffers = append(sub.Buffers, full.Buffers[j])
	}
	plan := model.NewPlan(sub)
	k := 0
	for _, i := range a.Tensors {
		if o := m.Offline.Offsets[i]; o >= 0 {
			plan.Placements[k].Offset = int64(o)
			k++
		}
	}
	vs := verify.Check(sub, plan)
	fmt.Fprintf(e.stdout, "%s: offline plan of %d tensors: %d placed offline, %d planned tensors left to the runtime, %d constants and variables not in the arena\n",
		path, len(m.Tensors), len(sub.Buffers), online, len(m.Tensors)-len(a.Tensors))
	if a.Aliases > 0 {
		fmt.Fprintf(e.stdout, "%d tensors lie inside another one live at the same time: in-place use, kept as aliases (Arm Vela places an NPU operator's input and output inside its scratch area)\n", a.Aliases)
	}
	if len(vs) == 0 {
		fmt.Fprintf(e.stdout, "offline part: valid, peak=%d\n", plan.Peak(sub))
	} else {
		for _, v := range vs {
			fmt.Fprintln(e.stdout, v.String())
		}
	}
	if arena, ok := tflmArena(ctx, full); ok {
		fmt.Fprintf(e.stdout, "arena with TFLite Micro's greedy planner placing the rest: %d bytes\n", arena)
	}
	if len(vs) > 0 {
		return failure("the offline plan is invalid: %d violations", len(vs))
	}
	return nil
}

// tflmArena is the arena TFLite Micro's greedy planner makes of p, placing
// the buffers that are not pinned around the pinned ones.
func tflmArena(ctx context.Context, p *model.Problem) (int64, bool) {
	greedy, _ := heuristics.ByName("tflm-greedy")
	pl, err := greedy.Plan(ctx, p)
	if err != nil {
		return 0, false
	}
	return pl.Peak(p), true
}
