package main

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/pflag"

	"github.com/optalloc/optalloc/corpus"
)

func init() {
	register(&command{
		name:    "compare",
		args:    "INPUT...",
		summary: "run several methods on several inputs and print a table of peaks, gaps, statuses and times",
		long: `Every method runs on every INPUT (inputs in parallel, at most --threads at a
time; the methods of one input one after the other). Every plan is re-checked
by the independent verifier. The table has one row per input: buffers, the
best lower bound any method proved, and for each method its peak, the gap to
that lower bound, its status and its time. The best peak of each row is
marked (bold in markdown, and listed in the "best" column).

--pool NAME:CAPACITY[:ALIGN] (repeatable, fastest first) gives every input
without pools the same tiers, as in plan. With several pools the peak is the
largest pool's and spilling lowers it, so no lower bound and no gap is shown.

Methods default to every planner plus "auto"; --methods all adds "heuristic"
and "exact". Times are wall-clock times of solves that may share cores with
each other: use --threads 1 for timings.

--json prints, instead of the table, an object with these stable fields:
  optalloc_version, methods, time_limit_seconds,
  instances[]: input, buffers, max_live, lower_bound, best_peak, best_methods,
    results[]: method, peak, lower_bound, gap_percent (null without a plan),
               status, found_by, time_seconds, valid, best, error
Exit 1 when a method failed or produced an invalid plan on some input.`,
		flags: func(fs *pflag.FlagSet) {
			fs.StringSlice("methods", nil, "comma-separated methods (default: every planner, then auto; 'all' = planners, auto, heuristic, exact)")
			layoutFlags(fs, false)
			fs.Duration("time-limit", 10*time.Second, "time limit of each solve")
			fs.String("format", "md", "table format: md (markdown) or csv")
			fs.Bool("json", false, "print the results as JSON instead of a table")
			fs.Int("threads", 0, "inputs solved at the same time (0 = all cores)")
			fs.Int64("seed", 1, "seed passed to every solve")
			fs.BoolP("quiet", "q", false, "no progress bar")
			plannerOptFlag(fs)
			poolFlag(fs)
		},
		run: runCompare,
	})
}

type compareJSON struct {
	Version   string                `json:"optalloc_version"`
	Methods   []string              `json:"methods"`
	TimeLimit float64               `json:"time_limit_seconds"`
	Instances []compareInstanceJSON `json:"instances"`
}

type compareInstanceJSON struct {
	Input       string           `json:"input"`
	Buffers     int              `json:"buffers"`
	MaxLive     int64            `json:"max_live"`
	LowerBound  int64            `json:"lower_bound"`
	BestPeak    int64            `json:"best_peak"`
	BestMethods []string         `json:"best_methods"`
	Results     []compareRunJSON `json:"results"`
}

type compareRunJSON struct {
	Method     string   `json:"method"`
	Peak       int64    `json:"peak"`
	LowerBound int64    `json:"lower_bound"`
	Gap        *float64 `json:"gap_percent"`
	Status     string   `json:"status"`
	FoundBy    string   `json:"found_by"`
	Seconds    float64  `json:"time_seconds"`
	Valid      bool     `json:"valid"`
	Best       bool     `json:"best"`
	Error      string   `json:"error,omitempty"`
}

// blockMethods checks --methods for --layout blocks (default: all of them).
func blockMethods(ms []string) ([]string, error) {
	known := corpus.BlockMethods()
	if len(ms) == 0 || len(ms) == 1 && ms[0] == "all" {
		return known, nil
	}
	for _, m := range ms {
		if !slices.Contains(known, m) {
			return nil, fmt.Errorf("unknown block method %q (want %s)", m, strings.Join(known, ", "))
		}
	}
	return ms, nil
}

// parseMethods expands the --methods flag and checks every name.
func parseMethods(ms []string) ([]string, error) {
	var out []string
	for _, m := range ms {
		m = strings.TrimSpace(m)
		switch m {
		case "":
		case "all":
			out = append(out, corpus.AllMethods()...)
		default:
			out = append(out, m)
		}
	}
	if len(out) == 0 {
		out = corpus.DefaultMethods()
	}
	seen := map[string]bool{}
	uniq := out[:0]
	for _, m := range out {
		if !seen[m] {
			seen[m] = true
			uniq = append(uniq, m)
		}
	}
	return uniq, corpus.CheckMethods(uniq)
}

