package corpus

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/optalloc/optalloc/formats"
)

// CorpusFile is one instance file of a corpus folder.
type CorpusFile struct {
	Group string // the sub-folder: minimalloc, traces...
	Path  string
	// Reference is a plan file shipped beside the instance (NAME.plan.csv),
	// such as IREE's own offsets: a peak to compare with, not pins.
	Reference string
}

// FindCorpus lists the instance files under dir (the shared benchmarks
// folder): every *.csv of every sub-folder, sorted, except *.plan.csv,
// which become the Reference of their instance.
func FindCorpus(dir string) ([]CorpusFile, error) {
	subs, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []CorpusFile
	for _, s := range subs {
		if !s.IsDir() {
			continue
		}
		files, err := filepath.Glob(filepath.Join(dir, s.Name(), "*.csv"))
		if err != nil {
			return nil, err
		}
		sort.Strings(files)
		for _, f := range files {
			if strings.HasSuffix(f, ".plan.csv") {
				continue
			}
			cf := CorpusFile{Group: s.Name(), Path: f}
			if ref := strings.TrimSuffix(f, ".csv") + ".plan.csv"; fileExists(ref) {
				cf.Reference = ref
			}
			out = append(out, cf)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no *.csv instance under %s/*/", dir)
	}
	return out, nil
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// ReferencePeak reads a reference plan (a MiniMalloc CSV whose offset column
// holds a complete plan) and returns its peak.
func ReferencePeak(path string) (int64, error) {
	p, err := formats.Load(path)
	if err != nil {
		return 0, err
	}
	var peak int64
	for i := range p.Buffers {
		b := &p.Buffers[i]
		if b.Pin == nil {
			return 0, fmt.Errorf("%s: buffer %q has no offset", path, b.ID)
		}
		peak = max(peak, *b.Pin+b.Size)
	}
	return peak, nil
}

// Meta is the header of a report: where and how it was measured.
type Meta struct {
	Command   string // the command that regenerates the report
	Date      time.Time
	Machine   string // OS/arch, CPUs, CPU model
	GoVersion string
	Revision  string // optalloc version or commit
	TimeLimit time.Duration
	Workers   int
	Note      string // free text, e.g. "shared machine"
}

// Row is a report line: a result with its group and reference peak.
type Row struct {
	Group     string
	Result    Result
	Reference int64 // 0 when none
}

// WriteMarkdown writes the results as markdown: a header (machine, Go
// version, date, command), one table per group (instance, buffers,
// max-live, lower bound, each method's peak · gap · status · time, the
// reference plan's peak when there is one) and a summary per method.
func WriteMarkdown(w io.Writer, meta Meta, methods []string, rows []Row) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Measured %s on %s, %s, optalloc %s; time limit %s per method, %d instance(s) at a time.",
		meta.Date.UTC().Format("2006-01-02 15:04 MST"), meta.Machine, meta.GoVersion, meta.Revision, meta.TimeLimit, meta.Workers)
	if meta.Note != "" {
		b.WriteString(" " + meta.Note)
	}
	fmt.Fprintf(&b, "\nRegenerate with `%s`.\n", meta.Command)
	b.WriteString("Cells: peak · gap to the lower bound · status · wall time; the best peak of a row is in bold. " +
		"Lower bound: the best any method proved (at least max-live).\n")
	var groups []string
	byGroup := map[string][]Row{}
	for _, r := range rows {
		if _, ok := byGroup[r.Group]; !ok {
			groups = append(groups, r.Group)
		}
		byGroup[r.Group] = append(byGroup[r.Group], r)
	}
	for _, g := range groups {
		rs := byGroup[g]
		ref := false
		for _, r := range rs {
			ref = ref || r.Reference > 0
		}
		fmt.Fprintf(&b, "\n### %s\n\n| instance | buffers | max-live | lower bound |", g)
		for _, m := range methods {
			b.WriteString(" " + m + " |")
		}
		if ref {
			b.WriteString(" reference plan |")
		}
		b.WriteString("\n|---|--:|--:|--:|" + strings.Repeat("---|", len(methods)))
		if ref {
			b.WriteString("--:|")
		}
		b.WriteString("\n")
		for _, row := range rs {
			r := &row.Result
			fmt.Fprintf(&b, "| %s | %d | %d | %s |", filepath.Base(r.Name), r.Buffers, r.MaxLive, BoundText(r.LowerBound))
			for k := range r.Runs {
				b.WriteString(" " + Cell(r, &r.Runs[k]) + " |")
			}
			if ref {
				if row.Reference > 0 {
					fmt.Fprintf(&b, " %d (%s) |", row.Reference, gapText(r, row.Reference))
				} else {
					b.WriteString(" |")
				}
			}
			b.WriteString("\n")
		}
	}
	b.WriteString("\n### Summary\n\n| method | best peak (of " + fmt.Sprint(len(rows)) + ") | optimal (proved) | mean gap | worst gap | total time |\n|---|--:|--:|--:|--:|--:|\n")
	for k, m := range methods {
		best, opt, n := 0, 0, 0
		var sum, worst float64
		var total time.Duration
		for _, row := range rows {
			r := &row.Result
			run := &r.Runs[k]
			total += run.Elapsed
			if r.IsBest(run) {
				best++
			}
			if run.Status == "optimal" && run.Valid {
				opt++
			}
			if g := r.Gap(run); g >= 0 && run.Valid {
				sum += g
				worst = max(worst, g)
				n++
			}
		}
		mean := "—"
		if n > 0 {
			mean = fmt.Sprintf("%.2f%%", sum/float64(n))
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %s | %.2f%% | %.1fs |\n", m, best, opt, mean, worst, total.Seconds())
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// BoundText prints a lower bound, "—" when none is claimed (0).
func BoundText(lb int64) string {
	if lb <= 0 {
		return "—"
	}
	return strconv.FormatInt(lb, 10)
}

func gapText(r *Result, peak int64) string {
	if r.LowerBound <= 0 {
		return "—"
	}
	return fmt.Sprintf("%.2f%%", float64(peak-r.LowerBound)/float64(r.LowerBound)*100)
}

// Cell formats one run for a markdown table: peak (bold when best), gap,
// status and time, or what went wrong.
func Cell(r *Result, run *MethodRun) string {
	switch {
	case errors.Is(run.Err, ErrOverrun):
		return fmt.Sprintf("OVERRAN (stopped waiting after %.0fs)", run.Elapsed.Seconds())
	case run.Err != nil:
		return "error"
	case run.Plan == nil:
		return fmt.Sprintf("— · %s · %.2fs", run.Status, run.Elapsed.Seconds())
	case !run.Valid:
		return "INVALID"
	}
	peak := fmt.Sprint(run.Peak)
	if r.IsBest(run) {
		peak = "**" + peak + "**"
	}
	return fmt.Sprintf("%s · %s · %s · %.2fs", peak, gapText(r, run.Peak), run.Status, run.Elapsed.Seconds())
}
