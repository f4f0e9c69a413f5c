package main

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/optalloc/optalloc/device"
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
	if l, _ := e.flags.GetString("layout"); l == "blocks" {
		return usageErr("-o %s: TFLite Micro's offline plan holds offsets; leave out --layout blocks", out)
	}
	return nil
}

// checkTFLiteWritable refuses, before planning, a -o OUT.tflite that could
// not be written whatever the plan (optalloc.Input.CheckWrite: a model
// keeping its buffers outside the flatbuffer, an arena whose lower bound
// already overflows the offline plan's int32 offsets).
func checkTFLiteWritable(e *env, input, out string, p *model.Problem) error {
	if !isTFLitePath(out) || e.tflite == nil || e.tflite.path != input {
		return nil
	}
	return e.input.WithProblem(p).CheckWrite(out)
}

// tfliteInput is a .tflite input as read once: the model, its arena
// problem (tensors, then the kernels' scratch buffers) and the path.
type tfliteInput struct {
	path  string
	model *tflite.Model
	arena *tflite.Arena
}

// scratchFlags declares the TFLite scratch flags on the commands that read
// inputs.
func scratchFlags(c *command, fs *pflag.FlagSet) {
	if readsInputs[c.name] {
		fs.Bool("no-scratch", false, "TFLite inputs: plan the tensors alone, without the scratch buffers TFLite Micro's kernels request (the arena stated is then smaller than the device's wherever a kernel asks for scratch)")
		fs.String("scratch", "", "TFLite inputs: the kernels' scratch requests recorded on the target (CSV id,lower,upper,size as 'tflm_run --dump-buffers' writes; docs/tflite.md shows how to record it on a device) instead of the ones optalloc computes for --target")
		fs.String("target", tflite.HostTarget, "TFLite inputs: the device the arena is for, whose kernels' scratch requests are planned: "+strings.Join(tflite.TargetNames(), ", ")+
			" (host: TFLite Micro's reference kernels, 64-bit; a Cortex-M: CMSIS-NN's kernels on the code path that CPU takes: plain C on M0/M3, DSP on M4/M7/M33, MVE on M55/M85)")
		fs.String("kernels", "", "TFLite inputs: the kernel set TFLite Micro is built with, overriding the target's: "+tflite.ReferenceKernels+" | "+tflite.CMSISNNKernels+" (another library, e.g. Xtensa or ESP-NN: record its list and give --scratch)")
	}
}

// checkScratchFlags refuses the scratch flags on inputs that are not
// TFLite models.
func checkScratchFlags(e *env, inputs ...string) error {
	for _, f := range []string{"scratch", "no-scratch", "target", "kernels"} {
		if e.flags.Lookup(f) == nil || !e.flags.Changed(f) {
			continue
		}
		for _, in := range inputs {
			if v, _ := e.flags.GetString(f); f == "target" && v == "executorch" {
				// The runtime comes with the input, as TFLite Micro with a .tflite.
				return usageErr("--target names the device of a TFLite model; ExecuTorch's rules need no flag: a specs file ({\"executorch\": ...}, docs/formats.md) is planned with them")
			}
			if !isTFLitePath(in) && in != "-" {
				return usageErr("--%s applies to .tflite models; %s is not one", f, in)
			}
		}
	}
	return nil
}

// online marks the buffers of the input's arena that the runtime places
// itself (the scratch buffers); nil when input is not the input read, has
// no such buffers, or p is no longer its arena (optalloc.Input.Online).
func (e *env) online(input string, p *model.Problem) []bool {
	if e.input == nil || e.input.Name != input {
		return nil
	}
	return e.input.WithProblem(p).Online()
}

// tfliteSummary is the summary line's part about a TFLite input's scratch
// buffers ("" for other inputs), and a line on how the device's arena was
// chosen.
func tfliteSummary(e *env, input string, out *device.Outcome) (field, line string) {
	t := e.tflite
	if t == nil || t.path != input {
		return "", ""
	}
	target := fmt.Sprintf(" target=%s kernels=%s", t.arena.Target.Name(), kernelsField(t.arena))
	switch {
	case t.arena.Kernels == "":
		line = "tflm: scratch buffers not included (--no-scratch): TFLite Micro adds its kernels' scratch buffers to this arena"
		if out != nil {
			line += fmt.Sprintf("; TFLite Micro's own planner, tensors alone: %d", out.TFLMHead)
		}
		return " scratch=none" + target, line
	case out == nil:
		return fmt.Sprintf(" scratch=%d", len(t.arena.Scratch)) + target, ""
	}
	line = fmt.Sprintf("tflm: arena head %d (the peak above) on %s: tensors at the offline plan, %d scratch buffers (%s) placed by TFLite Micro's greedy planner; TFLite Micro's own planner: %d",
		out.Head, t.arena.Target.Name(), len(t.arena.Scratch), kernelsText(t.arena), out.TFLMHead)
	if out.Fallback {
		line += "; optalloc's layouts gave more once the scratch was placed, so TFLite Micro's own tensor offsets are kept"
	}
	return fmt.Sprintf(" scratch=%d", len(t.arena.Scratch)) + target, line
}

