package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/optalloc/optalloc/corpus"
	"github.com/optalloc/optalloc/heuristics"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/solve"
)

func init() {
	register(&command{
		name:    "check",
		args:    "INPUT...",
		summary: "gate memory regressions: plan every INPUT and compare its peak with a baseline",
		long: `Plans every INPUT and compares each peak with the baseline's. Exit 1, with a
per-instance diff, when a peak got worse than the baseline by more than
--tolerance percent, when no plan was found where the baseline had one, or
when a plan is invalid (every plan is re-checked by the independent
verifier). Exit 0 otherwise; better peaks and instances missing from the
baseline are reported but do not fail.

--write-baseline FILE writes this run's results as a baseline (alone, it
creates a baseline without checking); like every output it is written only
when the command succeeds, so a failed check leaves the old baseline alone. The baseline is JSON:
  {"optalloc_version": V, "method": M, "time_limit_seconds": T,
   "instances": {"INPUT": {"peak": N, "status": S, "method": M,
                           "found_by": PLANNER, "optalloc_version": V,
                           "buffers": N, "lower_bound": N}}}
Instances are keyed by their path relative to the baseline file ("paths":
"relative to the baseline"), so any spelling of the same file, from any
folder, matches; a symlink or hard link to a recorded file matches too.
Older baselines, keyed by the path as given, are read relative to the
current folder. Baseline entries no INPUT matched are listed as "missing"
(they do not fail the check).

--method defaults to the baseline's method, else greedy-size: one
deterministic planner that finishes in milliseconds, so the same input gives
the same peak on any machine and the gate never flakes. Every method runs
under a work budget by default (--work, branch-and-bound nodes, one thread,
no stage given a share of the clock; --time-limit is then a safety net), so
"heuristic" and "auto", which find smaller peaks, give one answer per input
on any machine too. With --work 0 they stop at --time-limit instead and
their results depend on the machine's speed: gate them with a --tolerance.

--json prints, instead of the text report, an object with these stable fields:
  optalloc_version, baseline, baseline_version, method, tolerance_percent,
  passed, counts (per verdict), missing (baseline keys not run),
  instances[]: input, verdict (ok|better|worse|new|invalid|error), peak,
    baseline_peak (null when new), change_percent (null when new), status,
    baseline_status, message`,
		flags: func(fs *pflag.FlagSet) {
			fs.String("baseline", "", "baseline JSON to compare with")
			fs.Float64("tolerance", 0, "allowed peak increase in percent")
			fs.String("write-baseline", "", "write this run's results as a baseline JSON file")
			fs.String("method", "", "method to plan with (default: the baseline's, else greedy-size; with --layout blocks, greedy_by_size)")
			layoutFlags(fs, false)
			fs.Duration("time-limit", 10*time.Second, "time limit of each solve (with --work, only a safety net)")
			fs.Int64("work", solve.DefaultWork, "work budget of each solve instead of wall time, so the verdicts do not depend on the machine's load (branch-and-bound nodes, one thread; see 'optalloc help plan'); 0 = wall time (--time-limit)")
			fs.Int("threads", 0, "inputs solved at the same time (0 = all cores)")
			fs.Int64("seed", 1, "seed passed to every solve")
			fs.Bool("json", false, "print the report as JSON on stdout")
			fs.BoolP("quiet", "q", false, "no progress bar")
			poolFlag(fs)
			plannerOptFlag(fs)
		},
		run: runCheck,
	})
}

// baselineFile is the baseline JSON; its field names are stable.
type baselineFile struct {
	Version   string  `json:"optalloc_version"`
	Method    string  `json:"method"`
	TimeLimit float64 `json:"time_limit_seconds"`
	// Work is the work budget of each solve (--work); 0: wall time.
	Work int64 `json:"work,omitempty"`
	// PlannerOpts are the --planner-opt values the baseline was made with.
	PlannerOpts []string `json:"planner_opts,omitempty"`
	// InputFlags are the flags that shape the problems read (--dim,
	// --scratch, --no-scratch) the baseline was made with.
	InputFlags []string `json:"input_flags,omitempty"`
	// Paths says how instance keys are written: "relative to the baseline"
	// (keys are paths relative to the baseline file's folder); absent in
	// older baselines, whose keys are paths as given on the command line.
	Paths     string                   `json:"paths,omitempty"`
	Instances map[string]baselineEntry `json:"instances"`

	dir   string            // the baseline file's folder (readBaseline)
	index map[string]string // absolute path → key (entry builds it)
}

