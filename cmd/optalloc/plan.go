package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/optalloc/optalloc"
	"github.com/optalloc/optalloc/exact/bnb"
	"github.com/optalloc/optalloc/heuristics"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/solve"
)

func init() {
	register(&command{
		name:    "plan",
		args:    "INPUT...",
		summary: "plan a problem: offsets with the smallest peak found, lower bound and proof status",
		long: `INPUT is a MiniMalloc CSV (.csv), a JSON problem (.json), a model graph
(.graph.json), a TFLite model (.tflite), an ONNX model (.onnx) or an
allocation trace (.events); "-" reads standard input (every format, sniffed).

An .onnx model is planned as the tensors computed at run time (initializers
and constant-folded tensors are weights, outside the arena), with shapes from
the model or inferred; --dim NAME=VALUE fixes a symbolic dimension. Reshape,
Flatten, Squeeze, Unsqueeze and Identity are planned in place.

A .tflite model is planned as the arena TFLite Micro uses: one buffer per
tensor its planner places (not constants, not variable tensors) and one per
scratch buffer its kernels request (TFLite Micro's reference kernels by
default; --scratch LIST for the requests recorded on your target, --no-scratch
for the tensors alone), sizes rounded up to 16 bytes, TFLite Micro's
lifetimes. Only tensors get offline offsets: the runtime places the scratch
buffers itself around them, so the peak stated is the head after that
placement, simulated exactly, never above TFLite Micro's own planner's (its
tensor offsets are kept when optalloc's would give more, and a line says so).
-o OUT.tflite writes a copy of the model with the tensor offsets as its
OfflineMemoryAllocation metadata (replacing any plan it had; zero-byte
tensors -1), checked by reading it back. The summary ends in scratch=K
(buffers planned) or scratch=none. --method tflm-greedy runs TFLite Micro's
own greedy planner for comparison.

Without --capacity the peak is minimised: heuristics first, then the exact
engines (from 2 000 buffers with the time-window refinement) until the lower
bound is reached (status=optimal) or the time limit (status=feasible, with the
gap). With --capacity C the question is a decision:
a plan with peak <= C (exit 0), status=infeasible when a proof says no plan
fits (exit 1), status=unknown when time ran out first (exit 1).

The summary line goes to stderr:
  peak=N lower_bound=N gap=P% status=S method=M time=Ds
(peak, gap and method are "none" when no plan was found; time is the wall
time since the start, reading the input included, as --time-limit counts;
with several pools it ends in split=exact[,proven] or split=heuristic; peak
and lower_bound are then the largest pool's, for that split).
--json prints the same (and engine statistics) as JSON on stdout.

With several pools (--pool, or pools in a JSON problem) the buffers are split
over them, fastest first: the fast pools keep the heaviest share that fits
(weight, else bytes; latency-critical scratch first) and the rest spills on.
The exact methods search that split and prove it when a pool has at most 24
candidates; --json reports pool_peaks and split (method, proven, and per pool
buffers, bytes and spilled weight).

--layout blocks plans whole reusable blocks instead of offsets (GPU textures,
runtime buffer pools): every buffer gets a block, buffers sharing a block are
never live together, and the total block bytes are minimised. Its summary is
  total_bytes=N lower_bound=N gap=P% blocks=N min_blocks=N status=S method=M time=Ds
Methods: auto (= exact), greedy_in_order, greedy_by_size, greedy_by_breadth,
min_cost_flow, and equal_slots (another objective: blocks of one size, as
few as fit). --schedule F writes the replayable allocation schedule.` + multiPlanHelp,
		flags: planFlags,
		run:   runPlan,
	})
}