// kernelsField is the summary's kernels= value: the kernel set, or
// "recorded" for a --scratch list, "none" with --no-scratch.
func kernelsField(a *tflite.Arena) string {
	switch {
	case a.Kernels == "":
		return "none"
	case strings.HasPrefix(a.Kernels, "recorded"):
		return "recorded"
	}
	return a.Kernels
}

// kernelsText says where the scratch requests come from: "cmsis-nn
// kernels, DSP path", "reference kernels", "recorded in FILE".
func kernelsText(a *tflite.Arena) string {
	switch {
	case a.Kernels == "" || strings.HasPrefix(a.Kernels, "recorded"):
		return a.Kernels
	case a.Kernels == tflite.CMSISNNKernels:
		return fmt.Sprintf("%s kernels, %s path", a.Kernels, a.Target.CodePath())
	}
	return a.Kernels + " kernels"
}

// tfliteJSON is plan --json's account of a TFLite input's arena.
type tfliteJSON struct {
	// Target names the device planned for (--target) and CodePath the
	// code path CMSIS-NN takes there ("plain C", "DSP", "MVE"; empty for
	// other kernels).
	Target   string `json:"target"`
	CodePath string `json:"code_path,omitempty"`
	// Kernels names the scratch requests planned ("reference",
	// "cmsis-nn", "recorded in FILE"), "" when scratch is left out
	// (--no-scratch).
	Kernels string `json:"kernels"`
	// Unknown names what optalloc cannot know of the device's scratch
	// (custom operators it has no model of, compressed tensors).
	Unknown []string `json:"unknown_scratch,omitempty"`
	// Scratch counts the scratch buffers planned.
	Scratch int `json:"scratch_buffers"`
	// TFLMHead is the head TFLite Micro's own planner makes of the same
	// buffers; Fallback says that its tensor offsets were kept.
	TFLMHead *int64 `json:"tflm_own_head,omitempty"`
	Fallback bool   `json:"fallback_to_tflm,omitempty"`
}

func tfliteReport(e *env, input string, out *device.Outcome) *tfliteJSON {
	t := e.tflite
	if t == nil || t.path != input {
		return nil
	}
	j := &tfliteJSON{Target: t.arena.Target.Name(), Kernels: t.arena.Kernels, Scratch: len(t.arena.Scratch)}
	if t.arena.Kernels == tflite.CMSISNNKernels {
		j.CodePath = t.arena.Target.CodePath()
	}
	if !strings.HasPrefix(t.arena.Kernels, "recorded") {
		j.Unknown = t.arena.Unknown
	}
	if out != nil {
		h := out.TFLMHead
		j.TFLMHead, j.Fallback = &h, out.Fallback
	}
	return j
}

// verifyOffline checks the offline plan a .tflite model carries: the
// tensors it places must not share bytes while live (under TFLite Micro's
// lifetimes), and the arena is what TFLite Micro's greedy planner makes of
// it, placing the tensors the plan leaves to the runtime around the others.
func verifyOffline(ctx context.Context, e *env, path string) error {
	if _, err := loadProblem(e, path); err != nil {
		return err
	}
	m := e.tflite.model
	if m.Offline == nil {
		return &model.InputError{File: path, Msg: "has no " + tflite.OfflineMetadata + " metadata (give a PLAN to check, or write one with 'optalloc plan " + path + " -o planned.tflite')"}
	}
	// The problem plan solves: tensors the plan nests inside another live
	// one are aliases (in-place use), every other pair must not overlap;
	// the scratch buffers follow the tensors, unpinned.
	a := e.tflite.arena
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
	if m.OfflineEntries > 1 {
		fmt.Fprintf(e.stdout, "%d %s entries: TFLite Micro checks each and uses the last, so the last is the one checked here\n", m.OfflineEntries, tflite.OfflineMetadata)
	}
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
		fmt.Fprintf(e.stdout, "arena with TFLite Micro's greedy planner placing the rest: %d bytes (%s on %s)\n", arena, kernelsText(a), a.Target.Name())
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
