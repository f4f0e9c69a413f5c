package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/optalloc/optalloc"
	"github.com/optalloc/optalloc/corpus"
	"github.com/optalloc/optalloc/formats/onnx"
	"github.com/optalloc/optalloc/internal/tflmrun"
	"github.com/optalloc/optalloc/solve"
)

// The markers between which -models -readme puts the models table.
const (
	modelsBegin = "<!-- models:begin -->"
	modelsEnd   = "<!-- models:end -->"
)

// modelMethods are the two columns of the models table: TFLite Micro's own
// planner, the baseline a device gets without optalloc, and auto.
var modelMethods = []string{"tflm-greedy", "auto"}

// findModels lists the model files of the shared models folder (its tflite/
// and onnx/ subfolders), sorted, followed by the extra paths.
func findModels(dir string, extra []string) ([]string, error) {
	var paths []string
	for _, pat := range []string{"tflite/*.tflite", "onnx/*.onnx"} {
		m, err := filepath.Glob(filepath.Join(dir, pat))
		if err != nil {
			return nil, err
		}
		paths = append(paths, m...)
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("%s: no tflite/*.tflite or onnx/*.onnx model files", dir)
	}
	sort.Strings(paths)
	return append(paths, extra...), nil
}

// loadModel reads a model file through the front door (an ONNX model with
// its symbolic dimensions fixed by dims; a TFLite model with the reference
// kernels' scratch buffers and TFLite Micro as its runtime) and describes
// its tensors for the table: all / constants (weights) / variables.
func loadModel(path string, dims map[string]int64) (*optalloc.Input, string, error) {
	in, err := optalloc.Load(path, optalloc.LoadOptions{Dims: dims})
	if err != nil {
		return nil, "", err
	}
	if m, _ := in.TFLite(); m != nil {
		var consts, vars int
		for _, t := range m.Tensors {
			if t.Constant {
				consts++
			}
			if t.Variable {
				vars++
			}
		}
		return in, fmt.Sprintf("%d / %d / %d", len(m.Tensors), consts, vars), nil
	}
	if strings.HasSuffix(path, ".onnx") {
		// The weights are not in the arena problem: the graph says them.
		a, err := onnx.LoadFile(path, onnx.Options{Dims: dims})
		if err != nil {
			return nil, "", err
		}
		return in, fmt.Sprintf("%d / %d / 0", len(a.Problem.Buffers)+a.Weights, a.Weights), nil
	}
	return in, "–", nil
}

// modelsConfig tunes runModels.
type modelsConfig struct {
	dims  map[string]int64
	limit time.Duration
	// tflm is the path of tflm_run ("" when absent): TFLite rows are run
	// on TFLite Micro, with its own planner and with optalloc's plan.
	tflm string
}

