// Command gapwork attacks the contiguity gap of hard instances (MiniMalloc
// D and J: peak well above max-live, neither proven) in two ways.
//
//	go run ./benchmarks/cmd/gapwork cut FILE [-k 5,10,20,40] [-height H] [-time 60s]
//
// cut: relax FILE to its k fullest sections (bounds.Cut) for each k, and
// decide each cut at height H (default: max-live) with the SAT engine and
// the branch-and-bound (one thread each, one after the other). A cut
// refuted at H proves FILE's peak exceeds H.
//
//	go run ./benchmarks/cmd/gapwork lns FILE -plan PLAN.csv [-seed 1] [-time 60s] [-o OUT.csv]
//
// lns: large-neighbourhood search seeded from a plan (bnb.LNS; with
// -engine sat, sat.Improve). From a plan file the run is deterministic for
// a seed and -iterations; without -plan it starts from bnb.Minimise with
// -start-nodes nodes, whose result varies with timing.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/optalloc/optalloc/bounds"
	"github.com/optalloc/optalloc/exact/bnb"
	"github.com/optalloc/optalloc/exact/sat"
	"github.com/optalloc/optalloc/formats"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: gapwork cut|lns FILE [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "cut":
		err = cutMain(os.Args[2], os.Args[3:])
	case "lns":
		err = lnsMain(os.Args[2], os.Args[3:])
	default:
		err = fmt.Errorf("unknown mode %q (cut or lns)", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gapwork:", err)
		os.Exit(2)
	}
}

func cutMain(file string, args []string) error {
	fs := flag.NewFlagSet("cut", flag.ExitOnError)
	ks := fs.String("k", "5,10,20,40,80", "comma-separated numbers of fullest sections")
	height := fs.Int64("height", 0, "height to refute (default max-live)")
	limit := fs.Duration("time", 60*time.Second, "time per engine per cut")
	clauses := fs.Int64("max-clauses", 0, "SAT clause budget (0 = the engine's default)")
	engines := fs.String("engines", "sat,bnb", "engines to run: sat, bnb")
	if err := fs.Parse(args); err != nil {
		return err
	}
	p, err := formats.Load(file)
	if err != nil {
		return err
	}
	secs := bounds.Sections(p)
	h := *height
	if h == 0 {
		h = p.ComputeSweep().MaxLive
	}
	fmt.Printf("%s: %d buffers, %d sections, height %d\n", file, len(p.Buffers), len(secs), h)
	for _, f := range strings.Split(*ks, ",") {
		k, err := strconv.Atoi(f)
		if err != nil {
			return err
		}
		chosen := bounds.Fullest(secs, k)
		q, _ := bounds.Cut(p, secs, chosen)
		if q == nil {
			return fmt.Errorf("no cut (gaps, aliases, elastic buffers or pools)")
		}
		minLoad := secs[chosen[0]].Load
		for _, c := range chosen {
			minLoad = min(minLoad, secs[c].Load)
		}
		for _, e := range strings.Split(*engines, ",") {
			ctx, cancel := context.WithTimeout(context.Background(), *limit)
			t0 := time.Now()
			var st fmt.Stringer
			why := ""
			switch e {
			case "sat":
				_, s, ss, err := sat.Decide(ctx, q, h, sat.Options{MaxClauses: *clauses})
				if err != nil {
					cancel()
					return err
				}
				st, why = s, ss.Reason
			case "bnb":
				_, s, bs, err := bnb.Decide(ctx, q, h, bnb.Options{Threads: 1})
				if err != nil {
					cancel()
					return err
				}
				st, why = s, fmt.Sprintf("nodes %d", bs.Nodes)
			default:
				cancel()
				return fmt.Errorf("unknown engine %q", e)
			}
			cancel()
			fmt.Printf("k=%d (load ≥ %d) buffers=%d engine=%s status=%v time=%.2fs %s\n",
				len(chosen), minLoad, len(q.Buffers), e, st, time.Since(t0).Seconds(), why)
		}
	}
	return nil
}
