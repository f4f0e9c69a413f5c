package model

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bruteRoot walks alias parents by linear search (no Index, no Root).
func bruteRoot(p *Problem, i int) (int, int64) {
	var d int64
	for p.Buffers[i].Alias != nil {
		d += p.Buffers[i].Alias.Delta
		for j := range p.Buffers {
			if p.Buffers[j].ID == p.Buffers[i].Alias.Parent {
				i = j
				break
			}
		}
	}
	return i, d
}

// bytesAt returns the byte range [lo, hi) buffer i occupies at time t,
// relative to its own offset, and whether it occupies anything.
func bytesAt(b *Buffer, t int64) (int64, int64, bool) {
	if t < b.Start || t >= b.End {
		return 0, 0, false
	}
	for _, g := range b.Gaps {
		if t >= g.Start && t < g.End {
			if !g.Window || g.Hi <= g.Lo {
				return 0, 0, false
			}
			return g.Lo, g.Hi, true
		}
	}
	return 0, b.Size, b.Size > 0
}

// bruteLoad is the number of bytes live at time t: for every alias group the
// length of the union of its members' byte ranges.
func bruteLoad(p *Problem, t int64) int64 {
	byRoot := map[int][][2]int64{}
	for i := range p.Buffers {
		r, d := bruteRoot(p, i)
		if lo, hi, ok := bytesAt(&p.Buffers[i], t); ok {
			byRoot[r] = append(byRoot[r], [2]int64{d + lo, d + hi})
		}
	}
	var load int64
	for _, ivs := range byRoot {
		// Mark every byte: sizes in tests are small.
		covered := map[int64]bool{}
		for _, iv := range ivs {
			for x := iv[0]; x < iv[1]; x++ {
				covered[x] = true
			}
		}
		load += int64(len(covered))
	}
	return load
}

func TestSweepMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := 0; trial < 300; trial++ {
		o := genOptions{gaps: trial%2 == 0, aliases: trial%3 != 0, zeros: trial%4 == 0, elastic: trial%5 == 0, horizon: 24}
		p := randProblem(rng, 1+rng.IntN(14), o)
		require.NoError(t, p.Validate())
		s := p.ComputeSweep()
		var maxLive int64
		for tt := int64(-1); tt <= 25; tt++ {
			want := bruteLoad(p, tt)
			maxLive = max(maxLive, want)
			var got int64
			for _, sl := range s.Slots {
				if sl.Start <= tt && tt < sl.End {
					got = sl.Load
				}
			}
			require.Equal(t, want, got, "trial %d: load at time %d\n%s", trial, tt, dump(p))
		}
		assert.Equal(t, maxLive, s.MaxLive, "trial %d", trial)
		for k := 1; k < len(s.Slots); k++ {
			assert.LessOrEqual(t, s.Slots[k-1].End, s.Slots[k].Start, "slots are ordered and disjoint")
		}
		for _, sl := range s.Slots {
			assert.Positive(t, sl.Load)
			assert.Less(t, sl.Start, sl.End)
		}
		assert.Equal(t, bruteSections(p.Pieces()), s.Sections, "trial %d\n%s", trial, dump(p))
	}
}

// bruteSections counts the maximal cliques of the pieces' interval graph:
// the distinct sets of pieces live at one time that no other such set
// strictly contains.
func bruteSections(pieces []Piece) int {
	var sets [][]int
	for t := int64(-1); t <= 64; t++ {
		var s []int
		for k, pc := range pieces {
			if pc.Start <= t && t < pc.End {
				s = append(s, k)
			}
		}
		if len(s) > 0 {
			sets = append(sets, s)
		}
	}
	subset := func(a, b []int) bool { // a ⊆ b
		for _, x := range a {
			if !slices.Contains(b, x) {
				return false
			}
		}
		return true
	}
	distinct := map[string]bool{}
	for i, a := range sets {
		maximal := true
		for j, b := range sets {
			if i != j && len(b) > len(a) && subset(a, b) {
				maximal = false
				break
			}
		}
		if maximal {
			distinct[fmt.Sprint(a)] = true
		}
	}
	return len(distinct)
}

func TestPiecesOfGapsAndAliases(t *testing.T) {
	p := &Problem{Buffers: []Buffer{
		{ID: "a", Start: 0, End: 10, Size: 8, Gaps: []Gap{{Start: 2, End: 4}, {Start: 6, End: 8, Window: true, Lo: 2, Hi: 6}}},
		{ID: "p", Start: 0, End: 4, Size: 12},
		{ID: "c", Start: 2, End: 6, Size: 4, Alias: &Alias{Parent: "p", Delta: 8}},
		{ID: "z", Start: 0, End: 4, Size: 0},
	}}
	require.NoError(t, p.Validate())
	assert.ElementsMatch(t, []Piece{
		{Start: 0, End: 2, Bytes: 8, Buffer: 0},
		{Start: 4, End: 6, Bytes: 8, Buffer: 0},
		{Start: 6, End: 8, Bytes: 4, Buffer: 0},
		{Start: 8, End: 10, Bytes: 8, Buffer: 0},
		{Start: 0, End: 2, Bytes: 12, Buffer: 1},
		{Start: 2, End: 4, Bytes: 12, Buffer: 1}, // [0,12) ∪ [8,12)
		{Start: 4, End: 6, Bytes: 4, Buffer: 1},
	}, p.Pieces())
	s := p.ComputeSweep()
	assert.Equal(t, int64(20), s.MaxLive) // a 8 + p 12 during [0, 2)
}

