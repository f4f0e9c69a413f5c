package optalloc_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/optalloc/optalloc"
	"github.com/optalloc/optalloc/solve"
)

// Load reads an input by its suffix: here a MiniMalloc CSV.
func ExampleLoad() {
	in, err := optalloc.Load("examples/tiny-cnn.csv", optalloc.LoadOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(in.Problem.Buffers), "buffers")
	_, err = optalloc.Load("/dev/zero", optalloc.LoadOptions{})
	fmt.Println(err)
	// Output:
	// 12 buffers
	// /dev/zero: is a device, not a file: give a file, a pipe, or - for standard input
}

// Plan plans what the runtime uses; for a problem without a runtime that
// is solve.Solve with the options given.
func ExamplePlan() {
	in, err := optalloc.Load("examples/tiny-cnn.csv", optalloc.LoadOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := optalloc.Plan(context.Background(), in, optalloc.Options{Options: solve.Options{Threads: 1}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("peak", res.Peak, "lower bound", res.LowerBound, res.Status)
	// Output:
	// peak 1018880 lower bound 1018880 optimal
}

// Write chooses the format by the suffix and never writes onto an input.
func ExampleInput_Write() {
	in, err := optalloc.Load("examples/tiny-cnn.csv", optalloc.LoadOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := optalloc.Plan(context.Background(), in, optalloc.Options{Options: solve.Options{Threads: 1}})
	if err != nil {
		fmt.Println(err)
		return
	}
	dir, _ := os.MkdirTemp("", "optalloc-example")
	defer os.RemoveAll(dir)
	fmt.Println(in.Write(filepath.Join(dir, "plan.json"), res.Plan))
	fmt.Println(in.Write("examples/tiny-cnn.csv", res.Plan))
	fmt.Println(in.Write("plan.txt", res.Plan))
	// Output:
	// <nil>
	// examples/tiny-cnn.csv: is the input examples/tiny-cnn.csv (the same file); write the plan elsewhere
	// plan.txt: suffix ".txt"; the plan's format is chosen by the suffix: .csv, .json, .tflite, .svg, .html
}
