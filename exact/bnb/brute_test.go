package bnb

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/optalloc/optalloc/internal/brute"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/verify"
	"github.com/stretchr/testify/require"
)

// flagSets are the option combinations the property tests run: all
// techniques on, and each one off.
var flagSets = []struct {
	name string
	opt  Options
}{
	{"all", Options{}},
	{"no-sections", Options{NoSectionInference: true}},
	{"no-dominance", Options{NoDominance: true}},
	{"no-shortcut", Options{NoUnplacedShortcut: true}},
	{"no-components", Options{NoComponents: true}},
	{"no-memo", Options{NoMemo: true}},
	{"no-split", Options{NoSplit: true}},
	{"no-align-stacks", Options{NoAlignStacks: true}},
	{"no-probe", Options{NoProbe: true}},
	{"no-symmetry", Options{NoSymmetry: true}},
	{"no-canonical", Options{NoCanonical: true}},
	{"no-windows", Options{NoWindows: true}},
	{"orders", Options{Orders: []string{"RZ", "TLR-rank", "NTWA", "random"}}},
	{"none", Options{NoSectionInference: true, NoDominance: true, NoUnplacedShortcut: true, NoComponents: true, NoMemo: true, NoSplit: true, NoProbe: true, NoSymmetry: true, NoAlignStacks: true, NoCanonical: true, NoWindows: true}},
}

// TestMinimiseMatchesBrute compares Minimise (from no incumbent) with the
// brute-force optimum on 10,000+ random tiny instances, and checks every
// Infeasible answer of Decide at optimum−1 (and every Feasible one at the
// optimum) against it.
func TestMinimiseMatchesBrute(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	ctx := context.Background()
	infeasible := 0
	const total = 10500
	for k := 0; k < total; k++ {
		n := 1 + rng.IntN(8)
		ro := brute.RandomOptions{MaxSize: 1 + rng.Int64N(10)}
		if k%3 == 1 {
			ro.Align, ro.ZeroSize = 0.3, 0.1
		}
		if k%5 == 2 {
			ro.Pin = 0.2
		}
		if k%7 == 3 {
			ro.PoolAlign = 1
		}
		p := brute.Random(rng, n, ro)
		want, _ := brute.Optimum(p)
		fs := flagSets[k%len(flagSets)]
		opt := fs.opt
		opt.Threads = 1 + k%2
		pl, lb, _, err := Minimise(ctx, p, nil, 0, opt, nil)
		require.NoError(t, err)
		if want < 0 {
			require.Nil(t, pl, "instance %d (%s): brute says infeasible: %+v", k, fs.name, p.Buffers)
			continue
		}
		require.NotNil(t, pl, "instance %d (%s): %+v", k, fs.name, p.Buffers)
		require.Empty(t, verify.Check(p, pl), "instance %d", k)
		require.Equal(t, want, pl.Peak(p), "instance %d (%s): %+v", k, fs.name, p.Buffers)
		require.Equal(t, want, lb, "instance %d (%s): proven bound", k, fs.name)
		if want > 1 {
			_, status, _, err := Decide(ctx, p, want-1, opt)
			require.NoError(t, err)
			require.Equal(t, Infeasible, status, "instance %d (%s)", k, fs.name)
			infeasible++
		}
		if want == 0 {
			continue // capacity 0 means "the pool's capacity" to Decide
		}
		pl2, status, _, err := Decide(ctx, p, want, opt)
		require.NoError(t, err)
		require.Equal(t, Feasible, status, "instance %d (%s): %+v", k, fs.name, p.Buffers)
		require.Empty(t, verify.Check(p, pl2))
		require.LessOrEqual(t, pl2.Peak(p), want)
	}
	require.Greater(t, infeasible, total/2)
}