// pathsRelative is baselineFile.Paths of baselines written since keys
// became relative to the baseline file.
const pathsRelative = "relative to the baseline"

type baselineEntry struct {
	Peak       int64        `json:"peak"`
	Status     solve.Status `json:"status"`
	Method     string       `json:"method"`
	FoundBy    string       `json:"found_by,omitempty"`
	Version    string       `json:"optalloc_version"`
	Buffers    int          `json:"buffers,omitempty"`
	LowerBound int64        `json:"lower_bound,omitempty"`
}

type checkJSON struct {
	Version         string              `json:"optalloc_version"`
	Baseline        string              `json:"baseline"`
	BaselineVersion string              `json:"baseline_version"`
	Method          string              `json:"method"`
	Tolerance       float64             `json:"tolerance_percent"`
	Passed          bool                `json:"passed"`
	Counts          map[string]int      `json:"counts"`
	Instances       []checkInstanceJSON `json:"instances"`
	Missing         []string            `json:"missing"`
}

type checkInstanceJSON struct {
	Input          string   `json:"input"`
	Verdict        string   `json:"verdict"`
	Peak           int64    `json:"peak"`
	BaselinePeak   *int64   `json:"baseline_peak"`
	ChangePercent  *float64 `json:"change_percent"`
	Status         string   `json:"status"`
	BaselineStatus string   `json:"baseline_status"`
	Message        string   `json:"message"`
}

// The verdicts of check; worse, invalid and error fail the check.
const (
	verdictOK      = "ok"
	verdictBetter  = "better"
	verdictNew     = "new"
	verdictWorse   = "worse"
	verdictInvalid = "invalid"
	verdictError   = "error"
	// verdictMissing counts baseline entries no INPUT matched; reported,
	// it does not fail the check (a run may cover part of the baseline).
	verdictMissing = "missing"
)

func readBaseline(path string) (*baselineFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &model.InputError{File: path, Msg: "cannot read the baseline: " + err.Error()}
	}
	b := baselineFile{dir: filepath.Dir(path)}
	if err := json.Unmarshal(data, &b); err != nil {
		return nil, &model.InputError{File: path, Msg: "baseline: " + err.Error()}
	}
	if b.Instances == nil {
		return nil, &model.InputError{File: path, Msg: `baseline: no "instances" object`}
	}
	keys := make([]string, 0, len(b.Instances))
	for key, e := range b.Instances {
		if e.Peak < 0 {
			return nil, &model.InputError{File: path, Msg: fmt.Sprintf("baseline: instance %q has peak %d; a peak is >= 0", key, e.Peak)}
		}
		keys = append(keys, key)
	}
	// Two keys for one file would make the verdict depend on which is
	// looked up first.
	slices.Sort(keys)
	named := map[string]string{}
	for _, key := range keys {
		p := b.keyPath(key)
		if other, ok := named[p]; ok {
			return nil, &model.InputError{File: path, Msg: fmt.Sprintf("baseline: instances %q and %q name the same file; keep one", other, key)}
		}
		named[p] = key
	}
	return &b, nil
}

