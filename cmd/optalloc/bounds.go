package main

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"github.com/spf13/pflag"

	"github.com/optalloc/optalloc/solve"
)

func init() {
	register(&command{
		name:    "bounds",
		args:    "INPUT",
		summary: "print lower-bound figures: buffers, max-live, components, sections",
		long: `Prints one line: buffers=N max_live=N components=N sections=N.
max_live is the largest total size of buffers live at one time: no plan has a
smaller peak. Components are groups of buffers that no time point separates;
sections are the maximal sets of buffers live together.

--prove also prints: lower_bound=N method=M — the best bound proven within
--time-limit and how (a line "proof: ..." says how). M is max-live; align (the
alignment bound: padding at one time, or aligned buffers that cannot share
blocks across two times); bnb (the whole problem refuted at the bound below);
window (the buffers of a short stretch of time, clipped to it — every plan
of the problem is a plan of the window — minimised by the branch-and-bound,
or refuted by SAT above the current bound where that search did not finish);
or sat (a SAT refutation of a window or a rounded-down relaxation).
When the branch-and-bound finds a plan at the bound, it adds optimal=true.
The provers run side by side; --threads N keeps the whole process on N cores.`,
		flags: func(fs *pflag.FlagSet) {
			fs.Bool("json", false, "print the figures as JSON on stdout")
			fs.Bool("prove", false, "try to raise the bound: branch-and-bound refutations and window minima, SAT window/relaxation proofs")
			fs.Duration("time-limit", 10*time.Second, "with --prove: stop after this long")
			fs.Int("threads", 0, "with --prove: cores the proof may use (0 = all)")
		},
		run: runBounds,
	})
}

type boundsJSON struct {
	Buffers    int          `json:"buffers"`
	MaxLive    int64        `json:"max_live"`
	Components int          `json:"components"`
	Sections   int          `json:"sections"`
	Proof      *solve.Bound `json:"proof,omitempty"`
}

func runBounds(ctx context.Context, e *env, args []string) error {
	if len(args) != 1 {
		return usageErr("want exactly one INPUT (see 'optalloc help bounds')")
	}
	asJSON, _ := e.flags.GetBool("json")
	limit, _ := e.flags.GetDuration("time-limit")
	threads, _ := e.flags.GetInt("threads")
	if limit < 0 || threads < 0 {
		return usageErr("--time-limit and --threads must not be negative")
	}
	p, err := loadProblem(e, args[0])
	if err != nil {
		return err
	}
	s := p.ComputeSweep()
	b := boundsJSON{Buffers: len(p.Buffers), MaxLive: s.MaxLive, Components: len(s.Components), Sections: s.Sections}
	if prove, _ := e.flags.GetBool("prove"); prove {
		defer onCores(threads)()
		if b.Proof, err = solve.ProveBound(ctx, p, solve.Options{TimeLimit: limit, Threads: threads}); err != nil {
			return err
		}
	}
	if asJSON {
		return writeJSON(e.stdout, b)
	}
	fmt.Fprintf(e.stdout, "buffers=%d max_live=%d components=%d sections=%d\n", b.Buffers, b.MaxLive, b.Components, b.Sections)
	if b.Proof != nil {
		fmt.Fprintf(e.stdout, "lower_bound=%d method=%s", b.Proof.LowerBound, b.Proof.Method)
		if b.Proof.Optimal {
			fmt.Fprint(e.stdout, " optimal=true")
		}
		fmt.Fprintf(e.stdout, "\nproof: %s\n", b.Proof.Detail)
	}
	return nil
}

// onCores keeps the process on n cores (n > 0) until the returned function
// restores the previous setting. bounds --prove runs its provers (SAT, the
// branch-and-bound climb, the windows) side by side, each with its own
// goroutines, so the engines' Threads alone does not hold the process to n
// cores: with --threads 1 it used about 1.75.
func onCores(n int) func() {
	if n <= 0 {
		return func() {}
	}
	prev := runtime.GOMAXPROCS(n)
	return func() { runtime.GOMAXPROCS(prev) }
}
