package heuristics

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/verify"
	"github.com/stretchr/testify/require"
)

// classThresholds are the class splits the property tests of sweep-classes
// and sweep-classes-fill plan at.
var classThresholds = []struct {
	name      string
	threshold int64
}{
	{"default", 0},
	{"1", 1},
	{"8", 8},
	{"20", 20},
	{"above every size", 1 << 20},
}

// TestPropertyClassSweepIsValid plans random instances (alignments, pins,
// alias chains, gaps, elastic scratch, two pools) with the size classes
// split at several thresholds; every plan must pass verify.Check, and the
// small class must sit wholly above the large one's arena.
func TestPropertyClassSweepIsValid(t *testing.T) {
	r := rand.New(rand.NewPCG(44, 3))
	for _, tc := range classThresholds {
		t.Run(tc.name, func(t *testing.T) {
			for i := 0; i < 150; i++ {
				p := randomProblem(r, 1+r.IntN(60))
				require.NoError(t, p.Validate())
				plan, err := (&ClassSweep{Threshold: tc.threshold}).Plan(context.Background(), p)
				require.NoError(t, err)
				require.Empty(t, verify.Check(p, plan), "instance %d", i)
			}
		})
	}
}

// TestClassSweepStacksTheClasses: the small buffers start above every
// large one's bytes, each at its alignment.
func TestClassSweepStacksTheClasses(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	p := &model.Problem{}
	for i := 0; i < 400; i++ {
		s := int64(r.IntN(200))
		size := int64(1 + r.IntN(7))
		if r.IntN(2) == 0 {
			size = int64(64 + r.IntN(200))
		}
		p.Buffers = append(p.Buffers, model.Buffer{ID: fmt.Sprint("b", i), Start: s, End: s + 1 + int64(r.IntN(30)), Size: size, Align: int64(1 << r.IntN(4))})
	}
	require.NoError(t, p.Validate())
	plan, err := (&ClassSweep{Threshold: 64}).Plan(context.Background(), p)
	require.NoError(t, err)
	require.Empty(t, verify.Check(p, plan))
	var largeTop, smallBottom int64 = 0, -1
	for i, b := range p.Buffers {
		o := plan.Placements[i].Offset
		if b.Size >= 64 {
			largeTop = max(largeTop, o+b.Size)
		} else if smallBottom < 0 || o < smallBottom {
			smallBottom = o
		}
	}
	require.GreaterOrEqual(t, smallBottom, largeTop)
}

func TestLCM(t *testing.T) {
	for _, tc := range []struct{ a, b, want int64 }{{1, 1, 1}, {4, 6, 12}, {8, 2, 8}, {3, 5, 15}} {
		require.Equal(t, tc.want, lcm(tc.a, tc.b))
	}
}

// TestDecisiveFirst: sweep-classes leads a huge default list on dense
// traces only; elsewhere sweep-peak takes its place, sweep-fill-repack
// (in place of sweep-classes-fill) after it.
func TestDecisiveFirst(t *testing.T) {
	huge := DefaultPortfolio(hugeInstance + 1)
	require.Equal(t, huge, decisiveFirst(huge, classesDensity))
	sparse := decisiveFirst(huge, classesDensity-1)
	require.Equal(t, []string{"sweep-peak", "sweep-fill-repack", "sweep-classes", "sweep-peak-lifetime", "sweep-end", "freelist"}, sparse[:6])
	want := slices.DeleteFunc(slices.Clone(huge), func(n string) bool { return n == "sweep-classes-fill" })
	require.ElementsMatch(t, append(want, "sweep-fill-repack"), sparse)
	require.Equal(t, huge[0], "sweep-classes", "the default list is not changed")
	require.Equal(t, huge[1], "sweep-classes-fill")
	sweepsOnly := []string{"freelist", "sweep-peak"}
	require.Equal(t, sweepsOnly, decisiveFirst(sweepsOnly, 0))
	withRepack := []string{"sweep-classes", "sweep-peak", "sweep-repack", "freelist"}
	require.Equal(t, []string{"sweep-peak", "sweep-fill-repack", "sweep-classes", "sweep-repack", "freelist"}, decisiveFirst(withRepack, 0))
}

// TestFirstPlanner: a solve's first plan comes from the free list up to
// 200 000 buffers, and above from the sweep that leads the huge default
// list for the problem (the sweeps before the free list).
func TestFirstPlanner(t *testing.T) {
	// n buffers, buffer i alive over [i, i+life): about life pairs of
	// buffers alive together per buffer.
	slide := func(n, life int) *model.Problem {
		p := &model.Problem{Name: "slide"}
		for i := range n {
			p.Buffers = append(p.Buffers, model.Buffer{ID: fmt.Sprint(i), Start: int64(i), End: int64(i + life), Size: int64(64 + i%4096)})
		}
		return p
	}
	for _, tc := range []struct {
		name    string
		n, life int
		want    string
	}{
		{"small dense", hugeInstance, classesDensity, "freelist"},
		{"huge chain", hugeInstance + 1, 2, "sweep-peak"},
		{"huge sparse", hugeInstance + 1, classesDensity / 4, "sweep-peak"},
		{"huge dense", hugeInstance + 1, 2 * classesDensity, "sweep-classes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := slide(tc.n, tc.life)
			got := FirstPlanner(p)
			require.Equal(t, tc.want, got)
			if Huge(tc.n) {
				pairs := p.LiveCounts().Pairs / float64(tc.n)
				require.Equal(t, got, decisiveFirst(DefaultPortfolio(tc.n), pairs)[0], "the huge portfolio's first planner")
			}
		})
	}
}