// baselineKey is the key of an input in a baseline written to
// baselinePath: its path relative to the baseline file's folder, cleaned,
// with forward slashes, so that the same file matches whatever spelling or
// working directory a later check uses. "-" stays "-".
func baselineKey(baselinePath, input string) string {
	if input == "-" {
		return input
	}
	abs, err := filepath.Abs(input)
	if err != nil {
		return filepath.ToSlash(filepath.Clean(input))
	}
	dir, err := filepath.Abs(filepath.Dir(baselinePath))
	if err == nil {
		if rel, err := filepath.Rel(dir, abs); err == nil {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.ToSlash(abs)
}

// keyPath is the absolute path a baseline key names.
func (b *baselineFile) keyPath(key string) string {
	if key == "-" {
		return key
	}
	p := filepath.FromSlash(key)
	if !filepath.IsAbs(p) && b.Paths == pathsRelative && b.dir != "" {
		p = filepath.Join(b.dir, p)
	}
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return filepath.Clean(p)
}

// entry finds the baseline entry of input: by absolute path, else by file
// identity (a symlink or hard link to a recorded file). It returns the key.
func (b *baselineFile) entry(input string) (string, bool) {
	if b.index == nil {
		b.index = make(map[string]string, len(b.Instances))
		for k := range b.Instances {
			b.index[b.keyPath(k)] = k
		}
	}
	if input == "-" {
		_, ok := b.Instances["-"]
		return "-", ok
	}
	abs, err := filepath.Abs(input)
	if err == nil {
		if k, ok := b.index[abs]; ok {
			return k, true
		}
	}
	fi, err := os.Stat(input)
	if err != nil {
		return "", false
	}
	keys := make([]string, 0, len(b.index))
	for p := range b.index {
		keys = append(keys, p)
	}
	slices.Sort(keys)
	for _, p := range keys {
		if kfi, err := os.Stat(p); err == nil && os.SameFile(fi, kfi) {
			return b.index[p], true
		}
	}
	return "", false
}

func runCheck(ctx context.Context, e *env, args []string) error {
	fs := e.flags
	basePath, _ := fs.GetString("baseline")
	tol, _ := fs.GetFloat64("tolerance")
	writePath, _ := fs.GetString("write-baseline")
	method, _ := fs.GetString("method")
	limit, _ := fs.GetDuration("time-limit")
	threads, _ := fs.GetInt("threads")
	seed, _ := fs.GetInt64("seed")
	work, _ := fs.GetInt64("work")
	asJSON, _ := fs.GetBool("json")
	quiet, _ := fs.GetBool("quiet")
	switch {
	case len(args) == 0:
		return usageErr("want at least one INPUT (see 'optalloc help check')")
	case basePath == "" && writePath == "":
		return usageErr("want --baseline FILE (or --write-baseline FILE to create one)")
	case tol < 0 || math.IsNaN(tol) || math.IsInf(tol, 0):
		return usageErr("--tolerance must be a finite percentage >= 0")
	case limit < 0 || threads < 0 || work < 0:
		return usageErr("--time-limit, --threads and --work must not be negative")
	case writePath == "-":
		return usageErr("--write-baseline needs a file name")
	}
	if err := checkWritable(writePath); err != nil {
		return err // before the solves: a typo costs nothing
	}
	var base *baselineFile
	if basePath != "" {
		var err error
		if base, err = readBaseline(basePath); err != nil {
			return err
		}
	}
	if method == "" {
		method = defaultCheckMethod()
		if base != nil && base.Method != "" {
			method = base.Method
		}
	}
	layout, err := layoutOf(fs)
	if err != nil {
		return err
	}
	if layout == "blocks" {
		if method == defaultCheckMethod() && (base == nil || base.Method == "") {
			method = "greedy_by_size" // deterministic and fast, like greedy-size for offsets
		}
		if _, err := blockMethods([]string{method}); err != nil {
			return usageErr("--method: %v", err)
		}
	} else if err := corpus.CheckMethods([]string{method}); err != nil {
		return usageErr("--method: %v", err)
	}
	if base != nil && base.Method != "" && base.Method != method && !quiet {
		fmt.Fprintf(e.stderr, "optalloc check: warning: the baseline was made with --method %s, checking with %s\n", base.Method, method)
	}
	popts, err := plannerOptsFor(fs, layout)
	if err != nil {
		return err
	}
	optArgs, _ := fs.GetStringArray("planner-opt")
	if base != nil && !slices.Equal(base.PlannerOpts, optArgs) && !quiet {
		fmt.Fprintf(e.stderr, "optalloc check: warning: the baseline was made with --planner-opt %q, checking with %q\n", base.PlannerOpts, optArgs)
	}
	inputFlags := checkInputFlags(fs)
	if base != nil && !slices.Equal(base.InputFlags, inputFlags) && !quiet {
		fmt.Fprintf(e.stderr, "optalloc check: warning: the baseline was made with the input flags %q, checking with %q: the problems may differ\n", base.InputFlags, inputFlags)
	}
	insts, err := loadInstances(e, args)
	if err != nil {
		return err
	}
	cfg := corpus.Config{Methods: []string{method}, TimeLimit: limit, Workers: threads, Seed: seed, Layout: layout, Tune: popts.tune(), Work: work}
	results := runWithBar(ctx, e, insts, cfg, quiet)
	if err := ctx.Err(); err != nil {
		return failure("interrupted: %v", err)
	}

	report := checkJSON{Version: Version, Baseline: basePath, Method: method, Tolerance: tol,
		Counts: map[string]int{}, Instances: []checkInstanceJSON{}}
	if base != nil {
		report.BaselineVersion = base.Version
	}
	matched := map[string]bool{}
	for i := range results {
		ci := judge(&results[i], base, tol)
		if rs := results[i].Runs; len(rs) > 0 && rs[0].Stats.WorkCut {
			fmt.Fprintf(e.stderr, "optalloc check: warning: %s: --time-limit ended its solve before --work did, so this result may differ on another machine (raise --time-limit or lower --work)\n", results[i].Name)
		}
		report.Counts[ci.Verdict]++
		report.Instances = append(report.Instances, ci)
		if base != nil {
			if k, ok := base.entry(results[i].Name); ok {
				matched[k] = true
			}
		}
	}
	report.Missing = []string{}
	if base != nil {
		for k := range base.Instances {
			if !matched[k] {
				report.Missing = append(report.Missing, k)
			}
		}
		slices.Sort(report.Missing)
		if n := len(report.Missing); n > 0 {
			report.Counts[verdictMissing] = n
		}
	}
	failed := report.Counts[verdictWorse] + report.Counts[verdictInvalid] + report.Counts[verdictError]
	report.Passed = failed == 0

	if writePath != "" {
		nb := newBaseline(results, method, limit, writePath)
		if layout != "blocks" {
			nb.Work = work
		}
		nb.PlannerOpts, nb.InputFlags = optArgs, inputFlags
		if err := writeOutput(e, writePath, func(w io.Writer) error { return writeJSON(w, nb) }); err != nil {
			return err
		}
	}
	if asJSON {
		if err := writeJSON(e.stdout, report); err != nil {
			return err
		}
	} else {
		writeCheckText(e.stdout, &report, base != nil)
	}
	if !report.Passed {
		// Outputs are all-or-nothing: a failed check writes no baseline.
		note := ""
		if writePath != "" {
			note = "; the baseline was not written (accept a change by running without --baseline)"
		}
		return failure("%d of %d instances regressed or failed (see above)%s", failed, len(results), note)
	}
	if writePath != "" && !quiet {
		fmt.Fprintf(e.stderr, "optalloc check: wrote the baseline %s (%d instances)\n", writePath, len(results))
	}
	return nil
}

// checkInputFlags lists the flags given that shape the problems read, as
// --flag=value in the order given (--dim may repeat).
func checkInputFlags(fs *pflag.FlagSet) []string {
	var out []string
	if dims, err := fs.GetStringArray("dim"); err == nil {
		for _, d := range dims {
			out = append(out, "--dim="+d)
		}
	}
	if on, err := fs.GetBool("no-scratch"); err == nil && on {
		out = append(out, "--no-scratch")
	}
	if list, err := fs.GetString("scratch"); err == nil && list != "" {
		out = append(out, "--scratch="+list)
	}
	return out
}

// judge compares one instance's run with its baseline entry.
func judge(r *corpus.Result, base *baselineFile, tol float64) checkInstanceJSON {
	run := &r.Runs[0]
	ci := checkInstanceJSON{Input: r.Name, Peak: run.Peak, Status: string(run.Status)}
	var entry *baselineEntry
	if base != nil {
		if k, ok := base.entry(r.Name); ok {
			b := base.Instances[k]
			entry = &b
			ci.BaselinePeak, ci.BaselineStatus = &b.Peak, string(b.Status)
		}
	}
	switch {
	case run.Err != nil:
		ci.Verdict, ci.Status, ci.Peak = verdictError, "error", 0
		ci.Message = "solve failed: " + run.Err.Error()
		return ci
	case run.Plan != nil && !run.Valid:
		ci.Verdict = verdictInvalid
		ci.Message = "the plan is invalid: " + run.Violation
		return ci
	case entry == nil:
		ci.Verdict = verdictNew
		if base != nil {
			ci.Message = fmt.Sprintf("peak %d %s (not in the baseline)", run.Peak, run.Status)
		} else {
			ci.Message = fmt.Sprintf("peak %d %s", run.Peak, run.Status)
		}
		return ci
	}
	statusNote := ""
	if string(entry.Status) != ci.Status {
		statusNote = fmt.Sprintf("; status %s → %s", entry.Status, ci.Status)
	}
	if run.Plan == nil {
		ci.Peak = 0
		if entry.Peak == 0 && entry.Status == run.Status {
			ci.Verdict, ci.Message = verdictOK, fmt.Sprintf("no plan, as in the baseline (%s)", run.Status)
		} else {
			ci.Verdict = verdictWorse
			ci.Message = fmt.Sprintf("no plan found (%s), the baseline had peak %d%s", run.Status, entry.Peak, statusNote)
		}
		return ci
	}
	if entry.Peak == 0 && run.Peak > 0 {
		ci.Verdict = verdictBetter
		ci.Message = fmt.Sprintf("peak %d where the baseline had no plan (%s)%s; refresh the baseline with --write-baseline", run.Peak, entry.Status, statusNote)
		return ci
	}
	change := 0.0
	switch {
	case entry.Peak > 0:
		change = float64(run.Peak-entry.Peak) / float64(entry.Peak) * 100
	case run.Peak > 0:
		change = 100
	}
	ci.ChangePercent = &change
	switch {
	case run.Peak > entry.Peak && change > tol:
		ci.Verdict = verdictWorse
		ci.Message = fmt.Sprintf("peak %d > baseline %d (%+.2f%%, tolerance %g%%)%s", run.Peak, entry.Peak, change, tol, statusNote)
	case run.Peak < entry.Peak:
		ci.Verdict = verdictBetter
		ci.Message = fmt.Sprintf("peak %d < baseline %d (%+.2f%%)%s; refresh the baseline with --write-baseline", run.Peak, entry.Peak, change, statusNote)
	case run.Peak > entry.Peak:
		ci.Verdict = verdictOK
		ci.Message = fmt.Sprintf("peak %d > baseline %d (%+.2f%%, within the tolerance %g%%)%s", run.Peak, entry.Peak, change, tol, statusNote)
	default:
		ci.Verdict = verdictOK
		ci.Message = fmt.Sprintf("peak %d = baseline%s", run.Peak, statusNote)
	}
	return ci
}

func newBaseline(results []corpus.Result, method string, limit time.Duration, path string) *baselineFile {
	b := &baselineFile{Version: Version, Method: method, TimeLimit: limit.Seconds(), Paths: pathsRelative,
		Instances: map[string]baselineEntry{}}
	for i := range results {
		r := &results[i]
		run := &r.Runs[0]
		if run.Err != nil || (run.Plan != nil && !run.Valid) {
			continue // never record a failure as the reference
		}
		b.Instances[baselineKey(path, r.Name)] = baselineEntry{Peak: run.Peak, Status: run.Status, Method: method,
			FoundBy: run.FoundBy, Version: Version, Buffers: r.Buffers, LowerBound: r.LowerBound}
	}
	return b
}

func writeCheckText(w io.Writer, r *checkJSON, compared bool) {
	for _, ci := range r.Instances {
		tag := ci.Verdict
		if tag == verdictWorse || tag == verdictInvalid || tag == verdictError {
			tag = "FAIL " + tag
		}
		fmt.Fprintf(w, "%-13s %s: %s\n", tag, ci.Input, ci.Message)
	}
	for _, k := range r.Missing {
		fmt.Fprintf(w, "%-13s %s: in the baseline, not run\n", verdictMissing, k)
	}
	var parts []string
	for _, v := range []string{verdictOK, verdictBetter, verdictNew, verdictWorse, verdictInvalid, verdictError, verdictMissing} {
		if n := r.Counts[v]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, v))
		}
	}
	verdict := "passed"
	switch {
	case !r.Passed:
		verdict = "FAILED"
	case !compared:
		verdict = "no baseline to compare with"
	}
	fmt.Fprintf(w, "check %s: %d instances (%s), method %s, tolerance %g%%\n", verdict, len(r.Instances), strings.Join(parts, ", "), r.Method, r.Tolerance)
}

// defaultCheckMethod is greedy-size (deterministic, fast), or the first
// registered planner if it is ever renamed.
func defaultCheckMethod() string {
	names := heuristics.Names()
	if slices.Contains(names, "greedy-size") || len(names) == 0 {
		return "greedy-size"
	}
	return names[0]
}