// loadInstances reads every input before anything runs, so that a bad input
// stops the command (exit 2) without wasting solves.
func loadInstances(e *env, args []string) ([]corpus.Instance, error) {
	insts := make([]corpus.Instance, 0, len(args))
	stdin := false
	for _, a := range args {
		if a == "-" {
			if stdin {
				return nil, usageErr("standard input (-) can be read only once")
			}
			stdin = true
		}
		p, err := loadProblem(e, a)
		if err != nil {
			return nil, err
		}
		if err := applyPools(e, p, a); err != nil {
			return nil, err
		}
		// A TFLite model's scratch buffers are the runtime's to place: every
		// method's arena is the device's (read now: the next input
		// replaces what e.online reads).
		insts = append(insts, corpus.Instance{Name: a, Problem: p, Online: e.online(a, p)})
		if t := e.tflite; t != nil && t.path == a && e.online(a, p) != nil {
			fmt.Fprintf(e.stderr, "tflm: %s: every arena is the device's head on %s (%s)\n", a, t.arena.Target.Name(), kernelsText(t.arena))
		}
	}
	return insts, nil
}

// runWithBar runs the corpus, showing a progress bar on stderr when it is a
// terminal and quiet is false.
func runWithBar(ctx context.Context, e *env, insts []corpus.Instance, cfg corpus.Config, quiet bool) []corpus.Result {
	if !quiet && isTerminal(e.stderr) {
		bar := progressbar.NewOptions(len(insts)*len(cfg.Methods),
			progressbar.OptionSetWriter(e.stderr),
			progressbar.OptionSetDescription("solving"),
			progressbar.OptionShowCount(),
			progressbar.OptionSetElapsedTime(true),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionClearOnFinish(),
			progressbar.OptionSetRenderBlankState(true),
		)
		cfg.OnRun = func(inst string, r corpus.MethodRun) {
			bar.Describe(shortName(inst) + " " + r.Method)
			bar.Add(1)
		}
		// Redraw twice a second so that the elapsed time moves during
		// long solves.
		stop := make(chan struct{})
		ticked := make(chan struct{})
		go func() {
			defer close(ticked)
			t := time.NewTicker(500 * time.Millisecond)
			defer t.Stop()
			for {
				select {
				case <-stop:
					return
				case <-t.C:
					bar.Add(0)
				}
			}
		}()
		defer func() {
			close(stop)
			<-ticked
			bar.Finish()
		}()
	}
	return corpus.Run(ctx, insts, cfg)
}

