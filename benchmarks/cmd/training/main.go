// Command training measures optalloc on generated training-step traces
// (benchmarks.Training) against the textbook greedy, and the first plan of
// million-buffer inputs.
//
// Usage (from the repository root):
//
//	go run ./benchmarks/cmd/training -seeds 20 -time-limit 10s
//	go run ./benchmarks/cmd/training -seeds 20 -only 14,20 -v
//	go run ./benchmarks/cmd/training -scale -n 1000000
//
// The first form plans seeds 1..S, seed s with 20 000 + (s−1)·80 000/(S−1)
// buffers (20 000 to 100 000), with greedy-textbook and with -method (auto
// by default) under -time-limit and -threads, and prints one markdown row
// per seed (max-live, each peak, gap above max-live, status, time, the
// first plan's time) and the distribution of the gaps. With -scale it
// plans a dense random trace and a transformer trace of -n buffers with
// --method heuristic, one and two threads, and prints the first plan's
// time, the whole time, the gap and the process's peak RSS so far (which
// includes generating the trace: run the CLI under /usr/bin/time -v for
// the figure of a plan from a file).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/optalloc/optalloc/benchmarks"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/solve"
)

func main() {
	seeds := flag.Int("seeds", 20, "number of seeds (traces)")
	minN := flag.Int("min", 20000, "buffers of the first trace")
	maxN := flag.Int("max", 100000, "buffers of the last trace")
	limit := flag.Duration("time-limit", 10*time.Second, "time limit of each solve")
	method := flag.String("method", "auto", "the method measured against greedy-textbook")
	threads := flag.Int("threads", 2, "threads of each solve")
	scale := flag.Bool("scale", false, "measure the first plan of -n-buffer dense random and transformer traces instead")
	n := flag.Int("n", 1000000, "buffers of the -scale traces")
	only := flag.String("only", "", "comma-separated seeds to run (of 1..-seeds; default all)")
	verbose := flag.Bool("v", false, "print each solve's phase times and squeaky statistics")
	flag.Parse()
	if *scale {
		runScale(*n, *limit)
		return
	}
	pick, err := parseSeeds(*only, *seeds)
	if err != nil {
		fmt.Fprintln(os.Stderr, "training: -only:", err)
		os.Exit(2)
	}
	runSeeds(*seeds, pick, *minN, *maxN, *limit, *method, *threads, *verbose)
}

// parseSeeds reads -only: nil (every seed) when empty.
func parseSeeds(s string, seeds int) (map[int]bool, error) {
	if s == "" {
		return nil, nil
	}
	out := map[int]bool{}
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || v < 1 || v > seeds {
			return nil, fmt.Errorf("%q is not a seed in 1..%d", f, seeds)
		}
		out[v] = true
	}
	return out, nil
}

func gap(peak, lb int64) float64 { return float64(peak-lb) / float64(lb) * 100 }

func runSeeds(seeds int, pick map[int]bool, minN, maxN int, limit time.Duration, method string, threads int, verbose bool) {
	fmt.Printf("| seed | buffers | max-live | greedy-textbook | %s (%v, %d threads) | first plan |\n|--:|--:|--:|---|---|--:|\n", method, limit, threads)
	var gaps, tgaps []float64
	worse, within := 0, 0
	for s := 1; s <= seeds; s++ {
		if pick != nil && !pick[s] {
			continue
		}
		nb := minN
		if seeds > 1 {
			nb = minN + (s-1)*(maxN-minN)/(seeds-1)
		}
		p := benchmarks.Training(benchmarks.TrainingOptions{Buffers: nb, Seed: uint64(s)})
		for i := range p.Buffers {
			// as the trace reads from a CSV (no kinds): the scratch pass
			// then has nothing to do
			p.Buffers[i].Kind = ""
		}
		tb, err := solve.Solve(context.Background(), p, solve.Options{Method: "greedy-textbook", Threads: 1})
		if err != nil {
			fmt.Fprintln(os.Stderr, "training:", err)
			os.Exit(1)
		}
		res, err := solve.Solve(context.Background(), p, solve.Options{Method: method, Threads: threads, TimeLimit: limit})
		if err != nil {
			fmt.Fprintln(os.Stderr, "training:", err)
			os.Exit(1)
		}
		ml := tb.LowerBound
		g, tg := gap(res.Peak, ml), gap(tb.Peak, ml)
		gaps, tgaps = append(gaps, g), append(tgaps, tg)
		if res.Peak > tb.Peak {
			worse++
		}
		if g <= 0.1 {
			within++
		}
		fmt.Printf("| %d | %d | %d | %d · %.3f%% · %.2fs | %d · %.3f%% · %s · %s · %.2fs | %.2fs |\n", s, len(p.Buffers), ml,
			tb.Peak, tg, tb.Elapsed.Seconds(), res.Peak, g, res.Status, res.Method, res.Elapsed.Seconds(), res.Stats.FirstPlanMillis/1000)
		if verbose {
			fmt.Printf("|   | phase_ms %v · squeaky %+v |\n", res.Stats.PhaseMillis, res.Stats.Engines["squeaky"])
		}
	}
	fmt.Printf("\n%s: gap above max-live min %.3f%% · median %.3f%% · max %.3f%%; ≤ 0.1%%: %d of %d; worse than greedy-textbook: %d of %d\n",
		method, q(gaps, 0), q(gaps, 0.5), q(gaps, 1), within, len(gaps), worse, len(gaps))
	fmt.Printf("greedy-textbook: gap min %.3f%% · median %.3f%% · max %.3f%%\n", q(tgaps, 0), q(tgaps, 0.5), q(tgaps, 1))
}

func q(v []float64, f float64) float64 {
	s := slices.Sorted(slices.Values(v))
	return s[int(f*float64(len(s)-1)+0.5)]
}

func runScale(n int, limit time.Duration) {
	traces := []struct {
		name string
		make func() *model.Problem
	}{
		{"dense random", func() *model.Problem { return benchmarks.Random(1, benchmarks.RandomOptions{Buffers: n}) }},
		{"transformer (backward)", func() *model.Problem {
			return benchmarks.Transformer(benchmarks.TransformerOptions{Buffers: n, Backward: true})
		}},
	}
	fmt.Printf("| trace | buffers | threads | first plan | time | gap | status | peak RSS so far |\n|---|--:|--:|--:|--:|--:|---|--:|\n")
	for _, tr := range traces {
		p := tr.make()
		for _, th := range []int{1, 2} {
			res, err := solve.Solve(context.Background(), p, solve.Options{Method: "heuristic", Threads: th, TimeLimit: limit})
			if err != nil {
				fmt.Fprintln(os.Stderr, "training:", err)
				os.Exit(1)
			}
			fmt.Printf("| %s | %d | %d | %.2fs | %.2fs | %.2f%% | %s | %s |\n", tr.name, len(p.Buffers), th,
				res.Stats.FirstPlanMillis/1000, res.Elapsed.Seconds(), res.Gap(), res.Status, peakRSS())
		}
	}
}

// peakRSS reads the process's peak resident set (VmHWM) on Linux.
func peakRSS() string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "?"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "?"
}