func planFlags(fs *pflag.FlagSet) {
	poolFlag(fs)
	fs.Var(new(byteSize), "capacity", "decide whether the plan fits in this many bytes (e.g. 1048576 or 1MiB); 0 = minimise")
	fs.Duration("time-limit", 10*time.Second, "stop after this much wall time from the start (reading the input included) and return the best plan found; 0 = no limit")
	fs.Int64("work", 0, "a work budget instead of wall time: one answer per input on any machine (one thread, the branch-and-bound bounded by this many nodes, no stage given a share of the clock, SAT left out; --time-limit is then only a safety net); 0 = off, 1000000 is check's default (docs/tools.md)")
	fs.String("method", "auto", "auto (heuristics, then the exact race) | exact | bnb | sat | heuristic (the portfolio) | a planner name")
	fs.StringP("output", "o", "", "write the plan to this file (by suffix: .csv: input columns plus offset; .json: JSON plan; .tflite: a copy of the input .tflite model carrying the plan as TFLite Micro's offline plan; .svg, .html: a picture, as --svg/--html; - = stdout, CSV)")
	fs.String("svg", "", "also draw the plan as an SVG picture")
	fs.String("html", "", "also draw the plan as a self-contained HTML page with hover and zoom")
	fs.Bool("json", false, "print the result as JSON on stdout")
	fs.Bool("explain", false, "also list aliases (in-place ops), copies removed, scratch placements and per-model savings (stderr when stdout carries the plan or JSON)")
	fs.BoolP("quiet", "q", false, "no progress and no summary line")
	fs.Int("threads", 0, "concurrent workers (0 = all cores)")
	fs.Int64("seed", 1, "seed for randomised planners: same input, flags and seed give the same plan")
	layoutFlags(fs, true)
	plannerOptFlag(fs)
	for _, f := range pruneFlags {
		fs.Bool(f.name, false, f.usage)
	}
	fs.StringSlice("bnb-orders", nil, "B&B: static orders of the portfolio, comma-separated (keys T W A Z L R N, descending; suffix -rank; \"random\"); default "+strings.Join(bnb.DefaultOrders(), ","))
	fs.Lookup("method").Usage += "; planners: " + strings.Join(heuristics.Names(), ", ")
	multiFlags(fs)
}

// pruneFlags switch engines and pruning techniques off, so that the effect of
// each can be measured.
var pruneFlags = []struct {
	name, usage string
	set         func(*solve.Options)
}{
	{"no-bnb", "leave the branch-and-bound out of the exact race", func(o *solve.Options) { o.NoBnB = true }},
	{"no-sat", "leave the SAT engine out of the exact race", func(o *solve.Options) { o.NoSAT = true }},
	{"no-coarse", "do not try restrictions when some buffers have large alignments (the others aligned to 2-8x the grid, or the large ones pinned where they pack alone; never used with --threads 1)", func(o *solve.Options) { o.NoCoarse = true }},
	{"no-round", "plan as it is a problem whose offsets all lie on a grid coarser than its sizes (a pool alignment, say), instead of with the sizes rounded up to that grid", func(o *solve.Options) { o.NoRound = true }},
	{"no-refine", "do not re-plan windows of time around the peak on problems of 2 000 buffers or more (the branch-and-bound on each window, the rest pinned)", func(o *solve.Options) { o.NoRefine = true }},
	{"no-section-inference", "B&B: no section floor + unplaced-size pruning", func(o *solve.Options) { o.BnB.NoSectionInference = true }},
	{"no-dominance", "B&B: no dominance pruning", func(o *solve.Options) { o.BnB.NoDominance = true }},
	{"no-unplaced-shortcut", "B&B: branch even on buffers that conflict with nothing unplaced", func(o *solve.Options) { o.BnB.NoUnplacedShortcut = true }},
	{"no-components", "B&B: do not split into independent time components", func(o *solve.Options) { o.BnB.NoComponents = true }},
	{"no-memo", "B&B: do not remember failed states", func(o *solve.Options) { o.BnB.NoMemo = true }},
	{"no-cover", "SAT: no cover clauses for full sections", func(o *solve.Options) { o.SAT.NoCover = true }},
	{"no-pin-filter", "SAT: keep offsets that overlap a pinned buffer in the domains and encode those pairs", func(o *solve.Options) { o.SAT.NoPinFilter = true }},
	{"no-align-stacks", "B&B: section inference counts aligned buffers at their size, not rounded up to the alignment", func(o *solve.Options) { o.BnB.NoAlignStacks = true }},
	{"no-canonical", "B&B: placements need not be non-decreasing in (offset, rank) from one step to the next", func(o *solve.Options) { o.BnB.NoCanonical = true }},
	{"no-windows", "B&B: no window refutation (the unplaced buffers of a stretch of sections searched alone) at nodes whose subtree has grown large", func(o *solve.Options) { o.BnB.NoWindows = true }},
	{"no-split", "B&B: do not solve time-disjoint groups of unplaced buffers independently", func(o *solve.Options) { o.BnB.NoSplit = true }},
	{"no-probe", "B&B: decide only at the capacity, without the ladder of tighter probes", func(o *solve.Options) { o.BnB.NoProbe = true }},
	{"no-symmetry", "no symmetry breaking (B&B: identical buffers in a fixed order; SAT: reflection and identical buffers)", func(o *solve.Options) {
		o.SAT.NoSymmetry, o.BnB.NoSymmetry = true, true
	}},
}