func runCompare(ctx context.Context, e *env, args []string) error {
	fs := e.flags
	if len(args) == 0 {
		return usageErr("want at least one INPUT (see 'optalloc help compare')")
	}
	ms, _ := fs.GetStringSlice("methods")
	limit, _ := fs.GetDuration("time-limit")
	format, _ := fs.GetString("format")
	asJSON, _ := fs.GetBool("json")
	threads, _ := fs.GetInt("threads")
	seed, _ := fs.GetInt64("seed")
	quiet, _ := fs.GetBool("quiet")
	layout, err := layoutOf(fs)
	if err != nil {
		return err
	}
	var methods []string
	if layout == "blocks" {
		methods, err = blockMethods(ms)
	} else {
		methods, err = parseMethods(ms)
	}
	if err != nil {
		return usageErr("--methods: %v", err)
	}
	if format != "md" && format != "csv" {
		return usageErr("--format must be md or csv, not %q", format)
	}
	if limit < 0 || threads < 0 {
		return usageErr("--time-limit and --threads must not be negative")
	}
	popts, err := plannerOptsFor(fs, layout)
	if err != nil {
		return err
	}
	insts, err := loadInstances(e, args)
	if err != nil {
		return err
	}
	cfg := corpus.Config{Methods: methods, TimeLimit: limit, Workers: threads, Seed: seed, Layout: layout, Tune: popts.tune()}
	results := runWithBar(ctx, e, insts, cfg, quiet)
	if asJSON {
		err = writeJSON(e.stdout, compareToJSON(results, methods, limit))
	} else if format == "csv" {
		err = writeCompareCSV(e.stdout, results, methods)
	} else {
		err = writeCompareMarkdown(e.stdout, results, methods)
	}
	if err != nil {
		return err
	}
	bad := 0
	for _, r := range results {
		for _, run := range r.Runs {
			switch {
			case run.Err != nil:
				bad++
				fmt.Fprintf(e.stderr, "%s: %s: %v\n", r.Name, run.Method, run.Err)
			case run.Plan != nil && !run.Valid:
				bad++
				fmt.Fprintf(e.stderr, "%s: %s: invalid plan: %s\n", r.Name, run.Method, run.Violation)
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return failure("interrupted: %v", err)
	}
	if bad > 0 {
		return failure("%d runs failed or produced invalid plans", bad)
	}
	return nil
}

func compareToJSON(results []corpus.Result, methods []string, limit time.Duration) compareJSON {
	out := compareJSON{Version: Version, Methods: methods, TimeLimit: limit.Seconds(), Instances: []compareInstanceJSON{}}
	for i := range results {
		r := &results[i]
		ij := compareInstanceJSON{Input: r.Name, Buffers: r.Buffers, MaxLive: r.MaxLive, LowerBound: r.LowerBound,
			BestPeak: r.BestPeak, BestMethods: append([]string{}, r.Best...), Results: []compareRunJSON{}}
		for k := range r.Runs {
			run := &r.Runs[k]
			rj := compareRunJSON{Method: run.Method, Peak: run.Peak, LowerBound: run.LowerBound, Status: string(run.Status),
				FoundBy: run.FoundBy, Seconds: run.Elapsed.Seconds(), Valid: run.Valid, Best: r.IsBest(run)}
			if g := r.Gap(run); g >= 0 {
				rj.Gap = &g
			}
			switch {
			case run.Err != nil:
				rj.Error, rj.Status = run.Err.Error(), "error"
			case run.Plan != nil && !run.Valid:
				rj.Error = "invalid plan: " + run.Violation
			}
			ij.Results = append(ij.Results, rj)
		}
		out.Instances = append(out.Instances, ij)
	}
	return out
}

// runCell is the markdown cell of one run: peak (bold when best), gap,
// status and time.
func runCell(r *corpus.Result, run *corpus.MethodRun) string {
	switch {
	case errors.Is(run.Err, corpus.ErrOverrun):
		return "OVERRAN " + fmtSeconds(run.Elapsed)
	case run.Err != nil:
		return "error"
	case run.Plan == nil:
		return fmt.Sprintf("— %s %s", run.Status, fmtSeconds(run.Elapsed))
	case !run.Valid:
		return "INVALID"
	}
	peak := strconv.FormatInt(run.Peak, 10)
	if r.IsBest(run) {
		peak = "**" + peak + "**"
	}
	return fmt.Sprintf("%s %s %s %s", peak, fmtGap(r.Gap(run)), run.Status, fmtSeconds(run.Elapsed))
}

func fmtGap(g float64) string {
	if g < 0 {
		return ""
	}
	return strconv.FormatFloat(g, 'f', 2, 64) + "%"
}

func fmtSeconds(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'f', 3, 64) + "s" }

func writeCompareMarkdown(w io.Writer, results []corpus.Result, methods []string) error {
	var b strings.Builder
	b.WriteString("| instance | buffers | lower bound |")
	for _, m := range methods {
		b.WriteString(" " + m + " |")
	}
	b.WriteString(" best |\n|---|--:|--:|")
	for range methods {
		b.WriteString("---|")
	}
	b.WriteString("---|\n")
	for i := range results {
		r := &results[i]
		fmt.Fprintf(&b, "| %s | %d | %s |", r.Name, r.Buffers, corpus.BoundText(r.LowerBound))
		for k := range r.Runs {
			b.WriteString(" " + runCell(r, &r.Runs[k]) + " |")
		}
		b.WriteString(" " + bestList(r, ", ") + " |\n")
	}
	b.WriteString("\nCells: peak (best in bold), gap to the lower bound, status, time.\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func writeCompareCSV(w io.Writer, results []corpus.Result, methods []string) error {
	cw := csv.NewWriter(w)
	header := []string{"instance", "buffers", "lower_bound"}
	for _, m := range methods {
		header = append(header, m+":peak", m+":gap_percent", m+":status", m+":time_seconds")
	}
	header = append(header, "best")
	if err := cw.Write(header); err != nil {
		return err
	}
	for i := range results {
		r := &results[i]
		row := []string{r.Name, strconv.Itoa(r.Buffers), strconv.FormatInt(r.LowerBound, 10)}
		for k := range r.Runs {
			run := &r.Runs[k]
			peak, gap, status := "", "", string(run.Status)
			switch {
			case run.Err != nil:
				status = "error"
			case run.Plan != nil && !run.Valid:
				status = "invalid"
			case run.Plan != nil:
				peak = strconv.FormatInt(run.Peak, 10)
				gap = strconv.FormatFloat(r.Gap(run), 'f', 4, 64)
			}
			row = append(row, peak, gap, status, strconv.FormatFloat(run.Elapsed.Seconds(), 'f', 4, 64))
		}
		row = append(row, bestList(r, " "))
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// shortName is the last element of a path, for the progress bar.
func shortName(path string) string {
	if i := strings.LastIndexAny(path, `/\`); i >= 0 {
		return path[i+1:]
	}
	return path
}

// bestList names the methods that reached the best peak, or "all".
func bestList(r *corpus.Result, sep string) string {
	if len(r.Best) > 1 && len(r.Best) == len(r.Runs) {
		return "all"
	}
	return strings.Join(r.Best, sep)
}
