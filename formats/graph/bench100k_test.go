package graph_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/formats/graph"
)

// chainFile is benchmarks.ChainGraph's shape (which this package cannot
// import): n ops in a chain, every fourth a Reshape (a view), every seventh
// an Add reading a tensor 3-6 steps back, the others a Relu of 1-64 KiB,
// every fifth of those with an elastic scratch buffer.
func chainFile(n int) *graph.File {
	kib := func(k int64) *int64 { v := 1024 * k; return &v }
	f := &graph.File{Name: "chain", Alignment: 64}
	f.Tensors = append(f.Tensors, graph.Tensor{Name: "x0", Bytes: kib(4), Kind: "input"})
	sizes := []int64{4}
	for i := 1; i <= n; i++ {
		name, prev := fmt.Sprint("x", i), fmt.Sprint("x", i-1)
		op := graph.Op{Name: fmt.Sprint("op", i), Type: "Relu", Inputs: []string{prev}, Outputs: []string{name}}
		size := sizes[i-1] // a Reshape or an Add keeps the size
		switch {
		case i%4 == 0:
			op.Type = "Reshape"
		case i%7 == 0 && i > 6:
			op.Type = "Add"
			op.Inputs = append(op.Inputs, fmt.Sprint("x", i-3-i%4))
		default:
			size = int64(1 + (i*37)%64)
			if i%5 == 0 {
				op.Scratch = []graph.Scratch{{Name: "s", MinSize: kib(1), MaxSize: kib(8)}}
			}
		}
		sizes = append(sizes, size)
		f.Tensors = append(f.Tensors, graph.Tensor{Name: name, Bytes: kib(size)})
		f.Ops = append(f.Ops, op)
	}
	return f
}

// BenchmarkRead100kOps reads (decodes, builds, validates, reports) a model
// graph of 100 000 ops; docs/graphs.md has its figures.
func BenchmarkRead100kOps(b *testing.B) {
	var data bytes.Buffer
	if err := graph.Write(&data, chainFile(100000)); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(data.Len()))
	b.ReportAllocs()
	defer reportCPU(b)()
	for b.Loop() {
		p, _, err := graph.Read(bytes.NewReader(data.Bytes()), "chain.graph.json")
		if err != nil {
			b.Fatal(err)
		}
		if len(p.Buffers) < 100000 {
			b.Fatalf("%d buffers", len(p.Buffers))
		}
	}
}

// reshapeChain is n Reshape ops in a row: every tensor a view of the
// first, one alias chain n deep.
func reshapeChain(n int) *graph.File {
	v := int64(4096)
	f := &graph.File{Name: "reshapes"}
	f.Tensors = append(f.Tensors, graph.Tensor{Name: "x0", Bytes: &v, Kind: "input"})
	for i := 1; i <= n; i++ {
		f.Tensors = append(f.Tensors, graph.Tensor{Name: fmt.Sprint("x", i), Bytes: &v})
		f.Ops = append(f.Ops, graph.Op{Name: fmt.Sprint("r", i), Type: "Reshape",
			Inputs: []string{fmt.Sprint("x", i-1)}, Outputs: []string{fmt.Sprint("x", i)}})
	}
	f.Tensors[n].Kind = "output"
	return f
}

// A chain of 3 000 Reshape ops (35 s to read before the alias checks became
// near-linear) reads as one alias tree, every view kept.
func TestReshapeChainIsOneAliasTree(t *testing.T) {
	var data bytes.Buffer
	require.NoError(t, graph.Write(&data, reshapeChain(3000)))
	p, _, err := graph.Read(&data, "reshapes.graph.json")
	require.NoError(t, err)
	aliased := 0
	for i := range p.Buffers {
		if p.Buffers[i].Alias != nil {
			aliased++
		}
	}
	assert.Equal(t, len(p.Buffers)-1, aliased, "every view aliases its input")
	assert.Equal(t, int64(4096), p.ComputeSweep().MaxLive)
}

// BenchmarkReadReshapeChain100k reads a chain of 100 000 Reshape ops.
func BenchmarkReadReshapeChain100k(b *testing.B) {
	var data bytes.Buffer
	if err := graph.Write(&data, reshapeChain(100000)); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	defer reportCPU(b)()
	for b.Loop() {
		if _, _, err := graph.Read(bytes.NewReader(data.Bytes()), "reshapes.graph.json"); err != nil {
			b.Fatal(err)
		}
	}
}
