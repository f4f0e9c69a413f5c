package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/optalloc/optalloc"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/optalloc/optalloc/formats/jsonfmt"
	"github.com/optalloc/optalloc/formats/onnx"
	"github.com/optalloc/optalloc/multi"
	"github.com/optalloc/optalloc/solve"
	"github.com/optalloc/optalloc/verify"
)

// allONNX reports whether every input is an .onnx model.
func allONNX(args []string) bool {
	for _, a := range args {
		if !strings.HasSuffix(strings.ToLower(a), ".onnx") {
			return false
		}
	}
	return true
}

// runPlanMultiONNX plans several ONNX models on one arena: one problem
// over every model (package multi), solved as any problem; -o DIR/ writes
// each model's plan, relative to the shared arena, as DIR/NAME.plan.json.
func runPlanMultiONNX(ctx context.Context, e *env, args []string) error {
	fs := e.flags
	if fs.Changed("no-scratch") {
		return usageErr("--no-scratch applies to .tflite models")
	}
	o, err := multiCommon(fs)
	if err != nil {
		return err
	}
	limit, method, out, asJSON, quiet, threads, seed := o.limit, o.method, o.out, o.asJSON, o.quiet, o.threads, o.seed
	dims, err := dimValues(e)
	if err != nil {
		return err
	}
	used := map[string]bool{}
	ins := make([]*multiInput, len(args))
	models := make([]multi.Model, len(args))
	names := make([]string, len(args))
	for k, path := range args {
		m, err := onnx.ReadFile(path)
		if err != nil {
			return err
		}
		a, err := m.Arena(onnx.Options{Dims: dims})
		if err != nil {
			return err
		}
		for _, w := range optalloc.OpenConditions(path, a) {
			fmt.Fprintln(e.stderr, "warning: "+w)
		}
		ins[k] = &multiInput{path: path, name: modelName(path, used)}
		if out != "" {
			ins[k].out = filepath.Join(out, ins[k].name+".plan.json")
			if err := checkNotInput(ins[k].out, args); err != nil {
				return err
			}
		}
		names[k], models[k] = ins[k].name, multi.FromONNX(ins[k].name, m, a)
	}
	c, schedName, err := combineModels(fs, names, models)
	if err != nil {
		return err
	}
	res, err := multi.Solve(ctx, c, solve.Options{Method: method, TimeLimit: remaining(e, limit), Threads: threads, Seed: seed})
	if err != nil {
		if errors.Is(err, optalloc.ErrUnknownMethod) {
			return usageErr("%v", err)
		}
		return err
	}
	if res.Plan == nil {
		return failure("no plan found: %s", res.Reason)
	}
	if vs := verify.Check(c.Problem, res.Plan); len(vs) > 0 {
		return fmt.Errorf("the shared plan is rejected by the verifier: %v (a bug)", vs[0])
	}
	if out != "" {
		if err := os.MkdirAll(out, 0o777); err != nil {
			return usageErr("cannot write to %s: %v", out, err)
		}
		for k, pl := range c.Split(res.Plan) {
			p := c.Models[k].Problem
			if err := writeOutput(e, ins[k].out, func(w io.Writer) error { return jsonfmt.WritePlan(w, p, pl) }); err != nil {
				return err
			}
		}
	}
	elapsed := time.Since(e.start)
	if on, _ := fs.GetBool("explain"); on {
		w := e.stdout
		if asJSON {
			w = e.stderr
		}
		explainMulti(w, ins, c, res.Plan, nil)
	}
	if !quiet {
		fmt.Fprintf(e.stderr, "peak=%d lower_bound=%d gap=%.2f%% status=%s method=%s time=%.3fs models=%d schedule=%s\n",
			res.Peak, res.LowerBound, res.Gap(), res.Status, res.Method, elapsed.Seconds(), len(ins), schedName)
	}
	if asJSON {
		j := multiJSON{Inputs: args, Schedule: schedName, Buffers: len(c.Problem.Buffers), Peak: res.Peak,
			LowerBound: res.LowerBound, Gap: res.Gap(), Status: res.Status, Method: res.Method,
			Seconds: elapsed.Seconds(), Output: out}
		for k, pl := range c.Split(res.Plan) {
			j.Models = append(j.Models, multiModelJSON{Name: ins[k].name, Input: ins[k].path, Output: ins[k].out, Head: pl.Peak(c.Models[k].Problem)})
		}
		return writeJSON(e.stdout, j)
	}
	return nil
}
