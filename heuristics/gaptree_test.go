package heuristics

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/benchmarks"
)

// withGapTreeMin runs f with gapTreeMin set to n.
func withGapTreeMin(n int, f func()) {
	old := gapTreeMin
	gapTreeMin = n
	defer func() { gapTreeMin = old }()
	f()
}

// firstFitBoth places its in order with the chunk scan and with the gap
// tree and returns both offsets and peaks.
func firstFitBoth(t *testing.T, its []item, order []int32) (scan, tree []int64, ps, pt int64) {
	t.Helper()
	var err error
	withGapTreeMin(1<<62, func() {
		pc := newPlacer(its)
		pc.tree = nil
		ps, err = pc.run(context.Background(), order, true)
		require.NoError(t, err)
		require.False(t, pc.useGT)
		scan = pc.off
	})
	withGapTreeMin(0, func() {
		pc := newPlacer(its)
		pc.tree = nil
		pt, err = pc.run(context.Background(), order, true)
		require.NoError(t, err)
		require.True(t, pc.useGT)
		tree = pc.off
	})
	return scan, tree, ps, pt
}

// TestGapTreeEqualsScan: first fit with the gap tree places every item
// where the chunk scan does (random items with alignment, zero sizes,
// pins, random orders), and runFrom too.
func TestGapTreeEqualsScan(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for range 300 {
		its := randomItems(r, 1+r.IntN(400))
		for k := range its {
			if r.IntN(40) == 0 {
				its[k].pin = int64(r.IntN(60))
				its[k].align = 1
			}
			if r.IntN(8) == 0 { // long-lived: a stack the tree coalesces
				its[k].start, its[k].end = 0, 70
			}
		}
		order := make([]int32, len(its))
		for k := range order {
			order[k] = int32(k)
		}
		r.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		scan, tree, ps, pt := firstFitBoth(t, its, order)
		require.Equal(t, scan, tree)
		require.Equal(t, ps, pt)
		require.Equal(t, peakOf(its, scan), ps)

		// runFrom: keep a random half where the scan put it
		keep := make([]bool, len(its))
		var rest []int32
		for _, k := range order {
			if keep[k] = r.IntN(2) == 0; !keep[k] {
				rest = append(rest, k)
			}
		}
		var a, b []int64
		withGapTreeMin(1<<62, func() {
			pc := newPlacer(its)
			pc.tree = nil
			_, err := pc.runFrom(context.Background(), keep, scan, rest, true)
			require.NoError(t, err)
			a = pc.off
		})
		withGapTreeMin(0, func() {
			pc := newPlacer(its)
			pc.tree = nil
			_, err := pc.runFrom(context.Background(), keep, scan, rest, true)
			require.NoError(t, err)
			b = pc.off
		})
		require.Equal(t, a, b)
	}
}

// TestGapTreeEqualsScanTraining: the same on a generated training trace in
// the textbook and the peak orders.
func TestGapTreeEqualsScanTraining(t *testing.T) {
	for _, seed := range []uint64{1, 2} {
		p := benchmarks.Training(benchmarks.TrainingOptions{Buffers: 6000, Seed: seed})
		in, err := newInstance(context.Background(), p)
		require.NoError(t, err)
		for _, order := range [][]int32{textbookOrder(in.its), peakOrder(in.its)} {
			scan, tree, ps, pt := firstFitBoth(t, in.its, order)
			require.Equal(t, scan, tree, "seed %d", seed)
			require.Equal(t, ps, pt)
		}
	}
}

// TestAddSpan: the interval set stays sorted, disjoint and not touching,
// and covers exactly the union of what was added.
func TestAddSpan(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for range 500 {
		var s []span
		covered := make([]bool, 200)
		for range 1 + r.IntN(30) {
			lo := int64(r.IntN(190))
			hi := lo + 1 + int64(r.IntN(10))
			s = addSpan(s, lo, hi)
			for x := lo; x < hi; x++ {
				covered[x] = true
			}
		}
		for i := 1; i < len(s); i++ {
			require.Less(t, s[i-1].hi, s[i].lo)
		}
		got := make([]bool, 200)
		for _, v := range s {
			require.Less(t, v.lo, v.hi)
			for x := v.lo; x < v.hi; x++ {
				got[x] = true
			}
		}
		require.Equal(t, covered, got)
	}
}

// BenchmarkFirstFitTraining: one first-fit pass in the textbook order over
// a 50 000-buffer generated training trace, with the chunk scan and with
// the gap tree (the same placements).
func BenchmarkFirstFitTraining(b *testing.B) {
	p := benchmarks.Training(benchmarks.TrainingOptions{Buffers: 50000, Seed: 8})
	for i := range p.Buffers {
		p.Buffers[i].Kind = "" // as read from a CSV
	}
	in, err := newInstance(context.Background(), p)
	require.NoError(b, err)
	order := textbookOrder(in.its)
	for _, c := range []struct {
		name string
		min  int
	}{{"scan", 1 << 62}, {"gaptree", 0}} {
		b.Run(c.name, func(b *testing.B) {
			withGapTreeMin(c.min, func() {
				pc := newPlacer(in.its)
				b.Logf("entries %v, interval tree %v", pc.eit != nil, pc.tree != nil)
				for b.Loop() {
					_, err := pc.run(context.Background(), order, true)
					require.NoError(b, err)
				}
			})
		})
	}
}
