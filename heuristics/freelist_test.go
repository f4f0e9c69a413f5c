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

// bufs builds a problem from (start, end, size) triples, ids b0, b1, ...
func bufs(triples ...[3]int64) *model.Problem {
	p := &model.Problem{}
	for i, t := range triples {
		p.Buffers = append(p.Buffers, model.Buffer{ID: fmt.Sprint("b", i), Start: t[0], End: t[1], Size: t[2]})
	}
	return p
}

func offsets(pl *model.Plan) []int64 {
	out := make([]int64, len(pl.Placements))
	for i, q := range pl.Placements {
		out[i] = q.Offset
	}
	return out
}

// TestFreeListRules checks every allocation rule on a worked example, with
// the rule on and off.
func TestFreeListRules(t *testing.T) {
	// b0@0 (2), b1@2 (1, stays), b2@3 (4); at 5 b0 and b2 leave blocks
	// [0,2) and [3,7), the 4 at the end of the arena (top 7).
	extend := bufs([3]int64{0, 5, 2}, [3]int64{1, 10, 1}, [3]int64{2, 5, 4}, [3]int64{5, 6, 10})
	// blocks [0,3) and [4,9) free at 5, the arena top at 10 (b3 above).
	twoBlocks := func(req int64) *model.Problem {
		return bufs([3]int64{0, 5, 3}, [3]int64{1, 10, 1}, [3]int64{2, 5, 5}, [3]int64{3, 10, 1}, [3]int64{6, 7, req})
	}
	// b0 and b1 adjacent [0,2) and [2,5), both released at 4; b2 above
	// stays; a request of 5 fits only in the coalesced block.
	coalesce := bufs([3]int64{0, 4, 2}, [3]int64{1, 4, 3}, [3]int64{2, 9, 1}, [3]int64{5, 6, 5})
	cases := []struct {
		name string
		fl   FreeList
		p    *model.Problem
		want []int64
	}{
		{"extend: 10 requested, blocks 2 and 4 free, the 4 at the end: take 4, extend by 6", FreeList{}, extend, []int64{0, 2, 3, 3}},
		{"extend off: fresh memory at the top", FreeList{NoExtend: true}, extend, []int64{0, 2, 3, 7}},
		{"exact: 3 requested, blocks 3 and 5: reuse the 3", FreeList{}, twoBlocks(3), []int64{0, 3, 4, 9, 0}},
		{"exact off: the 5 is split", FreeList{NoExact: true}, twoBlocks(3), []int64{0, 3, 4, 9, 4}},
		{"split: 4 requested, blocks 3 and 5: split the 5", FreeList{}, twoBlocks(4), []int64{0, 3, 4, 9, 4}},
		{"split off: fresh memory", FreeList{NoSplit: true}, twoBlocks(4), []int64{0, 3, 4, 9, 10}},
		{"threshold: 3 requested at threshold 3 goes fresh", FreeList{ReuseThreshold: 3}, twoBlocks(3), []int64{0, 3, 4, 9, 10}},
		{"threshold below the request: reuse", FreeList{ReuseThreshold: 2}, twoBlocks(3), []int64{0, 3, 4, 9, 0}},
		{"coalesce: released neighbours merge into a block of 5", FreeList{}, coalesce, []int64{0, 2, 5, 0}},
		{"coalesce off: the blocks of 2 and 3 stay apart, fresh memory", FreeList{NoCoalesce: true}, coalesce, []int64{0, 2, 5, 6}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pl, err := c.fl.Plan(context.Background(), c.p)
			require.NoError(t, err)
			require.Equal(t, c.want, offsets(pl))
			require.NoError(t, checkPlan(c.p, pl))
		})
	}
}

// TestFreeListSplitRemainder checks that the remainder of a split goes back
// to the free list: after 4 is cut from [4,9), a request of 1 reuses [8,9).
func TestFreeListSplitRemainder(t *testing.T) {
	p := bufs([3]int64{0, 5, 3}, [3]int64{1, 10, 1}, [3]int64{2, 5, 5}, [3]int64{3, 10, 1},
		[3]int64{6, 9, 4}, [3]int64{7, 9, 3}, [3]int64{8, 9, 1})
	pl, err := (&FreeList{}).Plan(context.Background(), p)
	require.NoError(t, err)
	// b4 splits [4,9) → @4, remainder [8,9); b5 (3) takes [0,3) exactly;
	// b6 (1) takes the remainder [8,9).
	require.Equal(t, []int64{0, 3, 4, 9, 4, 0, 8}, offsets(pl))
}

