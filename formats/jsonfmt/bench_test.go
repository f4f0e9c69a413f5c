package jsonfmt

import (
	"bytes"
	"testing"

	"github.com/optalloc/optalloc/internal/problemtest"
	"github.com/optalloc/optalloc/model"
)

func writeJSONBench(w *bytes.Buffer, p *model.Problem) error { return Write(w, p) }
func readJSONBench(r *bytes.Reader) (*model.Problem, error)  { return Read(r, "bench.json") }

// BenchmarkReadJSON1M reads (and validates) a 1M-buffer JSON problem.
func BenchmarkReadJSON1M(b *testing.B) {
	problemtest.BenchRead(b, 1_000_000, writeJSONBench, readJSONBench)
}

// BenchmarkReadJSON250k is the 250k-buffer reference for BenchmarkReadJSON1M.
func BenchmarkReadJSON250k(b *testing.B) {
	problemtest.BenchRead(b, 250_000, writeJSONBench, readJSONBench)
}
