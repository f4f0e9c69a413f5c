package jsonfmt

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/optalloc/optalloc/model"
)

// transformerProblem and benchRead are as in package model's benchmarks.

// transformerProblem returns n buffers with transformer-like lifetimes:
// layers of 12 ops, each op's output read by the next op or two, a residual
// stream that spans each layer, and a long-lived KV-cache-like tensor every
// layer. Sizes are multiples of 64.
func transformerProblem(n int) *model.Problem {
	p := &model.Problem{Name: "bench", Buffers: make([]model.Buffer, 0, n)}
	var t int64
	for layer := 0; len(p.Buffers) < n; layer++ {
		add := func(kind string, start, end, size int64) {
			if len(p.Buffers) < n {
				p.Buffers = append(p.Buffers, model.Buffer{ID: fmt.Sprintf("l%d.%s", layer, kind), Start: start, End: end, Size: size, Align: 64})
			}
		}
		add("residual", t, t+13, 4096*64)
		add("kv", t+2, t+13*8, 1024*64)
		for op := int64(0); op < 12; op++ {
			size := int64(64 * (1 + (layer*7+int(op)*13)%4096))
			add(fmt.Sprintf("op%d", op), t+op, t+op+1+op%3, size)
		}
		t += 12
	}
	return p
}

func benchRead(b *testing.B, n int, write func(*bytes.Buffer, *model.Problem) error, read func(*bytes.Reader) (*model.Problem, error)) {
	var data bytes.Buffer
	if err := write(&data, transformerProblem(n)); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(data.Len()))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		p, err := read(bytes.NewReader(data.Bytes()))
		if err != nil {
			b.Fatal(err)
		}
		if len(p.Buffers) != n {
			b.Fatalf("read %d buffers, want %d", len(p.Buffers), n)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/row")
}

func writeJSONBench(w *bytes.Buffer, p *model.Problem) error { return Write(w, p) }
func readJSONBench(r *bytes.Reader) (*model.Problem, error)  { return Read(r, "bench.json") }

// BenchmarkReadJSON1M reads (and validates) a 1M-buffer JSON problem.
func BenchmarkReadJSON1M(b *testing.B) { benchRead(b, 1_000_000, writeJSONBench, readJSONBench) }

// BenchmarkReadJSON250k is the 250k-buffer reference for BenchmarkReadJSON1M.
func BenchmarkReadJSON250k(b *testing.B) { benchRead(b, 250_000, writeJSONBench, readJSONBench) }
