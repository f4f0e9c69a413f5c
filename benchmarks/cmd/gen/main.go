// Command gen writes synthetic optalloc instances as MiniMalloc CSV.
//
// Usage (from the repository root):
//
//	go run ./benchmarks/cmd/gen -kind random -n 1000 -seed 1 -o random.csv
//	go run ./benchmarks/cmd/gen -kind perfect -n 200 -width 1000 -height 1048576 -o perfect.csv
//	go run ./benchmarks/cmd/gen -kind transformer -n 1000000 -backward -o long.csv
//	go run ./benchmarks/cmd/gen -kind training -n 50000 -seed 3 -o train.csv
//	go run ./benchmarks/cmd/gen -kind skips -n 15000 -o skips.csv
//	go run ./benchmarks/cmd/gen -kind chain -n 100000 -o chain.csv
//	go run ./benchmarks/cmd/gen -kind chain-graph -n 100000 -o chain.graph.json
//	go run ./benchmarks/cmd/gen -kind branch-graph -n 25000 -o branch.graph.json
//
// random: uniform lifetimes, log-uniform sizes. perfect: a guillotine cut of
// width × height, whose optimum peak is height (printed on stderr as
// optimum=N). transformer: a trace of transformer blocks (-layers, -hidden,
// -seq, -heads, -backward, -jitter); -n cuts it at exactly n buffers.
// training: one training step (weights and optimiser state live
// throughout, short activations, saved activations, tiny buffers, sizes
// from bytes to gigabytes); -n buffers (default 20 000).
// skips: two models of n ops each (default 15 000) with long random
// skip connections.
// chain: a chain of n ops with skip connections and scratch buffers.
// chain-graph: a model graph (.graph.json) of a chain of n ops with
// Reshape views, skip connections and elastic scratch. branch-graph: a model
// graph of n blocks of 2–4 parallel branches joined by a Sum.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/optalloc/optalloc/benchmarks"
	"github.com/optalloc/optalloc/formats/csv"
	"github.com/optalloc/optalloc/formats/graph"
	"github.com/optalloc/optalloc/model"
)

func main() {
	kind := flag.String("kind", "random", "random | perfect | transformer | training | skips | chain | chain-graph | branch-graph")
	n := flag.Int("n", 0, "buffers (random, transformer), pieces (perfect), ops (chain, chain-graph) or blocks (branch-graph); transformer: 0 = whole layers")
	seed := flag.Uint64("seed", 1, "seed: same seed and flags, same instance")
	out := flag.String("o", "-", "output CSV file (- = stdout)")
	horizon := flag.Int64("horizon", 0, "random: time horizon (default 2n)")
	maxLife := flag.Int64("max-lifetime", 0, "random: longest lifetime (default horizon/10+1)")
	minSize := flag.Int64("min-size", 0, "random: smallest size (default 64)")
	maxSize := flag.Int64("max-size", 0, "random: largest size (default 1 MiB)")
	width := flag.Int64("width", 1000, "perfect: time steps")
	height := flag.Int64("height", 1<<20, "perfect: bytes (the optimum peak)")
	layers := flag.Int("layers", 12, "transformer: blocks")
	hidden := flag.Int64("hidden", 768, "transformer: width")
	seq := flag.Int64("seq", 512, "transformer: tokens")
	heads := flag.Int64("heads", 12, "transformer: attention heads")
	backward := flag.Bool("backward", false, "transformer: add the backward pass")
	jitter := flag.Float64("jitter", 0, "transformer: random size factor in [1-j, 1+j]")
	flag.Parse()

	var p *model.Problem
	switch *kind {
	case "random":
		p = benchmarks.Random(*seed, benchmarks.RandomOptions{Buffers: *n, Horizon: *horizon, MaxLifetime: *maxLife, MinSize: *minSize, MaxSize: *maxSize})
	case "perfect":
		pieces := *n
		if pieces <= 0 {
			pieces = 100
		}
		var opt int64
		p, opt, _ = benchmarks.PerfectPacking(*seed, *width, *height, pieces)
		fmt.Fprintf(os.Stderr, "optimum=%d\n", opt)
	case "transformer":
		p = benchmarks.Transformer(benchmarks.TransformerOptions{Layers: *layers, Hidden: *hidden, Seq: *seq, Heads: *heads,
			Backward: *backward, Buffers: *n, Jitter: *jitter, Seed: *seed})
	case "skips":
		ops := *n
		if ops <= 0 {
			ops = 15000
		}
		p = benchmarks.Skips(*seed, 2, ops)
	case "training":
		p = benchmarks.Training(benchmarks.TrainingOptions{Buffers: *n, Seed: *seed})
	case "chain", "chain-graph":
		if *n <= 0 {
			fmt.Fprintf(os.Stderr, "gen: -kind %s needs -n (the number of ops)\n", *kind)
			os.Exit(2)
		}
		if *kind == "chain-graph" {
			if err := writeGraph(*out, benchmarks.ChainGraph(*seed, *n)); err != nil {
				fmt.Fprintln(os.Stderr, "gen:", err)
				os.Exit(1)
			}
			fmt.Fprintf(os.Stderr, "ops=%d\n", *n-1)
			return
		}
		p = benchmarks.Chain(*seed, *n)
	case "branch-graph":
		if *n <= 0 {
			fmt.Fprintln(os.Stderr, "gen: -kind branch-graph needs -n (the number of blocks)")
			os.Exit(2)
		}
		f := benchmarks.BranchGraph(*seed, *n)
		if err := writeGraph(*out, f); err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(1)
		}
		fmt.Fprintf(os.Stderr, "ops=%d\n", len(f.Ops))
		return
	default:
		fmt.Fprintf(os.Stderr, "gen: unknown -kind %q (want random, perfect, transformer, training, skips, chain, chain-graph or branch-graph)\n", *kind)
		os.Exit(2)
	}
	if err := p.Validate(); err != nil {
		fmt.Fprintln(os.Stderr, "gen: internal error, invalid instance:", err)
		os.Exit(1)
	}
	if err := write(*out, p); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "buffers=%d\n", len(p.Buffers))
}

func write(path string, p *model.Problem) error {
	return writeTo(path, func(w io.Writer) error { return csv.Write(w, p, nil) })
}

func writeGraph(path string, f *graph.File) error {
	return writeTo(path, func(w io.Writer) error { return graph.Write(w, f) })
}

// writeTo writes with put to the file at path (- = stdout), buffered.
func writeTo(path string, put func(io.Writer) error) error {
	var w io.Writer = os.Stdout
	var f *os.File
	if path != "-" {
		var err error
		if f, err = os.Create(path); err != nil {
			return err
		}
		w = f
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	if err := put(bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if f != nil {
		return f.Close()
	}
	return nil
}
