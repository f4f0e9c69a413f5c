// Package corpus runs methods over a corpus of instances, re-verifies every
// plan, reports.
//
// Run solves every instance with every method (instances in parallel, the
// methods of one instance one after the other), re-checks every plan with
// verify.Check and reports peak, lower bound, gap, status and time.
// FindCorpus lists the instance files of a folder (with their reference
// plans), WriteMarkdown writes the results table, SpliceReadme puts it
// between the README's markers. The CLI's compare and check commands and
// the results report (benchmarks/cmd/results) are built on it; the
// synthetic instances they run on come from package benchmarks.
package corpus
