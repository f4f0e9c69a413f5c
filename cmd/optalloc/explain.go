package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/optalloc/optalloc/formats/graph"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/solve"
)

// graphReport reads a model graph again for its report (aliases made,
// copies removed, weights shared, per-model figures). It returns nil when
// the input is not a model graph.
func graphReport(e *env, path string) (*graph.Report, error) {
	if path == "-" || !strings.HasSuffix(strings.ToLower(path), ".graph.json") {
		return nil, nil // stdin was consumed by loadProblem; other formats have no report
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &model.InputError{File: path, Msg: "cannot open: " + err.Error()}
	}
	_, rep, err := graph.Read(bytes.NewReader(data), path)
	return rep, err
}

// isModelFile reports whether path names a TFLite or ONNX model.
func isModelFile(path string) bool {
	l := strings.ToLower(path)
	return strings.HasSuffix(l, ".tflite") || strings.HasSuffix(l, ".onnx")
}

// explain writes what the front end and the planner did: the graph report
// (aliases, copies removed, per-model arenas against the shared one, weights
// stored once) and where the scratch buffers went.
func explain(ctx context.Context, e *env, w io.Writer, path string, p *model.Problem, res *solve.Result, opt solve.Options) error {
	rep, err := graphReport(e, path)
	if err != nil {
		return err
	}
	if rep != nil {
		rep.SetSharedPeak(res.Peak)
		sep := opt
		sep.Progress, sep.Capacity = nil, 0
		sep.TimeLimit = opt.TimeLimit / time.Duration(max(len(rep.Separate), 1))
		peak := func(q *model.Problem) (int64, error) {
			r, err := solve.Solve(ctx, q, sep)
			if err != nil {
				return 0, err
			}
			return r.Peak, nil
		}
		if err := rep.PlanSeparately(peak); err != nil {
			return err
		}
		if err := rep.PlanReload(peak); err != nil {
			return err
		}
		if err := rep.WriteText(w); err != nil {
			return err
		}
	} else if isModelFile(path) || e.tflite != nil {
		explainModel(e, w, path, p, res)
	} else {
		fmt.Fprintf(w, "%s: %d buffers (not a model graph: no aliases or model report)\n", path, len(p.Buffers))
	}
	if res.Plan == nil {
		return nil
	}
	pools := p.PoolList()
	n := 0
	for i := range p.Buffers {
		b := &p.Buffers[i]
		if b.Kind != model.Scratch {
			continue
		}
		if n == 0 {
			fmt.Fprintln(w, "scratch placements:")
		}
		n++
		q := res.Plan.Placements[i]
		fmt.Fprintf(w, "  %s: [%d, %d) offset %d, %d B", b.ID, b.Start, b.End, q.Offset, q.Size)
		if b.Elastic() {
			fmt.Fprintf(w, " (asked %d..%d)", b.Size, b.MaxSize)
		}
		if len(pools) > 1 {
			fmt.Fprintf(w, " in %s", pools[q.Pool].Name)
		}
		fmt.Fprintln(w)
	}
	return nil
}
