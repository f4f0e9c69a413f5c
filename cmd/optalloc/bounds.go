package main

import (
	"context"
	"fmt"

	"github.com/spf13/pflag"
)

func init() {
	register(&command{
		name:    "bounds",
		args:    "INPUT",
		summary: "print lower-bound figures: buffers, max-live, components, sections",
		long: `Prints one line: buffers=N max_live=N components=N sections=N.
max_live is the largest total size of buffers live at one time: no plan has a
smaller peak. Components are groups of buffers that no time point separates;
sections are the maximal sets of buffers live together.`,
		flags: func(fs *pflag.FlagSet) {
			fs.Bool("json", false, "print the figures as JSON on stdout")
		},
		run: runBounds,
	})
}

type boundsJSON struct {
	Buffers    int   `json:"buffers"`
	MaxLive    int64 `json:"max_live"`
	Components int   `json:"components"`
	Sections   int   `json:"sections"`
}

func runBounds(ctx context.Context, e *env, args []string) error {
	if len(args) != 1 {
		return usageErr("want exactly one INPUT (see 'optalloc help bounds')")
	}
	asJSON, _ := e.flags.GetBool("json")
	p, err := loadProblem(e, args[0])
	if err != nil {
		return err
	}
	s := p.ComputeSweep()
	b := boundsJSON{Buffers: len(p.Buffers), MaxLive: s.MaxLive, Components: len(s.Components), Sections: s.Sections}
	if asJSON {
		return writeJSON(e.stdout, b)
	}
	fmt.Fprintf(e.stdout, "buffers=%d max_live=%d components=%d sections=%d\n", b.Buffers, b.MaxLive, b.Components, b.Sections)
	return nil
}
