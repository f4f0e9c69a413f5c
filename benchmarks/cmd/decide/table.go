package main

import (
	"bytes"
	"fmt"
	"slices"
)

// markdown writes the table: a header line (date, machine, revision, load,
// the command), then one row per instance with the medians and a total
// row (sums of the medians).
func (t *table) markdown() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "Measured %s on %s, optalloc %s; 1-minute load %s at the start, %s at the end.",
		t.when.UTC().Format("2006-01-02 15:04 UTC"), t.machine, t.revision, orUnknown(t.load0), orUnknown(t.load1))
	if t.note != "" {
		fmt.Fprintf(&b, " %s", t.note)
	}
	fmt.Fprintf(&b, " Decisions at capacity 1048576, CPU time of each process (one thread), medians of %d interleaved runs; "+
		"regenerate with `%s`.\n\n", t.runs, t.command)
	b.WriteString("| instance | optalloc CPU (s) | MiniMalloc CPU (s) | ratio | nodes |\n")
	b.WriteString("|---|--:|--:|--:|--:|\n")
	var sumOpt, sumMM float64
	for _, r := range t.rows {
		o, m := median(r.samples, func(s sample) float64 { return s.opt }), median(r.samples, func(s sample) float64 { return s.mm })
		nodes := median(r.samples, func(s sample) float64 { return float64(s.nodes) })
		sumOpt += o
		sumMM += m
		fmt.Fprintf(&b, "| %s | %.3f | %.2f | %s | %s |\n", r.name, o, m, ratio(o, m), thousands(int64(nodes)))
	}
	fmt.Fprintf(&b, "| all | %.2f | %.1f | %s | |\n", sumOpt, sumMM, ratio(sumOpt, sumMM))
	return b.Bytes()
}

// median of f over the samples (the mean of the middle two for an even
// count); 0 without samples.
func median(ss []sample, f func(sample) float64) float64 {
	if len(ss) == 0 {
		return 0
	}
	v := make([]float64, len(ss))
	for i, s := range ss {
		v[i] = f(s)
	}
	slices.Sort(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

// ratio is o/m with three decimals, in bold when at most 0.1; "–" when
// MiniMalloc took no measurable time.
func ratio(o, m float64) string {
	if m <= 0 {
		return "–"
	}
	r := o / m
	if r <= 0.1 {
		return fmt.Sprintf("**%.3f**", r)
	}
	return fmt.Sprintf("%.3f", r)
}

// thousands writes n with a thin space every three digits (1 234 567).
func thousands(n int64) string {
	s := fmt.Sprint(n)
	var out []byte
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 && s[i-1] != '-' {
			out = append(out, ' ')
		}
		out = append(out, s[i])
	}
	return string(out)
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
