// Command scale measures optalloc at a million buffers and more, end to
// end: it generates the inputs into a temporary folder (removed after),
// builds the CLI there with go build, and runs `optalloc plan FILE
// --time-limit L --threads T --json` on each trace for each thread count
// and time limit, a few times each. It prints a markdown table of medians:
// the first verified plan (stats.first_plan_ms, counted from the start of
// the solve, after reading), the wall time and CPU time of the whole
// process (reading included), its peak RSS, the peak's gap to max-live and
// the status; then the CSV reader's speed and the time to read a
// 100 000-op model graph (benchmarks.ChainGraph, the shape of
// formats/graph's BenchmarkRead100kOps), in process and as `optalloc bounds`.
//
// Usage (from the repository root):
//
//	go run ./benchmarks/cmd/scale
//	go run ./benchmarks/cmd/scale -sizes 1000000,2000000 -time-limits 10s,30s -reps 3 -o scale.md
//	go run ./benchmarks/cmd/scale -readme docs/results.md
//
// With -readme the report replaces what lies between the lines
// <!-- scale:begin --> and <!-- scale:end --> of that file; with -summary
// a compact table of it (gap, wall time and status per trace and size)
// replaces what lies between <!-- scale-summary:begin --> and
// <!-- scale-summary:end --> of another (the README):
//
//	go run ./benchmarks/cmd/scale -readme docs/results.md -summary README.md
//
// The traces: random is `gen -kind random -n N` (uniform lifetimes over 2N
// steps, up to N/5 long: about N/20 buffers alive at once), transformer is
// `gen -kind transformer -backward -n N`, skips the first N buffers of
// `gen -kind skips` with 3N/8 ops or more (two models of long random skip
// connections: about 300 buffers alive at once). Timings depend on what else runs
// on the machine: the report says how many CPUs it had and its load.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	devreport "github.com/optalloc/optalloc/internal/report"
)

const (
	begin = "<!-- scale:begin -->"
	end   = "<!-- scale:end -->"
	// the compact table of -summary (the README's)
	summaryBegin = "<!-- scale-summary:begin -->"
	summaryEnd   = "<!-- scale-summary:end -->"
)

func main() {
	sizes := flag.String("sizes", "1000000,2000000", "comma-separated numbers of buffers")
	traces := flag.String("traces", "random,transformer,skips", "comma-separated traces: random, transformer, skips")
	threads := flag.String("threads", "1,2", "comma-separated --threads values")
	limits := flag.String("time-limits", "10s", "comma-separated --time-limit values")
	reps := flag.Int("reps", 3, "runs of each case (the table shows medians)")
	out := flag.String("o", "-", "output markdown file (- = stdout)")
	readme := flag.String("readme", "", "replace the text between "+begin+" and "+end+" of this file (instead of -o)")
	summary := flag.String("summary", "", "also replace the text between "+summaryBegin+" and "+summaryEnd+" of this file (the README) with a compact table: gap, wall time and status per trace and size")
	prepare := flag.String("prepare", "", "internal: generate the trace TRACE,N,DIR, time its reading and print both as JSON (run in a child process, see prepareIn)")
	flag.Parse()
	if *prepare != "" {
		if err := prepareHere(*prepare, *reps, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "scale:", err)
			os.Exit(1)
		}
		return
	}
	cfg, err := parseConfig(*sizes, *traces, *threads, *limits, *reps)
	if err == nil && *readme != "" && *out != "-" {
		err = fmt.Errorf("give -o or -readme, not both")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "scale:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	rep, err := run(ctx, cfg)
	if err == nil {
		err = devreport.Write(rep.markdown(), *out, *readme, begin, end)
	}
	if err == nil && *summary != "" {
		err = devreport.Write(rep.summary(*readme), "", *summary, summaryBegin, summaryEnd)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "scale:", err)
		os.Exit(1)
	}
}

// config is what to measure.
type config struct {
	sizes   []int
	traces  []string
	threads []int
	limits  []time.Duration
	reps    int
	command string // the command line, for the report
}

func parseConfig(sizes, traces, threads, limits string, reps int) (config, error) {
	c := config{reps: reps, command: devreport.CommandLine("go run ./benchmarks/cmd/scale", os.Args[1:])}
	if reps < 1 {
		return c, fmt.Errorf("-reps must be at least 1")
	}
	for _, s := range strings.Split(sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return c, fmt.Errorf("-sizes: %q is not a positive number", s)
		}
		c.sizes = append(c.sizes, n)
	}
	for _, s := range strings.Split(traces, ",") {
		s = strings.TrimSpace(s)
		if s != "random" && s != "transformer" && s != "skips" {
			return c, fmt.Errorf("-traces: unknown trace %q (want random, transformer or skips)", s)
		}
		c.traces = append(c.traces, s)
	}
	for _, s := range strings.Split(threads, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return c, fmt.Errorf("-threads: %q is not a positive number", s)
		}
		c.threads = append(c.threads, n)
	}
	for _, s := range strings.Split(limits, ",") {
		d, err := time.ParseDuration(strings.TrimSpace(s))
		if err != nil || d <= 0 {
			return c, fmt.Errorf("-time-limits: %q is not a positive duration", s)
		}
		c.limits = append(c.limits, d)
	}
	return c, nil
}

// run builds the CLI, generates the inputs and measures; the temporary
// folder goes in every case.
func run(ctx context.Context, cfg config) (*report, error) {
	tmp, err := os.MkdirTemp("", "optalloc-scale-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "optalloc")
	fmt.Fprintln(os.Stderr, "scale: building the CLI")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "github.com/optalloc/optalloc/cmd/optalloc")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return nil, fmt.Errorf("go build: %w", err)
	}
	rep := report{cfg: cfg, start: time.Now(), load0: devreport.LoadAverage()}
	for _, n := range cfg.sizes {
		for _, trace := range cfg.traces {
			in, r, err := prepareIn(ctx, tmp, trace, n, cfg.reps)
			if err != nil {
				return nil, err
			}
			rep.reads = append(rep.reads, r)
			for _, limit := range cfg.limits {
				for _, t := range cfg.threads {
					c := caseResult{input: in, threads: t, limit: limit}
					for i := range cfg.reps {
						fmt.Fprintf(os.Stderr, "scale: %s %d buffers, --threads %d --time-limit %v, run %d of %d\n", trace, n, t, limit, i+1, cfg.reps)
						r, err := planOnce(ctx, bin, in.path, t, limit)
						if err != nil {
							return nil, err
						}
						c.runs = append(c.runs, r)
					}
					rep.cases = append(rep.cases, c)
				}
			}
			if err := os.Remove(in.path); err != nil {
				return nil, err
			}
		}
	}
	g, err := graphSpeed(ctx, tmp, bin, cfg.reps)
	if err != nil {
		return nil, err
	}
	rep.graph = g
	rep.load1 = devreport.LoadAverage()
	rep.elapsed = time.Since(rep.start)
	return &rep, nil
}
