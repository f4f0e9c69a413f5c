package main

import (
	"bytes"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"time"

	devreport "github.com/optalloc/optalloc/internal/report"
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
		r.start.UTC().Format("2006-01-02 15:04 UTC"), devreport.Machine(), runtime.Version(), devreport.Revision(),
		orUnknown(r.load0), orUnknown(r.load1), r.elapsed.Round(time.Second))
	fmt.Fprintf(&b, "Reproduce: `%s`. Medians of %d runs of `optalloc plan FILE --time-limit L --threads T --json`; "+
		"first plan is `stats.first_plan_ms` (from the start of the solve, after reading); wall, CPU (user + system) "+
		"and peak RSS are the whole process's, reading included.\n\n", r.cfg.command, r.cfg.reps)
	// one row per trace, size and time limit, the thread counts side by
	// side in each cell ("1 / 2")
	b.WriteString("| trace | buffers | time limit | threads | first plan (s) | wall (s) | CPU (s) | peak RSS (MiB) | peak vs max-live | status |\n")
	b.WriteString("|---|--:|--:|--:|--:|--:|--:|--:|--:|---|\n")
	for i := 0; i < len(r.cases); {
		j := i + 1
		for j < len(r.cases) && r.cases[j].input == r.cases[i].input && r.cases[j].limit == r.cases[i].limit {
			j++
		}
		row := r.cases[i:j]
		med := func(f func(p planRun) float64, format string) func(c *caseResult) string {
			return func(c *caseResult) string { return fmt.Sprintf(format, median(c.field(f))) }
		}
		fmt.Fprintf(&b, "| %s | %d | %v | %s | %s | %s | %s | %s | %s | %s |\n",
			row[0].input.trace, row[0].input.buffers, row[0].limit,
			side(row, func(c *caseResult) string { return fmt.Sprint(c.threads) }),
			side(row, (*caseResult).firstPlan),
			side(row, med(func(p planRun) float64 { return p.wall }, "%.2f")),
			side(row, med(func(p planRun) float64 { return p.cpu }, "%.2f")),
			side(row, med(func(p planRun) float64 { return p.rssMiB }, "%.0f")),
			once(side(row, (*caseResult).gap)), once(side(row, (*caseResult).status)))
		i = j
	}
	reads := make([]string, len(r.reads))
	for i, rd := range r.reads {
		reads[i] = fmt.Sprintf("%s %.2f M rows/s (%.3f s)", rd.input, float64(rd.rows)/rd.seconds/1e6, rd.seconds)
	}
	fmt.Fprintf(&b, "\nCSV reading (`formats.Load`, medians of %d): %s.\n", r.cfg.reps, strings.Join(reads, ", "))
	fmt.Fprintf(&b, "A model graph of %d ops (`benchmarks.ChainGraph`, as `gen -kind chain-graph -n %d`): read in %.3f s "+
		"(`formats.Load`, in process), `optalloc bounds` %.3f s end to end (medians of %d).\n",
		r.graph.ops, r.graph.ops+1, r.graph.load, r.graph.cli, r.cfg.reps)
	return b.Bytes()
}

// summary is the compact table of the report for the README: per trace
// and size, the gap, wall time and status of each thread count, for the
// first time limit; full names the file of the whole table ("" none).
func (r *report) summary(full string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "Measured %s on %s, %s; load %s at the start, %s at the end; medians of %d runs of `optalloc plan FILE --time-limit %v --threads T`",
		r.start.UTC().Format("2006-01-02 15:04 UTC"), devreport.Machine(), devreport.Revision(),
		orUnknown(r.load0), orUnknown(r.load1), r.cfg.reps, r.cfg.limits[0])
	if full != "" {
		fmt.Fprintf(&b, " (the whole table: %s)", full)
	}
	b.WriteString(".\n\n")
	threads := make([]string, len(r.cfg.threads))
	for i, t := range r.cfg.threads {
		threads[i] = fmt.Sprint(t)
	}
	fmt.Fprintf(&b, "| trace | buffers | peak vs max-live | wall (s), threads %s | status |\n", strings.Join(threads, " / "))
	b.WriteString("|---|--:|--:|--:|---|\n")
	wall := func(c *caseResult) string {
		return fmt.Sprintf("%.2f", median(c.field(func(p planRun) float64 { return p.wall })))
	}
	for i := 0; i < len(r.cases); {
		j := i + 1
		for j < len(r.cases) && r.cases[j].input == r.cases[i].input {
			j++
		}
		row := slices.DeleteFunc(slices.Clone(r.cases[i:j]), func(c caseResult) bool { return c.limit != r.cfg.limits[0] })
		fmt.Fprintf(&b, "| %s | %d | %s | %s | %s |\n", row[0].input.trace, row[0].input.buffers,
			once(side(row, (*caseResult).gap)), side(row, wall), once(side(row, (*caseResult).status)))
		i = j
	}
	return b.Bytes()
}

// side is f of each case, joined by " / ".
func side(row []caseResult, f func(c *caseResult) string) string {
	v := make([]string, len(row))
	for k := range row {
		v[k] = f(&row[k])
	}
	return strings.Join(v, " / ")
}

// once is "a / a / a" as "a"; values that differ stay side by side.
func once(joined string) string {
	v := strings.Split(joined, " / ")
	if len(slices.Compact(v)) == 1 {
		return v[0]
	}
	return joined
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
