package model

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bruteAliasOverlap is the definition: some pair of members of one group,
// neither an ancestor of the other, both of non-zero size without gaps,
// live together on shared bytes of the root.
func bruteAliasOverlap(p *Problem) bool {
	index := p.Index()
	for i := range p.Buffers {
		for j := i + 1; j < len(p.Buffers); j++ {
			x, y := &p.Buffers[i], &p.Buffers[j]
			if x.Alias == nil || y.Alias == nil || x.Size == 0 || y.Size == 0 || len(x.Gaps) > 0 || len(y.Gaps) > 0 {
				continue
			}
			rx, dx := p.Root(i, index)
			ry, dy := p.Root(j, index)
			if rx != ry || x.End <= y.Start || y.End <= x.Start || dx+x.Size <= dy || dy+y.Size <= dx ||
				p.IsAncestor(i, j, index) || p.IsAncestor(j, i, index) {
				continue
			}
			return true
		}
	}
	return false
}

// randAliasForest makes n buffers forming random alias trees with random
// lifetimes, deltas, zero sizes and gaps, often with clashing siblings.
func randAliasForest(rng *rand.Rand, n int) *Problem {
	p := &Problem{}
	for i := range n {
		b := Buffer{ID: fmt.Sprintf("b%d", i), Start: rng.Int64N(10)}
		b.End = b.Start + 1 + rng.Int64N(6)
		b.Size = 1 + rng.Int64N(16)
		if i > 0 && rng.IntN(5) != 0 {
			j := rng.IntN(i)
			par := &p.Buffers[j]
			if rng.IntN(8) == 0 {
				b.Size = 0
			} else {
				b.Size = 1 + rng.Int64N(max(par.Size, 1))
			}
			if b.Size <= par.Size {
				b.Alias = &Alias{Parent: par.ID, Delta: rng.Int64N(par.Size - b.Size + 1)}
			}
		}
		if rng.IntN(10) == 0 && b.End-b.Start > 1 {
			b.Gaps = []Gap{{Start: b.Start, End: b.Start + 1}}
		}
		p.Buffers = append(p.Buffers, b)
	}
	return p
}

func TestAliasOverlapsMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 1))
	clash, clean := 0, 0
	for trial := range 3000 {
		p := randAliasForest(rng, 2+rng.IntN(14))
		want := bruteAliasOverlap(p)
		err := p.validateAliasOverlaps(p.Index())
		require.Equal(t, want, err != nil, "trial %d: %v", trial, err)
		if want {
			clash++
		} else {
			clean++
		}
	}
	assert.Greater(t, clash, 300)
	assert.Greater(t, clean, 300)
}

func TestAliasRootsMatchRoot(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 2))
	for range 300 {
		p := randAliasForest(rng, 1+rng.IntN(30))
		index := p.Index()
		root, delta := p.AliasRoots(index)
		for i := range p.Buffers {
			r, d := p.Root(i, index)
			assert.Equal(t, r, root[i])
			assert.Equal(t, d, delta[i])
		}
	}
}

// chainOfViews is a tensor followed by n chained views of it (Reshape
// after Reshape), each live while the next is made, the root live
// throughout: every member shares every byte with every other.
func chainOfViews(n int) *Problem {
	p := &Problem{Name: "chain", Buffers: make([]Buffer, 0, n+1)}
	p.Buffers = append(p.Buffers, Buffer{ID: "x", Start: 0, End: int64(n + 2), Size: 4096})
	for i := 1; i <= n; i++ {
		parent := p.Buffers[i-1].ID
		p.Buffers = append(p.Buffers, Buffer{ID: fmt.Sprintf("v%d", i), Start: int64(i), End: int64(n + 2), Size: 4096,
			Alias: &Alias{Parent: parent}})
	}
	return p
}

func TestChainOfViewsValidates(t *testing.T) {
	p := chainOfViews(2000)
	require.NoError(t, p.Validate())
	assert.False(t, bruteAliasOverlap(chainOfViews(200)))
	// A clash at the bottom of the chain is still found.
	p = chainOfViews(2000)
	p.Buffers = append(p.Buffers, Buffer{ID: "w", Start: 5, End: 9, Size: 8, Alias: &Alias{Parent: "v1000", Delta: 4}},
		Buffer{ID: "z", Start: 7, End: 8, Size: 8, Alias: &Alias{Parent: "v1000", Delta: 8}})
	err := p.Validate()
	require.Error(t, err)
	assert.Contains(t, err.Error(), `buffer "z": shares bytes of "x" with "w"`)
}

// BenchmarkValidateChainOfViews: 100 000 chained views (the case;
// the cubic check took 31 s at 2 000).
func BenchmarkValidateChainOfViews(b *testing.B) {
	p := chainOfViews(100000)
	b.ResetTimer()
	for b.Loop() {
		if err := p.Validate(); err != nil {
			b.Fatal(err)
		}
	}
}

// AliasConflict on forests whose children may stick out of their parents
// (the graph builder's input before validation) takes the pairwise path and
// still agrees with the definition.
func TestAliasConflictMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 4))
	for trial := range 3000 {
		n := 2 + rng.IntN(12)
		parent := make([]int, n)
		delta, size, start, end := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
		compare := make([]bool, n)
		for i := range n {
			parent[i] = -1
			if i > 0 && rng.IntN(4) != 0 {
				parent[i] = rng.IntN(i)
			}
			size[i] = rng.Int64N(10)
			delta[i] = rng.Int64N(8)
			start[i] = rng.Int64N(8)
			end[i] = start[i] + 1 + rng.Int64N(5)
			compare[i] = rng.IntN(6) != 0
		}
		if rng.IntN(2) == 0 { // half the trials nested, as Validate ensures
			for i := range n {
				if q := parent[i]; q >= 0 {
					size[i] = rng.Int64N(size[q] + 1)
					delta[i] = rng.Int64N(size[q] - size[i] + 1)
				}
			}
		}
		abs := func(i int) int64 {
			var d int64
			for ; parent[i] >= 0; i = parent[i] {
				d += delta[i]
			}
			return d
		}
		rootOf := func(i int) int {
			for parent[i] >= 0 {
				i = parent[i]
			}
			return i
		}
		want := false
		for x := range n {
			for y := x + 1; y < n; y++ {
				if compare[x] && compare[y] && rootOf(x) == rootOf(y) && size[x] > 0 && size[y] > 0 &&
					abs(x) < abs(y)+size[y] && abs(y) < abs(x)+size[x] && start[x] < end[y] && start[y] < end[x] &&
					!isAncestor(parent, x, y) && !isAncestor(parent, y, x) {
					want = true
				}
			}
		}
		x, y, got := AliasConflict(parent, delta, size, start, end, compare)
		require.Equal(t, want, got, "trial %d", trial)
		if got {
			assert.Less(t, x, y)
			assert.False(t, isAncestor(parent, x, y) || isAncestor(parent, y, x))
		}
	}
}
