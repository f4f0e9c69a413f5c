package bounds

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/benchmarks"
	"github.com/optalloc/optalloc/internal/brute"
	"github.com/optalloc/optalloc/model"
)

// TestMaxLiveMatchesSweep: the start bound's max-live without the sweep
// equals the sweep's, with gaps, partial gaps and alias groups.
func TestMaxLiveMatchesSweep(t *testing.T) {
	for seed := uint64(1); seed <= 200; seed++ {
		rng := rand.New(rand.NewPCG(seed, 9))
		p := brute.Random(rng, 2+rng.IntN(30), brute.RandomOptions{MaxSize: 64, ZeroSize: 0.1})
		for i := range p.Buffers {
			b := &p.Buffers[i]
			switch r := rng.IntN(6); {
			case r == 0 && b.End-b.Start >= 3:
				b.Gaps = []model.Gap{{Start: b.Start + 1, End: b.Start + 2}}
			case r == 1 && b.End-b.Start >= 3 && b.Size >= 2:
				b.Gaps = []model.Gap{{Start: b.Start + 1, End: b.End - 1, Window: true, Lo: 0, Hi: b.Size / 2}}
			case r == 2 && i > 0:
				par := &p.Buffers[i-1]
				if par.Alias == nil && par.Pin == nil && b.Pin == nil && par.Size >= 2 && len(par.Gaps) == 0 && len(b.Gaps) == 0 {
					b.Alias = &model.Alias{Parent: par.ID, Delta: 1}
					b.Size = par.Size - 1
					b.Start, b.End = par.Start, par.End
					b.Align = 0
				}
			}
		}
		if p.Validate() != nil {
			continue // a combination the model refuses: not this test's concern
		}
		require.Equal(t, p.ComputeSweep().MaxLive, MaxLive(p), "seed %d", seed)
	}
}

// TestMaxLiveAtMatchesLiveCounts: on whole lifetimes the start bound's
// per-step count gives model.LiveCounts' max-live and its first time, with
// dense op-index times (per step) and sparse ones (sorted).
func TestMaxLiveAtMatchesLiveCounts(t *testing.T) {
	for _, c := range []struct {
		name    string
		horizon int64
	}{{"dense", 50}, {"sparse", 1 << 40}} {
		t.Run(c.name, func(t *testing.T) {
			for seed := uint64(1); seed <= 100; seed++ {
				rng := rand.New(rand.NewPCG(seed, 11))
				p := &model.Problem{Name: "t"}
				for i := range 1 + rng.IntN(40) {
					s := rng.Int64N(c.horizon)
					p.Buffers = append(p.Buffers, model.Buffer{ID: string(rune('a' + i)), Start: s,
						End: s + rng.Int64N(c.horizon/4+2), Size: rng.Int64N(5)})
				}
				live, at := MaxLiveAt(p)
				want := p.LiveCounts()
				require.Equal(t, want.MaxLive, live, "seed %d", seed)
				require.Equal(t, want.At, at, "seed %d", seed)
			}
		})
	}
}

// BenchmarkMaxLive1M: the start bound's max-live on the dense random
// trace of a million buffers (`gen -kind random -n 1000000`), and
// model.LiveCounts, which it used before, for comparison.
//
//	go test ./bounds/ -run XXX -bench MaxLive1M -count 3
func BenchmarkMaxLive1M(b *testing.B) {
	p := benchmarks.Random(1, benchmarks.RandomOptions{Buffers: 1_000_000})
	b.Run("MaxLiveAt", func(b *testing.B) {
		for b.Loop() {
			MaxLiveAt(p)
		}
	})
	b.Run("LiveCounts", func(b *testing.B) {
		for b.Loop() {
			p.LiveCounts()
		}
	})
}