// bruteComponents links buffers whose lifetimes intersect, joins alias
// members to their root, and a zero-size buffer (not an alias member) to
// the buffers whose lifetime holds its start: it occupies nothing, so it
// links nothing else.
func bruteComponents(p *Problem) [][]int {
	n := len(p.Buffers)
	parent := make([]int, n)
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		if parent[i] != i {
			parent[i] = find(parent[i])
		}
		return parent[i]
	}
	union := func(a, b int) { parent[find(a)] = find(b) }
	empty := func(b *Buffer) bool { return b.Size == 0 && b.Alias == nil }
	for i := range p.Buffers {
		for j := range p.Buffers {
			a, b := &p.Buffers[i], &p.Buffers[j]
			switch {
			case empty(a) && empty(b):
			case empty(a):
				if b.Start <= a.Start && a.Start < b.End {
					union(i, j)
				}
			case empty(b):
			case a.Start < b.End && b.Start < a.End:
				union(i, j)
			}
		}
	}
	for i := range p.Buffers {
		r, _ := bruteRoot(p, i)
		union(i, r)
	}
	groups := map[int][]int{}
	for i := range p.Buffers {
		groups[find(i)] = append(groups[find(i)], i)
	}
	var out [][]int
	for _, g := range groups {
		out = append(out, g)
	}
	return canonical(out)
}

func canonical(sets [][]int) [][]int {
	for _, s := range sets {
		sort.Ints(s)
	}
	sort.Slice(sets, func(a, b int) bool { return sets[a][0] < sets[b][0] })
	return sets
}

func TestZeroSizeBufferDoesNotJoinComponents(t *testing.T) {
	p := &Problem{Buffers: []Buffer{
		{ID: "a", Start: 0, End: 2, Size: 4},
		{ID: "z", Start: 1, End: 4, Size: 0},
		{ID: "b", Start: 3, End: 5, Size: 4},
	}}
	comps := p.ComputeSweep().Components
	require.Len(t, comps, 2)
	assert.Equal(t, []int{0, 1}, comps[0].Buffers)
	assert.Equal(t, []int{2}, comps[1].Buffers)
}

func TestComponentsMatchBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for trial := 0; trial < 500; trial++ {
		o := genOptions{aliases: trial%2 == 0, zeros: trial%3 == 0, gaps: true, horizon: 40}
		p := randProblem(rng, 1+rng.IntN(12), o)
		require.NoError(t, p.Validate())
		comps := p.ComputeSweep().Components
		var got [][]int
		for _, c := range comps {
			got = append(got, slices.Clone(c.Buffers))
			for _, i := range c.Buffers {
				b := &p.Buffers[i]
				end := b.End
				if b.Size == 0 && b.Alias == nil {
					end = b.Start
				}
				assert.True(t, c.Start <= b.Start && end <= c.End, "buffer %s inside its component's span", b.ID)
			}
		}
		require.Equal(t, bruteComponents(p), canonical(got), "trial %d\n%s", trial, dump(p))
	}
}

// dump shows p's buffers in a failure message.
func dump(p *Problem) string {
	out, _ := json.MarshalIndent(p.Buffers, "", " ")
	return string(out)
}

func TestUnionRects(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []Rect
		want []Rect
	}{
		{"one", []Rect{{0, 4, 0, 8}}, []Rect{{0, 4, 0, 8}}},
		{"member inside its root", []Rect{{0, 4, 0, 8}, {1, 3, 2, 6}}, []Rect{{0, 1, 0, 8}, {1, 3, 0, 8}, {3, 4, 0, 8}}},
		{"touching ranges merge", []Rect{{0, 2, 0, 4}, {0, 2, 4, 6}}, []Rect{{0, 2, 0, 6}}},
		{"apart ranges stay apart", []Rect{{0, 2, 0, 2}, {0, 2, 5, 6}}, []Rect{{0, 2, 0, 2}, {0, 2, 5, 6}}},
		{"a quiet interval has none", []Rect{{0, 1, 0, 2}, {2, 3, 0, 2}}, []Rect{{0, 1, 0, 2}, {2, 3, 0, 2}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, UnionRects(tc.in))
		})
	}
}

func TestUnionLoad(t *testing.T) {
	// Two apart ranges in one interval add up; a member inside its root
	// adds nothing; a quiet interval has no entry.
	in := []Rect{{0, 2, 0, 2}, {0, 2, 5, 6}, {2, 4, 0, 8}, {3, 4, 2, 6}, {5, 6, 0, 1}}
	assert.Equal(t, []Rect{{0, 2, 0, 3}, {2, 3, 0, 8}, {3, 4, 0, 8}, {5, 6, 0, 1}}, UnionLoad(in))
}
