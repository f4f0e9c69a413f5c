package main

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/optalloc/optalloc/internal/suggest"
)

// isTuning reports whether a flag is listed under "Engine tuning" in a
// command's help, after the flags people use: the switches that leave a
// technique out (to measure its effect), the branch-and-bound's orders and
// the planners' options ("help plan" was 101 lines with 18 research
// switches among the user flags).
func isTuning(name string) bool {
	if name == "bnb-orders" || name == "planner-opt" {
		return true
	}
	for _, f := range pruneFlags {
		if f.name == name {
			return true
		}
	}
	return false
}

// flagUsages lists fs's flags in two groups: those people use, then the
// engine tuning ones (isTuning), each in the order they were defined.
func flagUsages(fs *pflag.FlagSet) string {
	use := pflag.NewFlagSet("", pflag.ContinueOnError)
	tune := pflag.NewFlagSet("", pflag.ContinueOnError)
	use.SortFlags, tune.SortFlags = false, false
	fs.VisitAll(func(f *pflag.Flag) {
		if isTuning(f.Name) {
			tune.AddFlag(f)
		} else {
			use.AddFlag(f)
		}
	})
	s := "\nFlags:\n" + use.FlagUsages()
	if tune.HasFlags() {
		s += "\nEngine tuning (planner options, and switches that leave a technique out to measure its effect; not needed to plan):\n" + tune.FlagUsages()
	}
	return s
}

// didYouMean returns " (did you mean --NAME?)" for an unknown flag whose
// name is close to one of fs's (at most two edits apart, or one a prefix of
// the other), else "".
func didYouMean(fs *pflag.FlagSet, err error) string {
	given, ok := strings.CutPrefix(err.Error(), "unknown flag: --")
	if !ok || given == "" {
		return ""
	}
	given, _, _ = strings.Cut(given, "=")
	best, bestD := "", 3
	fs.VisitAll(func(f *pflag.Flag) {
		d := suggest.Distance(given, f.Name)
		if d >= 3 && len(given) >= 4 && (strings.HasPrefix(f.Name, given) || strings.HasPrefix(given, f.Name)) {
			d = 2
		}
		if d < bestD {
			best, bestD = f.Name, d
		}
	})
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean --%s?)", best)
}