// TestPerfectPackings solves guillotine-cut rectangles (20..60 pieces) to
// their known optimum, the rectangle's height.
func TestPerfectPackings(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for k := 0; k < 30; k++ {
		pieces := 20 + rng.IntN(41)
		p, _ := brute.PerfectPacking(rng, 40+rng.Int64N(40), 64+rng.Int64N(64), pieces)
		height := p.ComputeSweep().MaxLive
		pl, lb, _, err := Minimise(context.Background(), p, nil, 0, Options{Threads: 1}, nil)
		require.NoError(t, err)
		require.Empty(t, verify.Check(p, pl))
		require.Equal(t, height, pl.Peak(p), "instance %d (%d pieces)", k, pieces)
		require.Equal(t, height, lb)
	}
}

var _ = model.NewPlan

// TestAlignStacksMatchBrute checks the aligned-stack inference on instances
// where most buffers share an alignment unit (4, some 8, sizes not
// multiples of it, a few pins on the grid): Minimise must reach the
// brute-force optimum and Decide must refute optimum−1, with the inference
// on and off.
func TestAlignStacksMatchBrute(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 52))
	ctx := context.Background()
	for k := 0; k < 3000; k++ {
		p := brute.Random(rng, 2+rng.IntN(7), brute.RandomOptions{MaxSize: 2 + rng.Int64N(11)})
		stacked := 0
		for i := range p.Buffers {
			b := &p.Buffers[i]
			switch r := rng.IntN(10); {
			case r < 5:
				b.Align = 4
			case r < 7:
				b.Align = 8
			}
			if b.Align > 1 && rng.IntN(8) == 0 {
				v := b.Align * rng.Int64N(4)
				b.Pin = &v
			}
			if b.Align > 1 && b.Size%4 != 0 {
				stacked++
			}
		}
		want, _ := brute.Optimum(p)
		opt := Options{Threads: 1 + k%2, NoAlignStacks: k%5 == 0}
		pl, lb, _, err := Minimise(ctx, p, nil, 0, opt, nil)
		require.NoError(t, err)
		if want < 0 {
			require.Nil(t, pl, "instance %d: brute says infeasible: %+v", k, p.Buffers)
			continue
		}
		require.NotNil(t, pl, "instance %d: %+v", k, p.Buffers)
		require.Empty(t, verify.Check(p, pl))
		require.Equal(t, want, pl.Peak(p), "instance %d (%d stacked): %+v", k, stacked, p.Buffers)
		require.Equal(t, want, lb)
		if want > 1 {
			_, status, _, err := Decide(ctx, p, want-1, opt)
			require.NoError(t, err)
			require.Equal(t, Infeasible, status, "instance %d: %+v", k, p.Buffers)
		}
	}
}

// TestTwinsMatchBrute checks the symmetry breaking of identical items:
// instances built from two or three templates (so most items have twins)
// are minimised and decided at optimum−1, and compared with brute force.
func TestTwinsMatchBrute(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	ctx := context.Background()
	for k := 0; k < 2000; k++ {
		tpl := brute.Random(rng, 2+rng.IntN(2), brute.RandomOptions{MaxSize: 1 + rng.Int64N(6)})
		p := &model.Problem{}
		for j := 0; j < 3+rng.IntN(5); j++ {
			b := tpl.Buffers[rng.IntN(len(tpl.Buffers))]
			b.ID = fmt.Sprintf("b%d", j)
			p.Buffers = append(p.Buffers, b)
		}
		want, _ := brute.Optimum(p)
		opt := Options{Threads: 1 + k%2, NoSymmetry: k%7 == 0}
		pl, lb, _, err := Minimise(ctx, p, nil, 0, opt, nil)
		require.NoError(t, err)
		require.NotNil(t, pl)
		require.Empty(t, verify.Check(p, pl))
		require.Equal(t, want, pl.Peak(p), "instance %d: %+v", k, p.Buffers)
		require.Equal(t, want, lb)
		if want > 1 {
			_, status, _, err := Decide(ctx, p, want-1, opt)
			require.NoError(t, err)
			require.Equal(t, Infeasible, status, "instance %d", k)
		}
	}
}