// planJSON is the --json output of plan; its field names are stable.
type planJSON struct {
	Input      string           `json:"input"`
	Buffers    int              `json:"buffers"`
	Peak       *int64           `json:"peak"` // null without a plan
	LowerBound int64            `json:"lower_bound"`
	Gap        *float64         `json:"gap_percent"` // null without a plan
	Status     solve.Status     `json:"status"`
	Method     string           `json:"method"`
	Seconds    float64          `json:"time_seconds"`
	Capacity   int64            `json:"capacity,omitempty"`
	PoolPeaks  map[string]int64 `json:"pool_peaks,omitempty"`
	Split      *solve.Split     `json:"split,omitempty"`
	Reason     string           `json:"reason,omitempty"`
	Output     string           `json:"output,omitempty"`
	Stats      solve.Stats      `json:"stats"`
	TFLite     *tfliteJSON      `json:"tflite,omitempty"`
}

// pictureWriter draws a plan as SVG and/or HTML; the viz command sets it.
var pictureWriter func(e *env, p *model.Problem, plan *model.Plan, lowerBound int64, svg, html string) error

// progressReporter returns the callback that shows progress on stderr; the
// progress file sets it. nil means no progress display.
var progressReporter func(e *env) (report func(solve.Progress), done func())

func runPlan(ctx context.Context, e *env, args []string) error {
	if isMultiPlan(e, args) {
		return runPlanMulti(ctx, e, args) // several models: multi.go
	}
	if len(args) != 1 {
		return usageErr("want exactly one INPUT (see 'optalloc help plan')")
	}
	fs := e.flags
	capacity := int64(*fs.Lookup("capacity").Value.(*byteSize))
	limit, _ := fs.GetDuration("time-limit")
	method, _ := fs.GetString("method")
	out, _ := fs.GetString("output")
	svg, _ := fs.GetString("svg")
	html, _ := fs.GetString("html")
	svg, html, out, suffixErr := outputBySuffix(out, svg, html) // -o's format by suffix (output.go)
	if suffixErr != nil {
		return suffixErr
	}
	asJSON, _ := fs.GetBool("json")
	quiet, _ := fs.GetBool("quiet")
	threads, _ := fs.GetInt("threads")
	seed, _ := fs.GetInt64("seed")
	work, _ := fs.GetInt64("work")
	if limit < 0 {
		return usageErr("--time-limit must not be negative")
	}
	if work < 0 {
		return usageErr("--work must not be negative")
	}
	if threads < 0 {
		return usageErr("--threads must not be negative")
	}
	if (svg != "" || html != "") && pictureWriter == nil {
		return usageErr("--svg and --html are not available in this build")
	}
	if out == "-" && asJSON {
		return usageErr("-o - and --json both write to stdout; choose one")
	}
	if err := checkWritable(out, svg, html); err != nil {
		return err
	}
	if err := checkTFLiteOutput(e, args[0], out); err != nil {
		return err
	}
	if err := checkScratchFlags(e, args[0]); err != nil {
		return err
	}
	layout, err := layoutOf(fs)
	if err != nil {
		return err
	}
	if layout != "blocks" {
		for _, f := range []string{"max-blocks", "schedule"} {
			if fs.Changed(f) {
				return usageErr("--%s applies to --layout blocks only", f)
			}
		}
	}
	popts, err := plannerOptsFor(fs, layout)
	if err != nil {
		return err
	}
	p, err := loadProblem(e, args[0])
	if err != nil {
		return err
	}
	if err := applyPools(e, p, args[0]); err != nil {
		return err
	}
	if err := checkTFLiteWritable(e, args[0], out, p); err != nil {
		return err
	}
	if svg != "" || html != "" {
		// Checked before solving, so that a long solve is not lost to it.
		if n := len(p.Buffers); n > vizMaxBuffers {
			return usageErr("%d buffers are too many to draw (--svg/--html stop at %d; viz --max-buffers -1 lifts it); leave out --svg and --html", n, vizMaxBuffers)
		}
	}
	if capacity > 0 && len(p.PoolList()) > 1 {
		return usageErr("--capacity decides a single pool; with %d pools give each its capacity (--pool NAME:CAPACITY or the JSON problem)", len(p.PoolList()))
	}
	if layout == "blocks" {
		if svg != "" || html != "" {
			return usageErr("--svg and --html draw offset plans; not available with --layout blocks")
		}
		return planBlocks(ctx, e, args[0], p)
	}
	stopProgress := func() {}
	opt := solve.Options{Method: method, Capacity: capacity, TimeLimit: remaining(e, limit), Threads: threads, Seed: seed, Work: work}
	for _, f := range pruneFlags {
		if on, _ := fs.GetBool(f.name); on {
			f.set(&opt)
		}
	}
	ctx, p = popts.apply(ctx, p, &opt)
	if orders, _ := fs.GetStringSlice("bnb-orders"); len(orders) > 0 {
		if err := bnb.CheckOrders(orders); err != nil {
			return usageErr("--bnb-orders: %v", err)
		}
		opt.BnB.Orders = orders
	}
	if !quiet && progressReporter != nil {
		report, done := progressReporter(e)
		opt.Progress = report
		stopProgress = done
	}
	in := e.input.WithProblem(p)
	r, err := optalloc.Plan(ctx, in, optalloc.Options{Options: opt})
	stopProgress() // the progress line gives way to what follows
	if err != nil {
		if errors.Is(err, optalloc.ErrUnknownMethod) {
			return usageErr("%v", err)
		}
		return err
	}
	res, dev := r.Result, r.Device
	if res.Plan != nil {
		if out != "" {
			if err := writePlan(e, in, out, res.Plan); err != nil {
				return err
			}
		}
		if svg != "" || html != "" {
			if err := pictureWriter(e, p, res.Plan, res.LowerBound, svg, html); err != nil {
				return err
			}
		}
	}
	elapsed := time.Since(e.start) // wall time from the start, reading included
	if on, _ := fs.GetBool("explain"); on {
		w := e.stdout
		if asJSON || out == "-" || svg == "-" || html == "-" {
			w = e.stderr
		}
		if err := explain(ctx, e, w, args[0], p, res, opt); err != nil {
			return err
		}
	}
	if !quiet {
		split := ""
		if res.Split != nil {
			// Several pools: peak and bound are the largest pool's for
			// the split chosen; say how it was chosen.
			split = " split=" + res.Split.Method
			if res.Split.Proven {
				split += ",proven"
			}
		}
		// Without a plan there is no peak, gap nor method: "none", not 0.
		// An unknown decision shows its best plan's (above the capacity,
		// not written).
		peak, gap, method := "none", "none", "none"
		if res.Plan != nil || res.Best != nil {
			peak, gap, method = fmt.Sprint(res.Peak), fmt.Sprintf("%.2f%%", res.Gap()), res.Method
		}
		scratch, line := tfliteSummary(e, args[0], dev)
		fmt.Fprintf(e.stderr, "peak=%s lower_bound=%d gap=%s status=%s method=%s time=%.3fs%s%s\n",
			peak, res.LowerBound, gap, res.Status, method, elapsed.Seconds(), split, scratch)
		if line != "" {
			fmt.Fprintln(e.stderr, line)
		}
		if rt, ok := in.Runtime().(runtimeSummary); ok && res.Plan != nil {
			if s := rt.Summary(p, res.Plan); s != "" {
				fmt.Fprintln(e.stderr, s)
			}
		}
	}
	if asJSON {
		j := planJSON{Input: args[0], Buffers: len(p.Buffers), LowerBound: res.LowerBound,
			Status: res.Status, Method: res.Method, Seconds: elapsed.Seconds(),
			Capacity: capacity, Reason: res.Reason, Output: out, Split: res.Split, Stats: res.Stats,
			TFLite: tfliteReport(e, args[0], dev)}
		if res.Plan != nil || res.Best != nil {
			peak, gap := res.Peak, res.Gap()
			j.Peak, j.Gap = &peak, &gap
		}
		if res.Plan != nil && len(p.PoolList()) > 1 {
			j.PoolPeaks = map[string]int64{}
			for i, v := range res.Plan.PoolPeaks(p) {
				j.PoolPeaks[p.PoolList()[i].Name] = v
			}
		}
		if err := writeJSON(e.stdout, j); err != nil {
			return err
		}
	}
	switch res.Status {
	case solve.Infeasible, solve.Unknown:
		return &exitError{code: 1, msg: string(res.Status) + ": " + res.Reason}
	}
	return nil
}

