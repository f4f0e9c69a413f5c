package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"time"
)

// caseResult is the runs of one trace, thread count and time limit.
type caseResult struct {
	input   input
	threads int
	limit   time.Duration
	runs    []planRun
}

// report is everything measured.
type report struct {
	cfg          config
	start        time.Time
	elapsed      time.Duration
	load0, load1 string
	cases        []caseResult
	reads        []readResult
	graph        graphResult
}

func (r *report) markdown() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "Measured %s on %s, %s, %s; 1-minute load average %s at the start, %s at the end; %s in all.\n",
		r.start.UTC().Format("2006-01-02 15:04 UTC"), machine(), runtime.Version(), revision(),
		orUnknown(r.load0), orUnknown(r.load1), r.elapsed.Round(time.Second))
	fmt.Fprintf(&b, "Reproduce: `%s`. Medians of %d runs of `optalloc plan FILE --time-limit L --threads T --json`; "+
		"first plan is `stats.first_plan_ms` (from the start of the solve, after reading); wall, CPU (user + system) "+
		"and peak RSS are the whole process's, reading included.\n\n", r.cfg.command, r.cfg.reps)
	b.WriteString("| trace | buffers | threads | time limit | first plan (s) | wall (s) | CPU (s) | peak RSS (MiB) | peak vs max-live | status |\n")
	b.WriteString("|---|--:|--:|--:|--:|--:|--:|--:|--:|---|\n")
	for _, c := range r.cases {
		fmt.Fprintf(&b, "| %s | %d | %d | %v | %s | %.2f | %.2f | %.0f | %s | %s |\n",
			c.input.trace, c.input.buffers, c.threads, c.limit, c.firstPlan(),
			median(c.field(func(p planRun) float64 { return p.wall })),
			median(c.field(func(p planRun) float64 { return p.cpu })),
			median(c.field(func(p planRun) float64 { return p.rssMiB })),
			c.gap(), c.status())
	}
	b.WriteString("\n| CSV input | rows | read (s) | rows/s |\n|---|--:|--:|--:|\n")
	for _, rd := range r.reads {
		fmt.Fprintf(&b, "| %s | %d | %.3f | %.2f M |\n", rd.input, rd.rows, rd.seconds, float64(rd.rows)/rd.seconds/1e6)
	}
	fmt.Fprintf(&b, "\nA model graph of %d ops (`benchmarks.ChainGraph`, as `gen -kind chain-graph -n %d`): read in %.3f s "+
		"(`formats.Load`, in process), `optalloc bounds` %.3f s end to end (medians of %d).\n",
		r.graph.ops, r.graph.ops+1, r.graph.load, r.graph.cli, r.cfg.reps)
	return b.Bytes()
}

func (c *caseResult) field(f func(planRun) float64) []float64 {
	var v []float64
	for _, r := range c.runs {
		v = append(v, f(r))
	}
	return v
}

// firstPlan is the median first plan of the runs that had one, and how
// many had none.
func (c *caseResult) firstPlan() string {
	var v []float64
	for _, r := range c.runs {
		if r.firstPlan >= 0 {
			v = append(v, r.firstPlan)
		}
	}
	switch {
	case len(v) == 0:
		return "none"
	case len(v) < len(c.runs):
		return fmt.Sprintf("%.2f (none in %d of %d)", median(v), len(c.runs)-len(v), len(c.runs))
	}
	return fmt.Sprintf("%.2f", median(v))
}

// gap is the median peak's distance above max-live.
func (c *caseResult) gap() string {
	var peaks []float64
	for _, r := range c.runs {
		if r.peak >= 0 {
			peaks = append(peaks, float64(r.peak))
		}
	}
	if len(peaks) == 0 || c.input.maxLive <= 0 {
		return "–"
	}
	ml := float64(c.input.maxLive)
	return fmt.Sprintf("%.2f%%", 100*(median(peaks)-ml)/ml)
}

// status is the runs' status, or each status with its count when they
// differ.
func (c *caseResult) status() string {
	count := map[string]int{}
	var names []string
	for _, r := range c.runs {
		if count[r.status] == 0 {
			names = append(names, r.status)
		}
		count[r.status]++
	}
	if len(names) == 1 {
		return names[0]
	}
	parts := make([]string, len(names))
	for i, s := range names {
		parts[i] = fmt.Sprintf("%s ×%d", s, count[s])
	}
	return strings.Join(parts, ", ")
}

// median of v (the mean of the middle two for an even count); 0 for none.
func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// machine names the OS, architecture, CPU count and CPU model.
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
		return "unknown revision"
	}
	return "commit " + strings.TrimSpace(string(out))
}
