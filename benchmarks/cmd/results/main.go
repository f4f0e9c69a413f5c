// Command results regenerates the results tables of optalloc's README: it
// runs every method on every instance of the shared benchmark folder and
// writes markdown with the machine, Go version and date in its header.
//
// Usage (from the repository root):
//
//	go run ./benchmarks/cmd/results -shared ../shared/benchmarks -o results.md
//
// With -readme docs/results.md the tables replace what lies between the lines
// <!-- results:begin --> and <!-- results:end --> of that file instead:
//
//	go run ./benchmarks/cmd/results -shared ../shared/benchmarks -readme docs/results.md
//
// Flags: -time-limit per method (default 10s), -methods (comma-separated;
// default every planner and auto), -threads instances at a time (default 1:
// timings of parallel solves on a small machine mean little), -match to keep
// only instances whose path contains a string, -note free text for the header.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"time"

	"github.com/optalloc/optalloc"
	"github.com/optalloc/optalloc/corpus"
	"github.com/optalloc/optalloc/formats/onnx"
	"github.com/optalloc/optalloc/internal/report"
	"github.com/optalloc/optalloc/internal/tflmrun"
)

func main() {
	shared := flag.String("shared", "../shared/benchmarks", "the shared benchmark folder")
	out := flag.String("o", "-", "output markdown file (- = stdout)")
	limit := flag.Duration("time-limit", 10*time.Second, "time limit of each solve")
	methods := flag.String("methods", "", "comma-separated methods (default: every planner, then auto)")
	threads := flag.Int("threads", 1, "instances solved at the same time")
	match := flag.String("match", "", "only instances whose path contains this")
	note := flag.String("note", "", "free text added to the header")
	readme := flag.String("readme", "", "replace the results between the markers of this file (instead of -o)")
	dims := map[string]int64{}
	flag.Func("dim", "with -models: fix a symbolic dimension of the ONNX models, NAME=VALUE as optalloc's --dim (repeatable)", func(s string) error {
		name, v, err := onnx.ParseDim(s)
		dims[name] = v
		return err
	})
	tflm := flag.String("tflm", "../shared/tflm/tflm_run", "with -models: TFLite Micro's host runtime, to report the heads it uses (skipped when absent)")
	devices := flag.String("devices", "", "with -models: the emulated Cortex-M builds (../shared/tflm-cortexm): write the devices table instead (TFLite models planned with --target for the host and each Cortex-M, run there)")
	models := flag.String("models", "", "the shared models folder: plan its model files (and the model files given as arguments) with tflite-greedy and auto instead of the benchmark corpus")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	meta := corpus.Meta{Command: report.CommandLine("go run ./benchmarks/cmd/results", os.Args[1:]), Date: time.Now(), Machine: report.Machine(), GoVersion: runtime.Version(),
		Revision: report.Revision(), TimeLimit: *limit, Workers: *threads, Note: *note}
	var err error
	if *models != "" && *devices != "" {
		err = devicesTable(ctx, *models, flag.Args(), *tflm, *devices, *limit, *out, *readme, meta)
	} else if *models != "" {
		bin, _ := tflmrun.Find(*tflm)
		err = modelsTable(ctx, *models, flag.Args(), modelsConfig{dims: dims, limit: *limit, tflm: bin}, *out, *readme, meta)
	} else {
		err = run(ctx, *shared, *out, *readme, *methods, *match, meta)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "results:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, shared, out, readme, methodList, match string, meta corpus.Meta) error {
	files, err := corpus.FindCorpus(shared)
	if err != nil {
		return err
	}
	ms := corpus.DefaultMethods()
	if methodList != "" {
		ms = strings.Split(methodList, ",")
	}
	if err := corpus.CheckMethods(ms); err != nil {
		return err
	}
	var insts []corpus.Instance
	var kept []corpus.CorpusFile
	for _, f := range files {
		if match != "" && !strings.Contains(f.Path, match) {
			continue
		}
		in, err := optalloc.Load(f.Path, optalloc.LoadOptions{})
		if err != nil {
			return err
		}
		insts = append(insts, corpus.Instance{Name: f.Path, Problem: in.Problem, Online: in.Online(), Input: in})
		kept = append(kept, f)
	}
	results := corpus.Run(ctx, insts, corpus.Config{Methods: ms, TimeLimit: meta.TimeLimit, Workers: meta.Workers,
		OnRun: func(inst string, r corpus.MethodRun) {
			fmt.Fprintf(os.Stderr, "%-60s %-18s peak=%d status=%s %.2fs\n", inst, r.Method, r.Peak, r.Status, r.Elapsed.Seconds())
		}})
	if err := ctx.Err(); err != nil {
		return err
	}
	rows := make([]corpus.Row, len(results))
	for i, r := range results {
		rows[i] = corpus.Row{Group: kept[i].Group, Result: r}
		if kept[i].Reference != "" {
			if rows[i].Reference, err = corpus.ReferencePeak(kept[i].Reference); err != nil {
				return err
			}
		}
	}
	var md bytes.Buffer
	if err := corpus.WriteMarkdown(&md, meta, ms, rows); err != nil {
		return err
	}
	return report.Write(md.Bytes(), out, readme, corpus.BeginMarker, corpus.EndMarker)
}

// modelsTable writes the models table (see runModels).
func modelsTable(ctx context.Context, dir string, extra []string, cfg modelsConfig, out, readme string, meta corpus.Meta) error {
	paths, err := findModels(dir, extra)
	if err != nil {
		return err
	}
	md, err := runModels(ctx, paths, cfg, meta)
	if err != nil {
		return err
	}
	return report.Write(md, out, readme, modelsBegin, modelsEnd)
}
