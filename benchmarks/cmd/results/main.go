// Command results regenerates the results tables of optalloc's README: it
// runs every method on every instance of the shared benchmark folder and
// writes markdown with the machine, Go version and date in its header.
//
// Usage (from the repository root):
//
//	go run ./benchmarks/cmd/results -shared ../shared/benchmarks -o results.md
//
// With -readme README.md the tables replace what lies between the lines
// <!-- results:begin --> and <!-- results:end --> of that file instead:
//
//	go run ./benchmarks/cmd/results -shared ../shared/benchmarks -readme README.md
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
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/optalloc/optalloc/benchmarks"
	"github.com/optalloc/optalloc/model"
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
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, *shared, *out, *readme, *limit, *methods, *threads, *match, *note, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "results:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, shared, out, readme string, limit time.Duration, methodList string, threads int, match, note string, args []string) error {
	files, err := benchmarks.FindCorpus(shared)
	if err != nil {
		return err
	}
	ms := benchmarks.DefaultMethods()
	if methodList != "" {
		ms = strings.Split(methodList, ",")
	}
	if err := benchmarks.CheckMethods(ms); err != nil {
		return err
	}
	var insts []benchmarks.Instance
	var kept []benchmarks.CorpusFile
	for _, f := range files {
		if match != "" && !strings.Contains(f.Path, match) {
			continue
		}
		p, err := model.Load(f.Path)
		if err != nil {
			return err
		}
		insts = append(insts, benchmarks.Instance{Name: f.Path, Problem: p})
		kept = append(kept, f)
	}
	start := time.Now()
	results := benchmarks.Run(ctx, insts, benchmarks.Config{Methods: ms, TimeLimit: limit, Workers: threads,
		OnRun: func(inst string, r benchmarks.MethodRun) {
			fmt.Fprintf(os.Stderr, "%-60s %-18s peak=%d status=%s %.2fs\n", inst, r.Method, r.Peak, r.Status, r.Elapsed.Seconds())
		}})
	if err := ctx.Err(); err != nil {
		return err
	}
	rows := make([]benchmarks.Row, len(results))
	for i, r := range results {
		rows[i] = benchmarks.Row{Group: kept[i].Group, Result: r}
		if kept[i].Reference != "" {
			if rows[i].Reference, err = benchmarks.ReferencePeak(kept[i].Reference); err != nil {
				return err
			}
		}
	}
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = a
		if strings.ContainsAny(a, " \t'\"$") {
			quoted[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	cmd := "go run ./benchmarks/cmd/results " + strings.Join(quoted, " ")
	meta := benchmarks.Meta{Command: strings.TrimSpace(cmd), Date: start, Machine: machine(), GoVersion: runtime.Version(),
		Revision: revision(), TimeLimit: limit, Workers: threads, Note: note}
	var md bytes.Buffer
	if err := benchmarks.WriteMarkdown(&md, meta, ms, rows); err != nil {
		return err
	}
	if readme != "" {
		old, err := os.ReadFile(readme)
		if err != nil {
			return err
		}
		text, err := benchmarks.SpliceReadme(old, md.Bytes())
		if err != nil {
			return fmt.Errorf("%s: %w", readme, err)
		}
		return atomicWrite(readme, text)
	}
	if out == "-" {
		_, err := os.Stdout.Write(md.Bytes())
		return err
	}
	return atomicWrite(out, md.Bytes())
}

// atomicWrite replaces path only once the whole text is written.
func atomicWrite(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// machine describes the machine: OS/arch, CPU count and model.
func machine() string {
	s := fmt.Sprintf("%s/%s, %d CPUs", runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				s += " (" + strings.TrimSpace(v) + ")"
				break
			}
		}
	}
	return s
}

// revision is the git commit of the working tree, when git can tell.
func revision() string {
	out, err := exec.Command("git", "describe", "--always", "--dirty").Output()
	if err != nil {
		return "(unknown revision)"
	}
	return "commit " + strings.TrimSpace(string(out))
}