// runtimeSummary is a runtime back end with figures of its own about a
// plan (ExecuTorch's bufsizes), printed under the summary line.
type runtimeSummary interface {
	Summary(p *model.Problem, plan *model.Plan) string
}

// vizMaxBuffers is the largest plan plan --svg/--html draws (viz's default).
const vizMaxBuffers = 200000

// remaining is what is left of a --time-limit counted from the start of the
// process (reading the input used some); 0 stays "no limit", and a limit
// already spent leaves a nanosecond (the solve returns at once).
func remaining(e *env, limit time.Duration) time.Duration {
	if limit <= 0 {
		return limit
	}
	return max(limit-time.Since(e.start), time.Nanosecond)
}

// poolFlag defines --pool (plan, compare, check).
func poolFlag(fs *pflag.FlagSet) {
	fs.StringArray("pool", nil, "add a memory pool NAME:CAPACITY[:ALIGN] for inputs without pools; repeat, fastest first (CAPACITY 0 = unbounded)")
}

// applyPools gives p the --pool pools (none when the command has no such
// flag or it was not given).
func applyPools(e *env, p *model.Problem, input string) error {
	specs, _ := e.flags.GetStringArray("pool")
	pools, err := parsePools(specs)
	if err != nil || len(pools) == 0 {
		return err
	}
	if len(p.Pools) > 0 {
		return usageErr("%s defines pools already; --pool is for inputs without pools", input)
	}
	p.Pools = pools
	return p.Validate()
}

