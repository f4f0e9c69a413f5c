package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/optalloc/optalloc/benchmarks"
	"github.com/optalloc/optalloc/formats"
	"github.com/optalloc/optalloc/formats/csv"
	"github.com/optalloc/optalloc/formats/graph"
	"github.com/optalloc/optalloc/model"
)

// input is a generated trace on disk.
type input struct {
	trace   string
	buffers int
	path    string
	maxLive int64
}

// generate writes the trace as gen would (seed 1) and computes its
// max-live.
func generate(dir, trace string, n int) (input, error) {
	fmt.Fprintf(os.Stderr, "scale: generating %s, %d buffers\n", trace, n)
	var p *model.Problem
	switch trace {
	case "random":
		p = benchmarks.Random(1, benchmarks.RandomOptions{Buffers: n})
	case "skips":
		p = skips(n)
	default:
		p = benchmarks.Transformer(benchmarks.TransformerOptions{Backward: true, Buffers: n, Seed: 1})
	}
	in := input{trace: trace, buffers: len(p.Buffers), path: filepath.Join(dir, fmt.Sprintf("%s-%d.csv", trace, n))}
	if plain(p) {
		in.maxLive = p.LiveCounts().MaxLive
	} else {
		in.maxLive = p.ComputeSweep().MaxLive
	}
	return in, writeFile(in.path, func(w io.Writer) error { return csv.Write(w, p, nil) })
}

// skips returns the first n buffers of benchmarks.Skips with two models
// of enough ops (about 4 buffers every 3 ops): the second model is cut
// short.
func skips(n int) *model.Problem {
	for ops := n*3/8 + 1000; ; ops += ops / 8 {
		if p := benchmarks.Skips(1, 2, ops); len(p.Buffers) >= n {
			p.Buffers = p.Buffers[:n]
			return p
		}
	}
}

// plain reports whether no buffer has an alias or a gap (then whole
// lifetimes give the sweep's max-live).
func plain(p *model.Problem) bool {
	for i := range p.Buffers {
		if p.Buffers[i].Alias != nil || len(p.Buffers[i].Gaps) > 0 {
			return false
		}
	}
	return true
}

