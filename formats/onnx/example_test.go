package onnx

import (
	"fmt"
	"os"
	"path/filepath"

	"google.golang.org/protobuf/proto"
)

// ExampleModel_Arena reads a model whose batch dimension is symbolic and
// builds its arena problem with the dimension fixed: the Reshape's output
// is a view inside its input, the weights are not buffers.
func ExampleModel_Arena() {
	data, _ := proto.Marshal(modelOf(chain()))
	dir, _ := os.MkdirTemp("", "onnx-example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "chain.onnx")
	_ = os.WriteFile(path, data, 0o644)

	m, err := ReadFile(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	if _, err := m.Arena(Options{}); err != nil {
		fmt.Println("without --dim:", err.Error()[len(path)+2:])
	}
	a, err := m.Arena(Options{Dims: map[string]int64{"batch": 2}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, b := range a.Problem.Buffers {
		alias := ""
		if b.Alias != nil {
			alias = " inside " + b.Alias.Parent
		}
		fmt.Printf("%s: %d bytes, steps [%d,%d)%s\n", b.ID, b.Size, b.Start, b.End, alias)
	}
	fmt.Println("weights:", a.Weights)
	// Output:
	// without --dim: the graph inputs have dimensions without a size: batch (give each with --dim NAME=VALUE; an unnamed dimension is INPUT:AXIS)
	// x: 1536 bytes, steps [1,3)
	// c: 2048 bytes, steps [2,4)
	// r: 2048 bytes, steps [3,5)
	// flat: 2048 bytes, steps [4,6) inside r
	// y: 80 bytes, steps [5,6)
	// weights: 3
}