// runModels plans every model with modelMethods and returns the markdown
// table: per model its tensors, the buffers planned, TFLite Micro's greedy
// arena, optalloc's, the lower bound, the gap and the status; for a TFLite
// model optalloc's arena is the device's head (device.SolveTFLM: tensors
// offline, scratch placed by TFLite Micro), and with tflm_run the heads
// TFLite Micro reports with its own planner and with optalloc's plan
// written into the model — which must be the arena stated.
func runModels(ctx context.Context, paths []string, cfg modelsConfig, meta corpus.Meta) ([]byte, error) {
	insts := make([]corpus.Instance, len(paths))
	tensors := make([]string, len(paths))
	ins := make([]*optalloc.Input, len(paths))
	for i, p := range paths {
		in, desc, err := loadModel(p, cfg.dims)
		if err != nil {
			return nil, err
		}
		// The method's arena alone (no runtime): the TFLite rows' device
		// arena is planned by deviceRow.
		ins[i], insts[i], tensors[i] = in, corpus.Instance{Name: p, Problem: in.Problem}, desc
	}
	results := corpus.Run(ctx, insts, corpus.Config{Methods: modelMethods, TimeLimit: cfg.limit, Workers: 1,
		OnRun: func(inst string, r corpus.MethodRun) {
			fmt.Fprintf(os.Stderr, "%-60s %-12s peak=%d status=%s %.2fs\n", inst, r.Method, r.Peak, r.Status, r.Elapsed.Seconds())
		}})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "Measured %s on %s, %s, optalloc %s; time limit %s.",
		meta.Date.UTC().Format("2006-01-02 15:04 MST"), meta.Machine, meta.GoVersion, meta.Revision, meta.TimeLimit)
	if meta.Note != "" {
		b.WriteString(" " + meta.Note)
	}
	fmt.Fprintf(&b, "\nRegenerate with `%s`.\n", meta.Command)
	if len(cfg.dims) > 0 {
		b.WriteString("ONNX models with their symbolic dimensions fixed by -dim (as `optalloc plan --dim`).\n")
	}
	b.WriteString("Tensors: all / constants / variables (constants and variables are not in the arena). " +
		"Arena buffers: tensors + the scratch buffers TFLite Micro's reference kernels request. " +
		"Arenas in bytes; for TFLite models optalloc's is the device's head (tensors at the offline plan, scratch placed by TFLite Micro); " +
		"the gap is over the lower bound.")
	if cfg.tflm != "" {
		b.WriteString(" The last two columns are the `arena_head` TFLite Micro itself reports (`tflm_run`, reference kernels) " +
			"with its own planner and with optalloc's plan written into the model; – where the reference kernels cannot run the model.")
	}
	b.WriteString("\n\n| model | tensors | arena buffers | TFLite Micro greedy | optalloc | lower bound | gap | status | time |")
	if cfg.tflm != "" {
		b.WriteString(" TFLM head, own planner | TFLM head, optalloc's plan |")
	}
	b.WriteString("\n|---|--:|--:|--:|--:|--:|--:|---|--:|")
	if cfg.tflm != "" {
		b.WriteString("--:|--:|")
	}
	b.WriteString("\n")
	for i, r := range results {
		greedy, auto := &r.Runs[0], &r.Runs[1]
		if !greedy.HasPlan() || !greedy.Valid || !auto.HasPlan() || !auto.Valid {
			return nil, fmt.Errorf("%s: no verified plan (tflm-greedy: %v %s; auto: %v %s)", paths[i],
				greedy.Err, greedy.Violation, auto.Err, auto.Violation)
		}
		row := modelRow{peak: auto.Peak, bound: r.LowerBound, status: string(auto.Status), secs: auto.Elapsed.Seconds(), buffers: fmt.Sprint(r.Buffers), ownHead: "–", planHead: "–"}
		if m, _ := ins[i].TFLite(); m != nil {
			var err error
			if row, err = deviceRow(ctx, paths[i], ins[i], cfg); err != nil {
				return nil, err
			}
		}
		if row.peak > greedy.Peak {
			return nil, fmt.Errorf("%s: optalloc's arena %d is larger than TFLite Micro greedy's %d", paths[i], row.peak, greedy.Peak)
		}
		g := fmt.Sprint(greedy.Peak)
		if greedy.Peak > row.peak {
			g += fmt.Sprintf(" (+%.2f%%)", 100*float64(greedy.Peak-row.peak)/float64(row.peak))
		}
		gap := 0.0
		if row.bound > 0 {
			gap = 100 * float64(row.peak-row.bound) / float64(row.bound)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | **%d** | %s | %.2f%% | %s | %.2fs |",
			modelName(paths[i]), tensors[i], row.buffers, g, row.peak, corpus.BoundText(row.bound), gap, row.status, row.secs)
		if cfg.tflm != "" {
			fmt.Fprintf(&b, " %s | %s |", row.ownHead, row.planHead)
		}
		b.WriteString("\n")
	}
	return b.Bytes(), nil
}

// modelRow is what a row states of optalloc.
type modelRow struct {
	peak, bound       int64
	status            string
	secs              float64
	buffers           string
	ownHead, planHead string // tflm_run's arena_head, "–" when it cannot run the model
}

// deviceRow plans a TFLite model's device arena and, with tflm_run, runs
// the model with TFLite Micro's own planner and with the plan written.
func deviceRow(ctx context.Context, path string, in *optalloc.Input, cfg modelsConfig) (modelRow, error) {
	_, arena := in.TFLite()
	res, err := optalloc.Plan(ctx, in, optalloc.Options{Options: solve.Options{TimeLimit: cfg.limit, Threads: 1}})
	if err != nil {
		return modelRow{}, fmt.Errorf("%s: %v", path, err)
	}
	if res.Plan == nil {
		return modelRow{}, fmt.Errorf("%s: no plan (%s)", path, res.Status)
	}
	row := modelRow{peak: res.Peak, bound: res.LowerBound, status: string(res.Status), secs: res.Elapsed.Seconds(),
		buffers: fmt.Sprint(len(arena.Tensors)), ownHead: "–", planHead: "–"}
	if n := len(arena.Scratch); n > 0 {
		row.buffers += fmt.Sprintf(" + %d", n)
	}
	if cfg.tflm == "" {
		return row, nil
	}
	own, err := tflmrun.Run(cfg.tflm, path, "--no-tensors")
	if err != nil {
		return modelRow{}, err
	}
	if !own.OK {
		return row, nil // the reference kernels cannot run it (an NPU operator, stub weights)
	}
	data, err := withPlan(in, path, res.Plan)
	if err != nil {
		return modelRow{}, err
	}
	run, err := runBytes(cfg.tflm, path, data)
	if err != nil {
		return modelRow{}, err
	}
	switch {
	case !run.OK:
		return modelRow{}, fmt.Errorf("%s: TFLite Micro fails on optalloc's plan:\n%s", path, run.Text)
	case run.Mismatched != 0:
		return modelRow{}, fmt.Errorf("%s: TFLite Micro did not honour %d offline offsets", path, run.Mismatched)
	case run.Head != res.Peak:
		return modelRow{}, fmt.Errorf("%s: optalloc states %d but TFLite Micro's head is %d", path, res.Peak, run.Head)
	}
	row.ownHead, row.planHead = fmt.Sprint(own.Head), fmt.Sprint(run.Head)
	return row, nil
}

// modelName is the file name, with the folder for files outside the shared
// models (the repository's examples).
func modelName(path string) string {
	if strings.Contains(path, "shared/models") {
		return filepath.Base(path)
	}
	return path
}