func writeFile(path string, put func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	if err := put(bw); err != nil {
		f.Close()
		return err
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// prepared is what a child process of prepareIn prints.
type prepared struct {
	Buffers int     `json:"buffers"`
	Path    string  `json:"path"`
	MaxLive int64   `json:"max_live"`
	Input   string  `json:"input"`
	Rows    int     `json:"rows"`
	Seconds float64 `json:"seconds"`
}

// prepareIn generates a trace and times its reading in a child process
// (this program with -prepare), so that this process never holds a large
// problem: on Linux a child's peak RSS counts the high-water mark of the
// process that started it (its memory until exec), and the 2M traces
// generated and read here had put 1506 MiB in the table for runs that
// had, a transformer run, peaked at 1 283 MiB under /usr/bin/time.
func prepareIn(ctx context.Context, dir, trace string, n, reps int) (input, readResult, error) {
	self, err := os.Executable()
	if err != nil {
		return input{}, readResult{}, err
	}
	cmd := exec.CommandContext(ctx, self, "-prepare", fmt.Sprintf("%s,%d,%s", trace, n, dir), "-reps", fmt.Sprint(reps))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return input{}, readResult{}, fmt.Errorf("preparing %s %d: %w", trace, n, err)
	}
	var pr prepared
	if err := json.Unmarshal(out, &pr); err != nil {
		return input{}, readResult{}, fmt.Errorf("preparing %s %d: %w", trace, n, err)
	}
	return input{trace: trace, buffers: pr.Buffers, path: pr.Path, maxLive: pr.MaxLive},
		readResult{input: pr.Input, rows: pr.Rows, seconds: pr.Seconds}, nil
}

// prepareHere is the child's side of prepareIn: spec is TRACE,N,DIR; the
// JSON goes to w.
func prepareHere(spec string, reps int, w io.Writer) error {
	parts := strings.SplitN(spec, ",", 3)
	if len(parts) != 3 {
		return fmt.Errorf("-prepare: want TRACE,N,DIR, got %q", spec)
	}
	n, err := strconv.Atoi(parts[1])
	if err != nil {
		return fmt.Errorf("-prepare: %w", err)
	}
	in, err := generate(parts[2], parts[0], n)
	if err != nil {
		return err
	}
	r, err := readSpeed(in.path, reps)
	if err != nil {
		return err
	}
	return json.NewEncoder(w).Encode(prepared{Buffers: in.buffers, Path: in.path, MaxLive: in.maxLive,
		Input: r.input, Rows: r.rows, Seconds: r.seconds})
}

// readResult is the reading speed of one input file.
type readResult struct {
	input   string
	rows    int
	seconds float64 // median
}

// readSpeed times formats.Load on the file (as the CLI reads it), reps
// times, and keeps the median.
func readSpeed(path string, reps int) (readResult, error) {
	r := readResult{input: filepath.Base(path)}
	var times []float64
	for range reps {
		t0 := time.Now()
		p, err := formats.Load(path)
		if err != nil {
			return r, err
		}
		times = append(times, time.Since(t0).Seconds())
		r.rows = len(p.Buffers)
	}
	r.seconds = median(times)
	return r, nil
}

// planRun is one run of optalloc plan.
type planRun struct {
	firstPlan float64 // seconds; < 0 without a plan
	wall, cpu float64 // seconds
	rssMiB    float64
	peak      int64 // -1 without a plan
	status    string
}

// planOnce runs optalloc plan on path and reads its --json summary.
func planOnce(ctx context.Context, bin, path string, threads int, limit time.Duration) (planRun, error) {
	cmd := exec.CommandContext(ctx, bin, "plan", path, "--time-limit", limit.String(), "--threads", fmt.Sprint(threads), "--json")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	t0 := time.Now()
	err := cmd.Run()
	r := planRun{wall: time.Since(t0).Seconds(), firstPlan: -1, peak: -1}
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1) {
		return r, fmt.Errorf("optalloc plan %s: %v: %s", filepath.Base(path), err, lastLine(stderr.String()))
	}
	if cmd.ProcessState != nil {
		r.cpu, r.rssMiB = usage(cmd.ProcessState)
	}
	return r, parseSummary(stdout.Bytes(), &r)
}

// parseSummary reads what the table needs from plan's --json output.
func parseSummary(data []byte, r *planRun) error {
	var s struct {
		Peak   *int64 `json:"peak"`
		Status string `json:"status"`
		Stats  struct {
			FirstPlanMillis float64 `json:"first_plan_ms"`
		} `json:"stats"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return fmt.Errorf("optalloc plan --json: %v", err)
	}
	r.status = s.Status
	if s.Peak != nil {
		r.peak = *s.Peak
		if s.Stats.FirstPlanMillis > 0 {
			r.firstPlan = s.Stats.FirstPlanMillis / 1000
		}
	}
	return nil
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// graphResult is the time to read a model graph of 100 000 ops.
type graphResult struct {
	ops       int
	load, cli float64 // medians: formats.Load in process, optalloc bounds
}

// graphSpeed writes benchmarks.ChainGraph with 100 000 ops and times
// reading it in process and `optalloc bounds` on it.
func graphSpeed(ctx context.Context, dir, bin string, reps int) (graphResult, error) {
	f := benchmarks.ChainGraph(1, 100001)
	g := graphResult{ops: len(f.Ops)}
	path := filepath.Join(dir, "chain.graph.json")
	if err := writeFile(path, func(w io.Writer) error { return graph.Write(w, f) }); err != nil {
		return g, err
	}
	var load, cli []float64
	for range reps {
		t0 := time.Now()
		if _, err := formats.Load(path); err != nil {
			return g, err
		}
		load = append(load, time.Since(t0).Seconds())
		t0 = time.Now()
		if out, err := exec.CommandContext(ctx, bin, "bounds", path).CombinedOutput(); err != nil {
			return g, fmt.Errorf("optalloc bounds: %v: %s", err, lastLine(string(out)))
		}
		cli = append(cli, time.Since(t0).Seconds())
	}
	g.load, g.cli = median(load), median(cli)
	return g, nil
}
