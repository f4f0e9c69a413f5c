package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/optalloc/optalloc/exact/bnb"
	"github.com/optalloc/optalloc/exact/sat"
	"github.com/optalloc/optalloc/formats"
	"github.com/optalloc/optalloc/formats/csv"
	"github.com/optalloc/optalloc/formats/plan"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/verify"
)

func lnsMain(file string, args []string) error {
	fs := flag.NewFlagSet("lns", flag.ExitOnError)
	start := fs.String("plan", "", "start plan (a CSV or JSON plan of FILE, e.g. from optalloc plan -o); none: bnb.Minimise with -start-nodes")
	startNodes := fs.Int64("start-nodes", 4_000_000, "node budget of the start's minimisation (without -plan)")
	seed := fs.Uint64("seed", 1, "seed")
	iters := fs.Int("iterations", 0, "neighbourhoods to try (0 = until -time)")
	limit := fs.Duration("time", 60*time.Second, "time limit")
	maxFree := fs.Int("max-free", 0, "free buffers per neighbourhood (0 = bnb's default)")
	nodes := fs.Int64("nodes", 0, "node budget per neighbourhood (0 = bnb's default)")
	rounds := fs.Int("rounds", 0, "rounds per decision (0 = bnb's default)")
	sideways := fs.Float64("sideways", 0, "probability of a sideways move (0 = default, negative = never)")
	out := fs.String("o", "", "write the best plan here (CSV)")
	engine := fs.String("engine", "bnb", "bnb (bnb.LNS) or sat (sat.Improve, the SAT engine's LNS, for comparison)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	p, err := formats.Load(file)
	if err != nil {
		return err
	}
	var pl *model.Plan
	if *start != "" {
		f, err := os.Open(*start)
		if err != nil {
			return err
		}
		pl, err = plan.Read(bufio.NewReader(f), *start, p)
		f.Close()
		if err != nil {
			return err
		}
	} else {
		// The branch-and-bound's own minimisation, one thread, bounded in
		// nodes. Not quite deterministic: Minimise schedules its probes of
		// the lower bound by wall time. For a repeatable run, give -plan.
		t0 := time.Now()
		var err error
		pl, _, _, err = bnb.Minimise(context.Background(), p, nil, 0, bnb.Options{Threads: 1, MaxNodes: *startNodes}, nil)
		if err != nil {
			return err
		}
		fmt.Printf("start: bnb.Minimise, %d nodes: peak=%d (%.1fs)\n", *startNodes, pl.Peak(p), time.Since(t0).Seconds())
	}
	ctx, cancel := context.WithTimeout(context.Background(), *limit)
	defer cancel()
	t0 := time.Now()
	if *engine == "sat" {
		best, st, err := sat.Improve(ctx, p, pl, sat.Options{}, func(q *model.Plan) {
			fmt.Printf("%.1fs peak=%d\n", time.Since(t0).Seconds(), q.Peak(p))
		})
		if err != nil {
			return err
		}
		fmt.Printf("sat.Improve: start=%d peak=%d %s time=%.1fs\n", pl.Peak(p), best.Peak(p), st.Reason, time.Since(t0).Seconds())
		return nil
	}
	best, st, err := bnb.LNS(ctx, p, pl, bnb.LNSOptions{Seed: *seed, Iterations: *iters, MaxFree: *maxFree, Nodes: *nodes, Rounds: *rounds, Sideways: *sideways},
		func(q *model.Plan) {
			fmt.Printf("%.1fs peak=%d\n", time.Since(t0).Seconds(), q.Peak(p))
		})
	if err != nil {
		return err
	}
	if v := verify.Check(p, best); len(v) > 0 {
		return fmt.Errorf("invalid plan: %s", v[0])
	}
	fmt.Printf("start=%d peak=%d neighbourhoods=%d improved=%d sideways=%d refuted=%d mean_free=%.1f time=%.1fs\n",
		st.StartPeak, best.Peak(p), st.Neighbourhoods, st.Improved, st.Sideways, st.Refuted, float64(st.FreeTotal)/float64(max(st.Neighbourhoods, 1)), time.Since(t0).Seconds())
	if *out != "" {
		w, err := os.Create(*out)
		if err != nil {
			return err
		}
		if err := csv.Write(w, p, best); err != nil {
			w.Close()
			return err
		}
		return w.Close()
	}
	return nil
}
