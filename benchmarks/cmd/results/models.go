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

	"github.com/optalloc/optalloc/corpus"
	"github.com/optalloc/optalloc/formats"
	"github.com/optalloc/optalloc/formats/onnx"
	"github.com/optalloc/optalloc/formats/tflite"
	"github.com/optalloc/optalloc/model"
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

// loadModel reads a model file into its arena problem (an ONNX model with
// its symbolic dimensions fixed by dims) and describes its tensors for the
// table: all / constants (weights) / variables.
func loadModel(path string, dims map[string]int64) (*model.Problem, string, error) {
	switch {
	case strings.HasSuffix(path, ".tflite"):
		m, err := tflite.ReadFile(path)
		if err != nil {
			return nil, "", err
		}
		a, err := m.Arena()
		if err != nil {
			return nil, "", err
		}
		var consts, vars int
		for _, t := range m.Tensors {
			if t.Constant {
				consts++
			}
			if t.Variable {
				vars++
			}
		}
		return a.Problem, fmt.Sprintf("%d / %d / %d", len(m.Tensors), consts, vars), nil
	case strings.HasSuffix(path, ".onnx"):
		a, err := onnx.LoadFile(path, onnx.Options{Dims: dims})
		if err != nil {
			return nil, "", err
		}
		return a.Problem, fmt.Sprintf("%d / %d / 0", len(a.Problem.Buffers)+a.Weights, a.Weights), nil
	}
	p, err := formats.Load(path)
	return p, "–", err
}

// runModels plans every model with modelMethods and returns the markdown
// table: per model its tensors, the buffers planned, TFLite Micro's greedy
// arena, optalloc's, the lower bound, the gap and the status.
func runModels(ctx context.Context, paths []string, dims map[string]int64, limit time.Duration, meta corpus.Meta) ([]byte, error) {
	insts := make([]corpus.Instance, len(paths))
	tensors := make([]string, len(paths))
	for i, p := range paths {
		prob, desc, err := loadModel(p, dims)
		if err != nil {
			return nil, err
		}
		insts[i], tensors[i] = corpus.Instance{Name: p, Problem: prob}, desc
	}
	results := corpus.Run(ctx, insts, corpus.Config{Methods: modelMethods, TimeLimit: limit, Workers: 1,
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
	if len(dims) > 0 {
		b.WriteString("ONNX models with their symbolic dimensions fixed by -dim (as `optalloc plan --dim`).\n")
	}
	b.WriteString("Tensors: all / constants / variables (constants and variables are not in the arena). " +
		"Arenas in bytes; the gap is optalloc's arena over the lower bound.\n\n")
	b.WriteString("| model | tensors | arena buffers | TFLite Micro greedy | optalloc | lower bound | gap | status | time |\n")
	b.WriteString("|---|--:|--:|--:|--:|--:|--:|---|--:|\n")
	for i, r := range results {
		greedy, auto := &r.Runs[0], &r.Runs[1]
		if !greedy.HasPlan() || !greedy.Valid || !auto.HasPlan() || !auto.Valid {
			return nil, fmt.Errorf("%s: no verified plan (tflm-greedy: %v %s; auto: %v %s)", paths[i],
				greedy.Err, greedy.Violation, auto.Err, auto.Violation)
		}
		if auto.Peak > greedy.Peak {
			return nil, fmt.Errorf("%s: optalloc's arena %d is larger than TFLite Micro greedy's %d", paths[i], auto.Peak, greedy.Peak)
		}
		g := fmt.Sprint(greedy.Peak)
		if greedy.Peak > auto.Peak {
			g += fmt.Sprintf(" (+%.2f%%)", 100*float64(greedy.Peak-auto.Peak)/float64(auto.Peak))
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %s | **%d** | %s | %.2f%% | %s | %.2fs |\n",
			modelName(paths[i]), tensors[i], r.Buffers, g, auto.Peak, corpus.BoundText(r.LowerBound),
			r.Gap(auto), auto.Status, auto.Elapsed.Seconds())
	}
	return b.Bytes(), nil
}

// modelName is the file name, with the folder for files outside the shared
// models (the repository's examples).
func modelName(path string) string {
	if strings.Contains(path, "shared/models") {
		return filepath.Base(path)
	}
	return path
}
