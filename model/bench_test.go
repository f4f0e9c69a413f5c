package model

import (
	"fmt"
	"testing"
)

// transformerProblem returns n buffers with transformer-like lifetimes:
// layers of 12 ops, each op's output read by the next op or two, a residual
// stream that spans each layer, and a long-lived KV-cache-like tensor every
// layer. Sizes are multiples of 64.
func transformerProblem(n int) *Problem {
	p := &Problem{Name: "bench", Buffers: make([]Buffer, 0, n)}
	var t int64
	for layer := 0; len(p.Buffers) < n; layer++ {
		add := func(kind string, start, end, size int64) {
			if len(p.Buffers) < n {
				p.Buffers = append(p.Buffers, Buffer{ID: fmt.Sprintf("l%d.%s", layer, kind), Start: start, End: end, Size: size, Align: 64})
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

// BenchmarkComputeSweep1M sweeps 1M transformer-like buffers.
func BenchmarkComputeSweep1M(b *testing.B) {
	p := transformerProblem(1_000_000)
	b.ReportAllocs()
	for b.Loop() {
		if s := p.ComputeSweep(); s.MaxLive <= 0 {
			b.Fatal("no max-live")
		}
	}
}

// BenchmarkValidate1M validates 1M transformer-like buffers (the duplicate
// id check is most of it).
//
//	go test ./model/ -run XXX -bench Validate1M -count 3
func BenchmarkValidate1M(b *testing.B) {
	p := transformerProblem(1_000_000)
	b.ReportAllocs()
	for b.Loop() {
		if err := p.Validate(); err != nil {
			b.Fatal(err)
		}
	}
}
