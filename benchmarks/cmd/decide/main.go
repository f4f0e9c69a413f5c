// Command decide measures optalloc's decisions against MiniMalloc's on
// MiniMalloc's eleven "challenging" instances A–K, in one run: for each
// run and each instance, interleaved, it runs `optalloc plan X.csv
// --capacity 1048576 --threads 1 --json` and MiniMalloc's own binary
// (`minimalloc --capacity=1048576 --input=X.csv --output=... --validate`)
// and takes the CPU time (user + system) of each child process from its
// resource usage. It prints a markdown table of medians: optalloc's CPU
// time, MiniMalloc's, their ratio and the branch-and-bound's nodes (window
// searches included).
//
// Usage (from the repository root; MiniMalloc built from a copy SRC of its
// sources by `benchmarks/cmd/decide/build-minimalloc.sh SRC /tmp/mm/build`):
//
//	go run ./benchmarks/cmd/decide -minimalloc /tmp/mm/build/minimalloc -shared ../shared/benchmarks -runs 3 -readme README.md
//
// With -readme the table replaces what lies between the lines
// <!-- decide:begin --> and <!-- decide:end --> of that file. Without the
// MiniMalloc binary the command says so and exits with status 2. Every
// answer is checked: optalloc's must be a plan within the capacity
// (status optimal or feasible), MiniMalloc's must pass its own validation.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	devreport "github.com/optalloc/optalloc/internal/report"
)

const (
	begin    = "<!-- decide:begin -->"
	end      = "<!-- decide:end -->"
	capacity = 1048576
)

// instances are MiniMalloc's challenging instances, in the order measured.
var instances = []string{"A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "K"}

// config is what to measure.
type config struct {
	minimalloc string // MiniMalloc's binary
	optalloc   string // optalloc's binary ("" = build it)
	dir        string // folder of the X.1048576.csv files
	names      []string
	runs       int
	limit      time.Duration // per process
	note       string
	command    string
}

// errUsage marks errors of the command line or of its inputs (exit 2).
var errUsage = errors.New("usage")

func main() {
	mm := flag.String("minimalloc", "", "MiniMalloc's binary (built from its sources)")
	opt := flag.String("optalloc", "", "optalloc's binary (default: go build ./cmd/optalloc into a temporary folder)")
	shared := flag.String("shared", "../shared/benchmarks", "the shared benchmarks folder (its minimalloc/ holds A..K.1048576.csv)")
	only := flag.String("only", "", "comma-separated instances (default A..K)")
	runs := flag.Int("runs", 3, "runs of each instance (the table shows medians)")
	limit := flag.Duration("time-limit", 120*time.Second, "limit of one process (optalloc's --time-limit; MiniMalloc is killed after it)")
	note := flag.String("note", "", "a sentence added to the table's header (what else ran on the machine)")
	out := flag.String("o", "-", "output markdown file (- = stdout)")
	readme := flag.String("readme", "", "replace the text between "+begin+" and "+end+" of this file (instead of -o)")
	flag.Parse()
	cfg := config{minimalloc: *mm, optalloc: *opt, dir: filepath.Join(*shared, "minimalloc"), runs: *runs,
		limit: *limit, note: *note, command: devreport.CommandLine("go run ./benchmarks/cmd/decide", os.Args[1:])}
	cfg.names = instances
	if *only != "" {
		cfg.names = strings.Split(*only, ",")
	}
	err := cfg.check()
	if err == nil && *readme != "" && *out != "-" {
		err = fmt.Errorf("%w: give -o or -readme, not both", errUsage)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "decide:", strings.TrimPrefix(err.Error(), "usage: "))
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	t, err := measure(ctx, cfg)
	if err == nil {
		err = devreport.Write(t.markdown(), *out, *readme, begin, end)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "decide:", err)
		os.Exit(1)
	}
}

// check validates the configuration before anything runs: the MiniMalloc
// binary must exist and be executable, every instance must be there.
func (c *config) check() error {
	if c.minimalloc == "" {
		return fmt.Errorf("%w: -minimalloc is required (MiniMalloc's binary, built from its sources)", errUsage)
	}
	if err := executable(c.minimalloc); err != nil {
		return fmt.Errorf("%w: MiniMalloc binary %s", errUsage, err)
	}
	if c.optalloc != "" {
		if err := executable(c.optalloc); err != nil {
			return fmt.Errorf("%w: optalloc binary %s", errUsage, err)
		}
	}
	if c.runs < 1 {
		return fmt.Errorf("%w: -runs must be at least 1", errUsage)
	}
	if c.limit <= 0 {
		return fmt.Errorf("%w: -time-limit must be positive", errUsage)
	}
	for _, n := range c.names {
		if p := c.input(n); !regular(p) {
			return fmt.Errorf("%w: instance %s: %s is not there", errUsage, n, p)
		}
	}
	return nil
}

func (c *config) input(name string) string { return filepath.Join(c.dir, name+".1048576.csv") }

// executable fails unless path is a regular file with an execute bit.
func executable(path string) error {
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return fmt.Errorf("%s is absent (%v)", path, errors.Unwrap(err))
	case !fi.Mode().IsRegular():
		return fmt.Errorf("%s is not a regular file", path)
	case fi.Mode().Perm()&0o111 == 0:
		return fmt.Errorf("%s is not executable", path)
	}
	return nil
}

func regular(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}
