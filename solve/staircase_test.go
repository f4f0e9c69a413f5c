package solve

import (
	"context"
	"testing"
	"time"

	"github.com/optalloc/optalloc/internal/brute"
)

// BenchmarkSolveStaircase20k: `optalloc plan` of the staircase of 20 000
// aligned buffers with a 1 s limit (../shared/hostile/r4/cli/mklong.py
// 20000: 61 s before the alignment bound looked at the clock; it must end
// within 2 s). Run with -benchtime=1x.
func BenchmarkSolveStaircase20k(b *testing.B) {
	p := brute.AlignedStaircase(20000)
	for b.Loop() {
		r, err := Solve(context.Background(), p, Options{TimeLimit: time.Second})
		if err != nil || r.Plan == nil {
			b.Fatalf("%v", err)
		}
	}
}
