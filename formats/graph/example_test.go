package graph_test

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/optalloc/optalloc/formats/graph"
	"github.com/optalloc/optalloc/heuristics"
	"github.com/optalloc/optalloc/verify"
)

func ExampleRead() {
	src := `{"alignment": 1,
	 "tensors": [
	  {"name": "x", "shape": [1, 4], "dtype": "float32", "kind": "input"},
	  {"name": "a", "shape": [1, 4], "dtype": "float32"},
	  {"name": "b", "shape": [1, 4], "dtype": "float32"},
	  {"name": "c", "shape": [1, 8], "dtype": "float32"},
	  {"name": "y", "shape": [8], "dtype": "float32", "kind": "output"}],
	 "ops": [
	  {"name": "relu", "type": "Relu", "inputs": ["x"], "outputs": ["a"]},
	  {"name": "tanh", "type": "Tanh", "inputs": ["x"], "outputs": ["b"], "scratch": [{"size": 16}]},
	  {"name": "cat", "type": "Concat", "axis": 1, "inputs": ["a", "b"], "outputs": ["c"]},
	  {"name": "flat", "type": "Flatten", "inputs": ["c"], "outputs": ["y"]}]}`
	p, rep, err := graph.Read(strings.NewReader(src), "tiny.graph.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, b := range p.Buffers {
		fmt.Printf("%-11s [%d, %d) %3d B", b.ID, b.Start, b.End, b.Size)
		if b.Alias != nil {
			fmt.Printf(" inside %s at +%d", b.Alias.Parent, b.Alias.Delta)
		}
		fmt.Println()
	}
	pl, _ := heuristics.ByName("greedy-size")
	plan, _ := pl.Plan(context.Background(), p)
	rep.SetSharedPeak(plan.Peak(p))
	fmt.Println("violations:", len(verify.Check(p, plan)))
	_ = rep.WriteText(os.Stdout)
	// Output:
	// x           [0, 2)  16 B
	// a           [0, 3)  16 B inside c at +0
	// b           [1, 3)  16 B inside c at +16
	// c           [2, 4)  32 B
	// y           [3, 4)  32 B inside c at +0
	// tanh:scratch [1, 2)  16 B
	// violations: 0
	// graph tiny.graph.json: 1 model(s), alignment 1
	//   stage 1: model alone
	//   model model: 4 ops, 5 tensors, steps [0, 4), naive 128 B, max-live alone 64 B
	// aliases (zero-copy): 3, copies removed: 64 B
	//   concat  cat: a inside c at +0 (16 B)
	//   concat  cat: b inside c at +16 (16 B)
	//   reshape flat: y inside c at +0 (32 B)
	// weights stored: 0 B; shared: 0, saving 0 B
	// scratch buffers: 1
	//   tanh:scratch: 16 B
	// naive 128 B, max-live lower bound 64 B, planned peak 64 B
}
