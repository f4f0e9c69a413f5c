package main

import (
	"bytes"
	"context"
	"fmt"
	etdevice "github.com/optalloc/optalloc/device/executorch"
	etfmt "github.com/optalloc/optalloc/formats/executorch"
	"io"
	"os"
	"strings"

	"github.com/spf13/pflag"

	planio "github.com/optalloc/optalloc/formats/plan"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/verify"
)

func init() {
	register(&command{
		name:    "verify",
		args:    "PROBLEM PLAN | MODEL.tflite | EXECUTORCH.json",
		summary: "check a plan independently of the planners: exit 0 when valid, 1 with the violations",
		long: `PROBLEM is any input plan accepts; PLAN is a CSV with id and offset columns
(optionally pool and granted), such as 'plan -o x.csv' writes, or a JSON plan,
whose stated peak and pool peaks are checked too (violation wrong-peak).
Either may be "-" (standard input). The checker shares no code with the
planners.

With one argument, a .tflite model, it checks the offline plan the model
carries (its OfflineMemoryAllocation metadata, such as 'plan -o x.tflite' or
Arm's Vela writes): the tensors it places must not share bytes while live
under TFLite Micro's lifetimes. It also prints the arena TFLite Micro's greedy
planner makes of it, placing the tensors the plan leaves to the runtime.

With one argument, an ExecuTorch specs file carrying a plan (such as 'plan
specs.json -o out.json' writes), it checks ExecuTorch's rules: views in their
base, overlapping bytes in one mem_obj_id and never live together, every spec
within bufsizes (docs/formats.md).`,
		flags: func(fs *pflag.FlagSet) {
			fs.StringArray("pool", nil, "the pools given to plan with --pool NAME:CAPACITY[:ALIGN] (repeat, fastest first)")
			fs.Var(new(byteSize), "capacity", "also require every buffer to end within this many bytes (single-pool problems)")
			fs.Bool("json", false, "print the result as JSON on stdout")
			fs.Int("max", 50, "list at most this many violations (0 = all)")
			layoutFlags(fs, false)
		},
		run: runVerify,
	})
}

type verifyJSON struct {
	Valid      bool               `json:"valid"`
	Buffers    int                `json:"buffers"`
	Peak       int64              `json:"peak"`
	Violations []verify.Violation `json:"violations"`
	Reason     string             `json:"reason,omitempty"`
}

func runVerify(ctx context.Context, e *env, args []string) error {
	if len(args) == 1 && isTFLitePath(args[0]) {
		return verifyOffline(ctx, e, args[0])
	}
	if len(args) == 1 && etfmt.SniffFile(args[0]) {
		return verifyExecuTorch(e, args[0])
	}
	if len(args) != 2 {
		return usageErr("want PROBLEM and PLAN, or a .tflite model (see 'optalloc help verify')")
	}
	if args[0] == "-" && args[1] == "-" {
		return usageErr("PROBLEM and PLAN are both standard input (-); one of them must be a file")
	}
	capacity := int64(*e.flags.Lookup("capacity").Value.(*byteSize))
	asJSON, _ := e.flags.GetBool("json")
	maxList, _ := e.flags.GetInt("max")
	p, err := planAsProblem(args[0])
	problemIsPlan := p != nil
	if err == nil && p == nil {
		p, err = loadProblem(e, args[0])
	}
	if err != nil {
		return err
	}
	if err := applyPools(e, p, args[0]); err != nil {
		return err
	}
	if capacity > 0 && len(p.PoolList()) > 1 {
		return usageErr("--capacity bounds a single pool; with %d pools give each its capacity (--pool NAME:CAPACITY or the JSON problem)", len(p.PoolList()))
	}
	if capacity > 0 {
		p.SetCapacity(capacity)
	}
	var f io.Reader = e.stdin
	planName := args[1]
	if planName == "-" {
		planName = "<stdin>"
	} else {
		if err := checkInputFile(args[1]); err != nil {
			return err
		}
		file, err := os.Open(args[1])
		if err != nil {
			return &model.InputError{File: args[1], Msg: "cannot open: " + err.Error()}
		}
		defer file.Close()
		f = file
	}
	if layout, err := layoutOf(e.flags); err != nil {
		return err
	} else if layout == "blocks" {
		return verifyBlocks(e, p, planName, f)
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return &model.InputError{File: planName, Msg: "cannot read: " + err.Error()}
	}
	plan, err := planio.Read(bytes.NewReader(data), planName, p)
	if err != nil && problemIsPlan {
		return swapHint(err, args[0])
	}
	if err != nil {
		return err
	}
	// A plan made for another problem would list a violation per buffer:
	// say so instead when most of the buffers differ.
	if missing, differ, first := planMismatch(p, data, planName); missing+differ > 0 {
		if 2*(missing+differ) > len(p.Buffers) {
			msg := fmt.Sprintf("%s is a plan for a different problem: of the %d buffers of %s, %d are not in it and %d have another lifetime or size (%s)",
				planName, len(p.Buffers), args[0], missing, differ, first)
			if asJSON {
				if err := writeJSON(e.stdout, verifyJSON{Buffers: len(p.Buffers), Violations: []verify.Violation{}, Reason: msg}); err != nil {
					return err
				}
			}
			return failure("%s", msg)
		}
		fmt.Fprintf(e.stderr, "note: %d buffers are not in the plan and %d have another lifetime or size in it than in %s (%s)\n", missing, differ, args[0], first)
	}
	vs := verify.Check(p, plan)
	peak := int64(0)
	if len(vs) == 0 {
		peak = plan.Peak(p)
	}
	if asJSON {
		if vs == nil {
			vs = []verify.Violation{}
		}
		if err := writeJSON(e.stdout, verifyJSON{Valid: len(vs) == 0, Buffers: len(p.Buffers), Peak: peak, Violations: vs}); err != nil {
			return err
		}
	} else if len(vs) == 0 {
		fmt.Fprintf(e.stdout, "valid: %d buffers, peak=%d\n", len(p.Buffers), peak)
	} else {
		for i, v := range vs {
			if maxList > 0 && i == maxList {
				fmt.Fprintf(e.stdout, "... and %d more\n", len(vs)-i)
				break
			}
			fmt.Fprintln(e.stdout, v.String())
		}
	}
	if len(vs) > 0 {
		return failure("the plan is invalid: %d violations", len(vs))
	}
	return nil
}

// verifyExecuTorch checks the plan an ExecuTorch specs file carries (what
// plan -o out.json writes) against ExecuTorch's rules
// (device/executorch.Check).
func verifyExecuTorch(e *env, path string) error {
	if err := checkInputFile(path); err != nil {
		return err
	}
	f, err := etfmt.ReadFile(path)
	if err != nil {
		return err
	}
	if f.Plan == nil {
		return &model.InputError{File: path, Msg: "the specs carry no plan (no bufsizes): verify the file 'optalloc plan SPECS -o OUT.json' writes"}
	}
	vs := etdevice.Check(f)
	if len(vs) == 0 {
		var total int64
		for _, b := range f.Plan.BufSizes {
			total += b
		}
		fmt.Fprintf(e.stdout, "valid: %d specs, bufsizes=%s total=%d (ExecuTorch's rules)\n", len(f.Specs), strings.ReplaceAll(fmt.Sprint(f.Plan.BufSizes), " ", ","), total)
		return nil
	}
	for _, v := range vs {
		fmt.Fprintln(e.stdout, v)
	}
	return failure("the plan is invalid: %d violations of ExecuTorch's rules", len(vs))
}
