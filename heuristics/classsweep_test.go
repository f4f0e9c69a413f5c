package heuristics

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/verify"
	"github.com/stretchr/testify/require"
)

// TestPropertyClassSweepIsValid plans random instances (alignments, pins,
// alias chains, gaps, elastic scratch, two pools) with the size classes
// split at several thresholds; every plan must pass verify.Check, and the
// small class must sit wholly above the large one's arena.
func TestPropertyClassSweepIsValid(t *testing.T) {
	r := rand.New(rand.NewPCG(44, 3))
	for _, tc := range []struct {
		name      string
		threshold int64
	}{
		{"default", 0},
		{"1", 1},
		{"8", 8},
		{"20", 20},
		{"above every size", 1 << 20},
	} {
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
// traces only; elsewhere sweep-peak takes its place.
func TestDecisiveFirst(t *testing.T) {
	huge := DefaultPortfolio(hugeInstance + 1)
	require.Equal(t, huge, decisiveFirst(huge, classesDensity))
	sparse := decisiveFirst(huge, classesDensity-1)
	require.Equal(t, []string{"freelist", "sweep-peak", "sweep-classes", "sweep-peak-lifetime", "sweep-end"}, sparse[:5])
	require.ElementsMatch(t, huge, sparse)
	require.Equal(t, huge[1], "sweep-classes", "the default list is not changed")
	sweepsOnly := []string{"freelist", "sweep-peak"}
	require.Equal(t, sweepsOnly, decisiveFirst(sweepsOnly, 0))
}
