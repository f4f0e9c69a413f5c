package zoo_test

import (
	"fmt"

	"github.com/optalloc/optalloc/formats/graph"
	"github.com/optalloc/optalloc/formats/graph/internal/zoo"
)

func ExampleResNet18() {
	f := zoo.ResNet18()
	p, rep, err := graph.Build(f, "resnet18.graph.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	last := f.Tensors[len(f.Tensors)-1]
	fmt.Println(len(f.Ops), "ops;", last.Name, last.Shape, last.Kind)
	fmt.Println(len(p.Buffers), "buffers; weights", rep.WeightBytes, "B")
	// Output:
	// 49 ops; fc [1 1000] output
	// 109 buffers; weights 46738880 B
}