// TestFreeListTiers checks the two tiers: fresh memory comes from the fast
// pool while it has capacity, then from the slow one; reuse in the fast
// pool comes first.
func TestFreeListTiers(t *testing.T) {
	p := bufs([3]int64{0, 4, 5}, [3]int64{1, 4, 5}, [3]int64{2, 6, 2}, [3]int64{5, 6, 4})
	p.Pools = []model.Pool{{Name: "sram", Capacity: 8, Rank: 0}, {Name: "dram", Rank: 1}}
	pl, err := (&FreeList{}).Plan(context.Background(), p)
	require.NoError(t, err)
	got := make([][2]int64, len(pl.Placements))
	for i, q := range pl.Placements {
		got[i] = [2]int64{int64(q.Pool), q.Offset}
	}
	// b0 → sram@0; b1 does not fit in sram (5+5 > 8) → dram@0; b2 → sram@5;
	// at 4 both leave; b3 (4) reuses sram's freed [0,5) block.
	require.Equal(t, [][2]int64{{0, 0}, {1, 0}, {0, 5}, {0, 0}}, got)
	require.NoError(t, checkPlan(p, pl))
}

// TestFreeListPinsAndAlign checks that pinned buffers are reserved and
// offsets are rounded up to the alignment.
func TestFreeListPinsAndAlign(t *testing.T) {
	pin := int64(4)
	p := bufs([3]int64{0, 10, 4}, [3]int64{0, 3, 3}, [3]int64{1, 5, 2})
	p.Buffers[0].Pin = &pin
	p.Buffers[2].Align = 8
	pl, err := (&FreeList{}).Plan(context.Background(), p)
	require.NoError(t, err)
	// pinned [4,8); free block [0,4); b1 (3) splits it → @0; b2 needs
	// alignment 8: [3,4) cannot hold it → fresh at the top 8.
	require.Equal(t, []int64{4, 0, 8}, offsets(pl))
	require.NoError(t, checkPlan(p, pl))
}

// TestFreeListMatchesReference compares the free-list planner with the
// reference copy of its earlier implementation (freelist_ref_test.go) on
// random problems — alignments, pins, alias groups, two pools with and
// without a capacity, times sorted each of byTime's three ways — under
// every knob: the
// offsets and pools must be the same, buffer for buffer, and every plan
// must verify.
func TestFreeListMatchesReference(t *testing.T) {
	knobs := []FreeList{{}, {OpOrder: true}, {SplitLargest: true}, {NoCoalesce: true}, {NoExact: true},
		{NoSplit: true}, {NoExtend: true}, {ReuseThreshold: 16}, {FillFast: true},
		{SplitLargest: true, NoExact: true, OpOrder: true}, {NoCoalesce: true, SplitLargest: true, NoExtend: true}}
	r := rand.New(rand.NewPCG(25, 4))
	for trial := range 400 {
		var p *model.Problem
		switch trial % 4 {
		case 0, 1:
			p = randomProblem(r, 5+r.IntN(60))
		case 2:
			p = plainRandom(r, 50+r.IntN(400))
		default:
			p = plainRandom(r, 200+r.IntN(2000))
			for i := range p.Buffers {
				p.Buffers[i].Size *= int64(1 + r.IntN(1000))
			}
		}
		if shift := []int{0, 0, 12, 30}[trial/4%4]; shift > 0 {
			// times spread over more steps than a counting sort takes
			// (the packed sort), or over 2³² or more (the comparison sort)
			for i := range p.Buffers {
				p.Buffers[i].Start <<= shift
				p.Buffers[i].End <<= shift
				for g := range p.Buffers[i].Gaps {
					p.Buffers[i].Gaps[g].Start <<= shift
					p.Buffers[i].Gaps[g].End <<= shift
				}
			}
		}
		if len(p.Pools) == 2 && r.IntN(2) == 0 {
			p.Pools[0].Capacity = int64(20 + r.IntN(200))
		}
		require.NoError(t, p.Validate())
		for _, f := range knobs {
			want, err := f.refPlan(context.Background(), p)
			require.NoError(t, err)
			got, err := f.Plan(context.Background(), p)
			require.NoError(t, err)
			require.Equal(t, want.Placements, got.Placements, "trial %d, %+v", trial, f)
			for _, v := range verify.Check(p, got) {
				require.Equal(t, verify.OutOfCapacity, v.Kind, "trial %d, %+v: %s", trial, f, v)
			}
		}
	}
}
