package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	devreport "github.com/optalloc/optalloc/internal/report"
)

// sample is one run of both solvers on one instance.
type sample struct {
	opt, mm float64 // CPU seconds (user + system) of each process
	nodes   int64   // optalloc's branch-and-bound nodes, window searches included
}

// table is everything measured, ready to be written.
type table struct {
	when         time.Time
	machine      string
	revision     string
	load0, load1 string
	runs         int
	note         string
	command      string
	rows         []row
}

// row is one instance's samples.
type row struct {
	name    string
	samples []sample
}

// measure runs every instance cfg.runs times, optalloc then MiniMalloc,
// interleaved over the instances (run 1 of every instance, then run 2, ...).
func measure(ctx context.Context, cfg config) (*table, error) {
	tmp, err := os.MkdirTemp("", "decide-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	if cfg.optalloc == "" {
		cfg.optalloc = filepath.Join(tmp, "optalloc")
		cmd := exec.CommandContext(ctx, "go", "build", "-o", cfg.optalloc, "./cmd/optalloc")
		cmd.Stderr = os.Stderr
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("go build ./cmd/optalloc (run from the repository root): %w", err)
		}
	}
	t := &table{when: time.Now(), machine: devreport.Machine(), revision: devreport.Revision(),
		load0: devreport.LoadAverage(), runs: cfg.runs, note: cfg.note, command: cfg.command}
	for _, n := range cfg.names {
		t.rows = append(t.rows, row{name: n})
	}
	for run := 0; run < cfg.runs; run++ {
		for k := range t.rows {
			name := t.rows[k].name
			var s sample
			if s.opt, s.nodes, err = runOptalloc(ctx, cfg, name, tmp); err != nil {
				return nil, fmt.Errorf("optalloc on %s: %w", name, err)
			}
			if s.mm, err = runMiniMalloc(ctx, cfg, name, tmp); err != nil {
				return nil, fmt.Errorf("MiniMalloc on %s: %w", name, err)
			}
			t.rows[k].samples = append(t.rows[k].samples, s)
			fmt.Fprintf(os.Stderr, "run %d %s: optalloc %.3f s CPU (%d nodes), MiniMalloc %.3f s CPU\n", run+1, name, s.opt, s.nodes, s.mm)
		}
	}
	t.load1 = devreport.LoadAverage()
	return t, nil
}

// cpu is a finished process's CPU time in seconds.
func cpu(ps *os.ProcessState) float64 { return (ps.UserTime() + ps.SystemTime()).Seconds() }

// planOutput is the part of `optalloc plan --json` read here.
type planOutput struct {
	Status string `json:"status"`
	Peak   *int64 `json:"peak"`
	Stats  struct {
		Engines struct {
			BnB struct {
				Nodes       int64 `json:"nodes"`
				WindowNodes int64 `json:"window_nodes"`
			} `json:"bnb"`
		} `json:"engines"`
	} `json:"stats"`
}

func runOptalloc(ctx context.Context, cfg config, name, tmp string) (float64, int64, error) {
	out := filepath.Join(tmp, name+".plan.csv")
	os.Remove(out)
	cmd := exec.CommandContext(ctx, cfg.optalloc, "plan", cfg.input(name), "--capacity", fmt.Sprint(capacity),
		"--threads", "1", "--time-limit", cfg.limit.String(), "--json", "-o", out)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if cmd.ProcessState == nil {
		return 0, 0, err
	}
	var po planOutput
	if jerr := json.Unmarshal(stdout.Bytes(), &po); jerr != nil {
		return 0, 0, fmt.Errorf("%v: %s", jerr, strings.TrimSpace(stderr.String()))
	}
	if err := checkPlan(po); err != nil {
		return 0, 0, err
	}
	return cpu(cmd.ProcessState), po.Stats.Engines.BnB.Nodes + po.Stats.Engines.BnB.WindowNodes, nil
}

// checkPlan accepts only a plan within the capacity.
func checkPlan(po planOutput) error {
	if (po.Status != "optimal" && po.Status != "feasible") || po.Peak == nil || *po.Peak > capacity {
		peak := "none"
		if po.Peak != nil {
			peak = fmt.Sprint(*po.Peak)
		}
		return fmt.Errorf("no plan within %d: status %s, peak %s", capacity, po.Status, peak)
	}
	return nil
}

func runMiniMalloc(ctx context.Context, cfg config, name, tmp string) (float64, error) {
	ctx, cancel := context.WithTimeout(ctx, cfg.limit)
	defer cancel()
	out := filepath.Join(tmp, name+".minimalloc.csv")
	cmd := exec.CommandContext(ctx, cfg.minimalloc, fmt.Sprintf("--capacity=%d", capacity),
		"--input="+cfg.input(name), "--output="+out, "--validate")
	var combined bytes.Buffer
	cmd.Stdout, cmd.Stderr = &combined, &combined
	err := cmd.Run()
	if err != nil {
		return 0, fmt.Errorf("%v: %s", err, strings.TrimSpace(combined.String()))
	}
	if !strings.Contains(combined.String(), "Validation PASS") {
		return 0, fmt.Errorf("no validated solution: %s", strings.TrimSpace(combined.String()))
	}
	return cpu(cmd.ProcessState), nil
}
