package graph_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/optalloc/optalloc/formats/graph"
	"github.com/optalloc/optalloc/model"
)

// BenchmarkRead reads and builds the largest example (12 BERT layers).
func BenchmarkRead(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(examplesDir, "bert-encoder.graph.json"))
	if err != nil {
		b.Skip("examples missing:", err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, _, err := graph.Read(bytes.NewReader(data), "bert"); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzRead: no input makes Read panic, every error is one-line
// *model.InputError, and what it accepts validates.
func FuzzRead(f *testing.F) {
	f.Add(`{"tensors": [{"name": "x", "bytes": 4, "kind": "input"}], "ops": [{"name": "f", "type": "R", "inputs": ["x"]}]}`)
	f.Add(`{"alignment": 1, "tensors": [{"name": "x", "shape": [1, 2], "dtype": "float32", "kind": "input"},
	 {"name": "a", "shape": [1, 2], "dtype": "float32"}, {"name": "c", "shape": [1, 4], "dtype": "float32", "kind": "output"}],
	 "ops": [{"name": "f", "type": "Relu", "inputs": ["x"], "outputs": ["a"]},
	  {"name": "cat", "type": "Concat", "axis": 1, "inputs": ["a", "x"], "outputs": ["c"]}]}`)
	f.Add(`{"schedule": "concurrent", "models": [{"name": "a", "tensors": [{"name": "x", "bytes": 4, "kind": "input"}], "ops": [{"name": "f", "type": "R", "inputs": ["x"]}]},
	 {"name": "b", "tensors": [{"name": "x", "bytes": 4, "kind": "input"}, {"name": "y", "bytes": 4, "kind": "output"}],
	  "ops": [{"name": "f", "type": "Split", "inputs": ["x"], "outputs": ["y"], "scratch": [{"min_size": 3}]}]}]}`)
	f.Add(`{"schedule": "concurrent", "models": [{"name": "a", "tensors": [{"name": "x", "bytes": 4, "kind": "input"}, {"name": "c", "bytes": 8, "kind": "code", "hash": "h"}],
	 "ops": [{"name": "f", "type": "R", "inputs": ["x", "c"], "scratch": [{"size": 3}, {"size": 9, "shares": "scratch0"}, {"name": "t", "size": 1, "shares": "scratch1"}]}]},
	 {"name": "b", "tensors": [{"name": "x", "bytes": 4, "kind": "input"}, {"name": "c", "bytes": 8, "kind": "code", "hash": "h"}],
	  "ops": [{"name": "f", "type": "R", "inputs": ["x", "c"]}]}]}`)
	f.Fuzz(func(t *testing.T, src string) {
		p, rep, err := graph.Read(strings.NewReader(src), "fuzz.graph.json")
		if err != nil {
			var ie *model.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("not an input error: %v", err)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error: %q", err)
			}
			return
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("accepted graph builds an invalid problem: %v", err)
		}
		if rep == nil {
			t.Fatal("nil report")
		}
	})
}
