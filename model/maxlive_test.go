package model

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestLiveCountsMatchesSweep compares LiveCounts with the sweep's max-live
// and with the pairs counted one by one, on random problems without aliases
// or gaps (some empty buffers), with times as generated (counted per step)
// or spread out (sorted).
func TestLiveCountsMatchesSweep(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 3))
	for trial := range 600 {
		p := randProblem(rng, 1+rng.IntN(80), genOptions{zeros: true, aligns: true, horizon: int64(2 + rng.IntN(60))})
		if trial%3 == 1 { // spread out: over more steps than counting takes
			for i := range p.Buffers {
				p.Buffers[i].Start *= 1 << 20
				p.Buffers[i].End *= 1 << 20
			}
		}
		if trial%3 == 2 { // shifted far from zero, negative times
			for i := range p.Buffers {
				p.Buffers[i].Start -= 1 << 40
				p.Buffers[i].End -= 1 << 40
			}
		}
		var pairs float64
		for a := range p.Buffers {
			for b := a + 1; b < len(p.Buffers); b++ {
				x, y := &p.Buffers[a], &p.Buffers[b]
				if x.Size > 0 && y.Size > 0 && x.Start < y.End && y.Start < x.End {
					pairs++
				}
			}
		}
		got := p.LiveCounts()
		require.Equal(t, p.ComputeSweep().MaxLive, got.MaxLive, "trial %d", trial)
		require.Equal(t, pairs, got.Pairs, "trial %d", trial)
		// At: the first time (a start time) at which max-live is live
		loadAt := func(t int64) (l int64) {
			for _, b := range p.Buffers {
				if b.Start <= t && t < b.End {
					l += b.Size
				}
			}
			return l
		}
		if got.MaxLive > 0 {
			require.Equal(t, got.MaxLive, loadAt(got.At), "trial %d", trial)
			for _, b := range p.Buffers {
				if b.Start < got.At {
					require.Less(t, loadAt(b.Start), got.MaxLive, "trial %d: max-live already at %d", trial, b.Start)
				}
			}
		}
	}
	require.Equal(t, LiveCounts{}, (&Problem{}).LiveCounts())
}

// TestLiveCountsBoundsSweep: with aliases and gaps, whole lifetimes count at
// least what the sweep's pieces do.
func TestLiveCountsBoundsSweep(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 4))
	for trial := range 300 {
		p := randProblem(rng, 1+rng.IntN(40), genOptions{gaps: true, aliases: true, zeros: true})
		require.GreaterOrEqual(t, p.LiveCounts().MaxLive, p.ComputeSweep().MaxLive, "trial %d", trial)
	}
}

// BenchmarkLiveCounts1M computes max-live and the pairs of 1M
// transformer-like buffers and of 1M dense random ones (lifetimes up to
// 200 000 steps in [0, 2M)), and the sweep's max-live of the first.
//
//	go test ./model/ -run XXX -bench LiveCounts1M -count 3
func BenchmarkLiveCounts1M(b *testing.B) {
	dense := &Problem{Buffers: make([]Buffer, 1_000_000)}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range dense.Buffers {
		s := rng.Int64N(2_000_000)
		dense.Buffers[i] = Buffer{Start: s, End: s + 1 + rng.Int64N(200_000), Size: 1 + rng.Int64N(1<<20)}
	}
	for _, c := range []struct {
		name string
		p    *Problem
	}{{"transformer", transformerProblem(1_000_000)}, {"dense", dense}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if c.p.LiveCounts().MaxLive <= 0 {
					b.Fatal("no max-live")
				}
			}
		})
	}
	// the sweep (components and sections besides max-live), for scale; on
	// the dense problem it takes seconds
	b.Run("transformer-sweep", func(b *testing.B) {
		p := transformerProblem(1_000_000)
		for b.Loop() {
			if p.ComputeSweep().MaxLive <= 0 {
				b.Fatal("no max-live")
			}
		}
	})
}
