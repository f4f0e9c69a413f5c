package bnb

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/optalloc/optalloc/internal/brute"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/verify"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stacked returns a valid, poor plan of p: the unpinned buffers stacked
// one above the other, above every pinned one.
func stacked(p *model.Problem) *model.Plan {
	pl := model.NewPlan(p)
	var top int64
	for i := range p.Buffers {
		if b := &p.Buffers[i]; b.Pin != nil {
			pl.Placements[i].Offset = *b.Pin
			top = max(top, *b.Pin+b.Size)
		}
	}
	for i := range p.Buffers {
		b := &p.Buffers[i]
		if b.Pin != nil {
			continue
		}
		a := b.AlignmentIn(&p.PoolList()[0])
		top = (top + a - 1) / a * a
		pl.Placements[i].Offset = top
		top += b.Size
	}
	return pl
}

// TestLNSTinyReachesBrute: with neighbourhoods as large as the problem, every
// step is an exact decision one unit below the peak, so LNS from a stack
// ends at the brute-force optimum (alignments, pins and zero sizes
// included), and every plan it offers is valid and lower than the last.
func TestLNSTinyReachesBrute(t *testing.T) {
	rng := rand.New(rand.NewPCG(34, 1))
	tried := 0
	for k := 0; k < 300; k++ {
		ro := brute.RandomOptions{MaxSize: 1 + rng.Int64N(9)}
		if k%2 == 1 {
			ro.Align, ro.Pin, ro.ZeroSize = 0.3, 0.15, 0.1
		}
		p := brute.Random(rng, 1+rng.IntN(7), ro)
		want, _ := brute.Optimum(p)
		start := stacked(p)
		if want < 0 || len(verify.Check(p, start)) > 0 {
			continue // overlapping pins: no plan
		}
		tried++
		last := start.Peak(p)
		best, st, err := LNS(context.Background(), p, start, LNSOptions{Seed: uint64(k), Iterations: 200, MaxFree: 3 * len(p.Buffers), SubTime: time.Minute},
			func(pl *model.Plan) {
				require.Empty(t, verify.Check(p, pl))
				require.Less(t, pl.Peak(p), last)
				last = pl.Peak(p)
			})
		require.NoError(t, err)
		require.Empty(t, verify.Check(p, best))
		assert.Equal(t, want, best.Peak(p), "instance %d", k)
		assert.Equal(t, best.Peak(p), st.Peak)
		for i := range p.Buffers {
			if p.Buffers[i].Pin != nil {
				require.Equal(t, *p.Buffers[i].Pin, best.Placements[i].Offset)
			}
		}
	}
	assert.Greater(t, tried, 200)
}

// TestLNSRandomValid: on random problems of 30–80 buffers (some pinned or
// aligned), small neighbourhoods give only valid plans, never above the
// start, the same for the same seed, and lower most starts.
func TestLNSRandomValid(t *testing.T) {
	rng := rand.New(rand.NewPCG(34, 2))
	lowered := 0
	const runs = 12
	for k := 0; k < runs; k++ {
		n := 30 + rng.IntN(51)
		ro := brute.RandomOptions{MaxSize: 1 + rng.Int64N(40), Horizon: int64(n / 2)}
		if k%3 == 1 {
			ro.Align = 0.2
		}
		if k%3 == 2 {
			ro.Pin = 0.05
		}
		p := brute.Random(rng, n, ro)
		start := stacked(p)
		if len(verify.Check(p, start)) > 0 {
			continue
		}
		opt := LNSOptions{Seed: uint64(k), Iterations: 25, MaxFree: 15, Nodes: 2000, SubTime: time.Minute}
		best, st, err := LNS(context.Background(), p, start, opt, func(pl *model.Plan) {
			require.Empty(t, verify.Check(p, pl))
		})
		require.NoError(t, err)
		require.Empty(t, verify.Check(p, best))
		require.LessOrEqual(t, best.Peak(p), start.Peak(p))
		assert.LessOrEqual(t, st.Refuted, st.Neighbourhoods)
		if best.Peak(p) < start.Peak(p) {
			lowered++
		}
		again, _, err := LNS(context.Background(), p, start, opt, nil)
		require.NoError(t, err)
		assert.Equal(t, best.Placements, again.Placements, "same seed, same plan")
	}
	assert.Greater(t, lowered, runs/2)
}

func TestLNSDeclines(t *testing.T) {
	base := model.Problem{Buffers: []model.Buffer{{ID: "a", Start: 0, End: 2, Size: 4}, {ID: "b", Start: 1, End: 3, Size: 4}}}
	tests := []struct {
		name   string
		edit   func(p *model.Problem)
		errIs  error
		offset int64 // b's offset in the start plan
	}{
		{"gaps", func(p *model.Problem) { p.Buffers[0].Gaps = []model.Gap{{Start: 0, End: 1}} }, ErrLNSUnsupported, 4},
		{"alias", func(p *model.Problem) { p.Buffers[1].Alias = &model.Alias{Parent: "a"} }, ErrLNSUnsupported, 4},
		{"elastic", func(p *model.Problem) { p.Buffers[0].MaxSize = 8 }, ErrLNSUnsupported, 4},
		{"pools", func(p *model.Problem) { p.Pools = []model.Pool{{Name: "x"}, {Name: "y"}} }, ErrLNSUnsupported, 4},
		{"invalid start", func(*model.Problem) {}, nil, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := base
			p.Buffers = append([]model.Buffer(nil), base.Buffers...)
			tc.edit(&p)
			pl := model.NewPlan(&p)
			pl.Placements[1].Offset = tc.offset
			_, _, err := LNS(context.Background(), &p, pl, LNSOptions{Iterations: 1}, nil)
			require.Error(t, err)
			if tc.errIs != nil {
				assert.ErrorIs(t, err, tc.errIs)
			}
		})
	}
}

// TestDecideMaxRounds: a decision bounded to one round of a tiny node
// limit answers Unknown where the unbounded one finds a plan (MiniMalloc D
// at 1048576, 70 000 nodes with RZ).
func TestDecideMaxRounds(t *testing.T) {
	p := loadMini(t, "D")
	tests := []struct {
		name   string
		rounds int
		want   Status
	}{
		{"bounded", 1, Unknown},
		{"unbounded", 0, Feasible},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pl, status, _, err := Decide(context.Background(), p, 1048576, Options{Threads: 1, NoProbe: true, NodeLimit: 1, MaxRounds: tc.rounds, Orders: []string{"RZ"}})
			require.NoError(t, err)
			assert.Equal(t, tc.want, status)
			if status == Feasible {
				assert.Empty(t, verify.Check(p, pl))
			}
		})
	}
}