// parsePools reads --pool NAME:CAPACITY[:ALIGN] values; ranks follow the
// order given.
func parsePools(specs []string) ([]model.Pool, error) {
	var pools []model.Pool
	for rank, spec := range specs {
		parts := strings.Split(spec, ":")
		if len(parts) < 2 || len(parts) > 3 || parts[0] == "" {
			return nil, usageErr("--pool %q: want NAME:CAPACITY[:ALIGN]", spec)
		}
		for _, q := range pools {
			if q.Name == parts[0] {
				return nil, usageErr("--pool %q: pool %q is given twice", spec, q.Name)
			}
		}
		q := model.Pool{Name: parts[0], Rank: rank}
		var c, a byteSize
		if err := c.Set(parts[1]); err != nil {
			return nil, usageErr("--pool %q: capacity %v", spec, err)
		}
		q.Capacity = int64(c)
		if len(parts) == 3 {
			if err := a.Set(parts[2]); err != nil || a == 0 {
				return nil, usageErr("--pool %q: alignment must be a positive integer", spec)
			}
			q.Align = int64(a)
		}
		pools = append(pools, q)
	}
	return pools, nil
}

// writePlan writes the plan as the front door encodes it for path's
// suffix (optalloc.Input.Encode: CSV or JSON plan, a .tflite model carrying
// it), staged with the command's other outputs.
func writePlan(e *env, in *optalloc.Input, path string, plan *model.Plan) error {
	format := path
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() && !slices.Contains(optalloc.Suffixes, strings.ToLower(filepath.Ext(path))) {
		format = "-" // a device or FIFO without a known suffix: CSV, as on stdout
	}
	enc, err := in.Encode(format, plan)
	if err != nil {
		return err
	}
	for _, n := range enc.Notes {
		fmt.Fprintln(e.stderr, n)
	}
	return writeOutput(e, path, func(w io.Writer) error {
		_, err := w.Write(enc.Data)
		return err
	})
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(v)
}
