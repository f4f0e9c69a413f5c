// Command graph2tflite writes a single-model .graph.json file as a TFLite
// model (see tflite.FromGraph), so that planners can be compared on TFLite
// models of architectures that branch and join:
//
//	go run ./formats/tflite/cmd/graph2tflite [--int8] [--stub-weights] IN.graph.json OUT.tflite
//
// Bad input is one line on stderr and exit 2; OUT is written only when the
// whole model is, and never over IN.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/optalloc/optalloc/formats/graph"
	"github.com/optalloc/optalloc/formats/tflite"
	"github.com/optalloc/optalloc/internal/atomicfile"
)

func main() {
	var opt tflite.GraphOptions
	flag.BoolVar(&opt.Int8, "int8", false, "store every tensor as INT8 (a quantised TFLite Micro deployment)")
	flag.BoolVar(&opt.StubWeights, "stub-weights", false, "one-byte weight buffers: a small file that plans like the real model but cannot run")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: graph2tflite [--int8] [--stub-weights] IN.graph.json OUT.tflite")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 2 {
		flag.Usage()
		os.Exit(2)
	}
	if err := convert(flag.Arg(0), flag.Arg(1), opt); err != nil {
		fmt.Fprintln(os.Stderr, "graph2tflite:", err)
		os.Exit(2)
	}
}

func convert(in, out string, opt tflite.GraphOptions) error {
	f, err := os.Open(in)
	if err != nil {
		return err
	}
	defer f.Close()
	if fi, err := os.Stat(out); err == nil {
		if st, _ := f.Stat(); os.SameFile(fi, st) {
			return fmt.Errorf("%s would overwrite the input", out)
		}
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("%s is not a regular file", out)
		}
	}
	g, err := graph.Decode(f, in)
	if err != nil {
		return err
	}
	data, err := tflite.FromGraph(g, opt)
	if err != nil {
		return fmt.Errorf("%s: %v", in, err)
	}
	return atomicfile.Write(out, data)
}
