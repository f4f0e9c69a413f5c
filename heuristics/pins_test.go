package heuristics

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/verify"
	"github.com/stretchr/testify/require"
)

func pinAt(v int64) *int64 { return &v }

// holePlanners are the planners that must use the holes below and between
// pins (freelist reserves above them by design).
func holePlanners() []string {
	var out []string
	for _, name := range Names() {
		if strings.HasPrefix(name, "greedy-") || strings.HasPrefix(name, "firstfit-") || strings.HasPrefix(name, "skyline") || name == "lowfirst" {
			out = append(out, name)
		}
	}
	return out
}

// requirePinsKept fails unless every pinned buffer of p sits at its pin.
func requirePinsKept(t *testing.T, p *model.Problem, plan *model.Plan, what string) {
	t.Helper()
	for i, b := range p.Buffers {
		if b.Pin != nil {
			require.Equal(t, *b.Pin, plan.Placements[i].Offset, "%s: pin of %s", what, b.ID)
		}
	}
}

func TestPinsHolesUsed(t *testing.T) {
	tests := []struct {
		name string
		bufs []model.Buffer
		peak int64 // the optimum, which the hole planners reach
		want map[string]int64
	}{
		{
			name: "hole below a pin",
			bufs: []model.Buffer{
				{ID: "p", Start: 0, End: 10, Size: 50, Pin: pinAt(100)},
				{ID: "a", Start: 0, End: 10, Size: 100},
			},
			peak: 150, want: map[string]int64{"a": 0},
		},
		{
			name: "hole between pins",
			bufs: []model.Buffer{
				{ID: "p", Start: 0, End: 10, Size: 40, Pin: pinAt(0)},
				{ID: "q", Start: 0, End: 10, Size: 40, Pin: pinAt(100)},
				{ID: "a", Start: 2, End: 8, Size: 60},
			},
			peak: 140, want: map[string]int64{"a": 40},
		},
		{
			name: "holes too small: above the pins",
			bufs: []model.Buffer{
				{ID: "p", Start: 0, End: 10, Size: 40, Pin: pinAt(0)},
				{ID: "q", Start: 0, End: 10, Size: 40, Pin: pinAt(50)},
				{ID: "a", Start: 0, End: 10, Size: 20},
			},
			peak: 110, want: map[string]int64{"a": 90},
		},
		{
			name: "aligned into the hole",
			bufs: []model.Buffer{
				{ID: "p", Start: 0, End: 10, Size: 30, Pin: pinAt(0)},
				{ID: "q", Start: 0, End: 10, Size: 64, Pin: pinAt(128)},
				{ID: "a", Start: 0, End: 10, Size: 64, Align: 64},
			},
			peak: 192, want: map[string]int64{"a": 64},
		},
		{
			name: "two buffers share the holes of a staircase of pins",
			bufs: []model.Buffer{
				{ID: "p", Start: 0, End: 5, Size: 30, Pin: pinAt(70)},
				{ID: "q", Start: 5, End: 10, Size: 30, Pin: pinAt(0)},
				{ID: "a", Start: 0, End: 5, Size: 70},
				{ID: "b", Start: 5, End: 10, Size: 70},
			},
			peak: 100, want: map[string]int64{"a": 0, "b": 30},
		},
	}
	for _, tc := range tests {
		p := &model.Problem{Name: tc.name, Buffers: tc.bufs}
		require.NoError(t, p.Validate(), tc.name)
		for _, name := range Names() {
			pl, _ := ByName(name)
			plan, err := pl.Plan(context.Background(), p)
			require.NoError(t, err, "%s / %s", tc.name, name)
			require.Empty(t, verify.Check(p, plan), "%s / %s", tc.name, name)
			requirePinsKept(t, p, plan, tc.name+" / "+name)
		}
		for _, name := range holePlanners() {
			pl, _ := ByName(name)
			plan, err := pl.Plan(context.Background(), p)
			require.NoError(t, err)
			require.Equal(t, tc.peak, plan.Peak(p), "%s / %s", tc.name, name)
			for i, b := range p.Buffers {
				if w, ok := tc.want[b.ID]; ok {
					require.Equal(t, w, plan.Placements[i].Offset, "%s / %s: %s", tc.name, name, b.ID)
				}
			}
		}
		plan, _, err := Portfolio(context.Background(), p, PortfolioOptions{Seed: 1})
		require.NoError(t, err)
		require.Equal(t, tc.peak, plan.Peak(p), tc.name)
		requirePinsKept(t, p, plan, tc.name+" / portfolio")
	}
}

// plainRandom builds a random instance of n plain buffers (some aligned).
func plainRandom(r *rand.Rand, n int) *model.Problem {
	p := &model.Problem{Name: "pins-random"}
	for i := 0; i < n; i++ {
		s := int64(r.IntN(40))
		b := model.Buffer{ID: fmt.Sprint("b", i), Start: s, End: s + 1 + int64(r.IntN(15)), Size: int64(1 + r.IntN(64))}
		if r.IntN(4) == 0 {
			b.Align = []int64{2, 4, 8, 16}[r.IntN(4)]
		}
		p.Buffers = append(p.Buffers, b)
	}
	return p
}

// TestPropertyPinnedFifth: on random instances, 20% of the buffers of the
// portfolio's plan are pinned at their offsets; every planner's plan must
// verify and keep the pins, and the portfolio should get back to the
// original plan's peak (it exists) on most instances.
func TestPropertyPinnedFifth(t *testing.T) {
	r := rand.New(rand.NewPCG(42, 6))
	const trials = 30
	good, lowGood := 0, 0
	for trial := 0; trial < trials; trial++ {
		p := plainRandom(r, 15+r.IntN(35))
		orig, _, err := Portfolio(context.Background(), p, PortfolioOptions{Seed: 1, Threads: 1})
		require.NoError(t, err)
		require.Empty(t, verify.Check(p, orig))
		for i := range p.Buffers {
			if r.IntN(5) == 0 {
				p.Buffers[i].Pin = pinAt(orig.Placements[i].Offset)
			}
		}
		require.NoError(t, p.Validate())
		for _, name := range Names() {
			pl, _ := ByName(name)
			plan, err := pl.Plan(context.Background(), p)
			require.NoError(t, err, name)
			require.Empty(t, verify.Check(p, plan), "trial %d, %s", trial, name)
			requirePinsKept(t, p, plan, name)
			if name == "lowfirst" && plan.Peak(p) <= orig.Peak(p) {
				lowGood++
			}
		}
		plan, _, err := Portfolio(context.Background(), p, PortfolioOptions{Seed: 1, Threads: 1})
		require.NoError(t, err)
		requirePinsKept(t, p, plan, "portfolio")
		if plan.Peak(p) <= orig.Peak(p) {
			good++
		}
	}
	t.Logf("portfolio at or below the original peak on %d/%d pinned instances (lowfirst alone: %d)", good, trials, lowGood)
	require.GreaterOrEqual(t, good, trials/2, "the portfolio should recover the original peak on most instances")
}
