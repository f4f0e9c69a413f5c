package csv

import (
	"bytes"
	"testing"

	"github.com/optalloc/optalloc/internal/problemtest"
	"github.com/optalloc/optalloc/model"
)

func writeCSVBench(w *bytes.Buffer, p *model.Problem) error { return Write(w, p, nil) }
func readCSVBench(r *bytes.Reader) (*model.Problem, error)  { return Read(r, "bench.csv") }

// BenchmarkReadCSV1M reads (and validates) a 1M-row MiniMalloc CSV. Compare
// its ns/row with BenchmarkReadCSV250k: equal figures mean linear work.
func BenchmarkReadCSV1M(b *testing.B) {
	problemtest.BenchRead(b, 1_000_000, writeCSVBench, readCSVBench)
}

// BenchmarkReadCSV250k is the 250k-row reference for BenchmarkReadCSV1M.
func BenchmarkReadCSV250k(b *testing.B) {
	problemtest.BenchRead(b, 250_000, writeCSVBench, readCSVBench)
}
