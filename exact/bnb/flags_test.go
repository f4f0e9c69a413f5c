package bnb

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/optalloc/optalloc/internal/brute"
)

// TestFlagsOnPerfectPackings measures the effect of each pruning flag:
// 150 perfect packings of 40..100 pieces decided at their height with 300
// ms each; it prints how many ended unknown / feasible / infeasible per
// flag set, and fails on any "infeasible" (the height is achievable).
// OPTALLOC_LONG=1 to run (about a minute).
func TestFlagsOnPerfectPackings(t *testing.T) {
	if os.Getenv("OPTALLOC_LONG") == "" {
		t.Skip("set OPTALLOC_LONG=1 to measure the pruning flags")
	}
	rng := rand.New(rand.NewPCG(77, 78))
	counts := map[string][3]int{}
	for k := 0; k < 150; k++ {
		p, _ := brute.PerfectPacking(rng, 30+rng.Int64N(60), 40+rng.Int64N(80), 40+rng.IntN(60))
		h := p.ComputeSweep().MaxLive
		for _, fs := range flagSets {
			opt := fs.opt
			opt.Threads = 1
			opt.NodeLimit = 256
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			_, status, _, err := Decide(ctx, p, h, opt)
			cancel()
			if err != nil || status == Infeasible {
				t.Fatalf("instance %d %s: %v %v", k, fs.name, status, err)
			}
			c := counts[fs.name]
			c[status]++
			counts[fs.name] = c
		}
	}
	fmt.Println("flag set: [unknown feasible infeasible]")
	for _, fs := range flagSets {
		fmt.Println(fs.name, counts[fs.name])
	}
}
