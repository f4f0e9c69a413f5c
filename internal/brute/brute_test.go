package brute

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/verify"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func pin(v int64) *int64 { return &v }

// valid checks offsets independently: alignment, pins, no overlap of
// conflicting buffers. It returns the peak, or -1 when invalid.
func valid(p *model.Problem, off []int64) int64 {
	var peak int64
	for i := range p.Buffers {
		b := &p.Buffers[i]
		if off[i] < 0 || off[i]%b.Alignment() != 0 || (b.Pin != nil && *b.Pin != off[i]) {
			return -1
		}
		if b.Size > 0 {
			peak = max(peak, off[i]+b.Size)
		}
		for j := 0; j < i; j++ {
			c := &p.Buffers[j]
			if conflict(b, c) && off[i] < off[j]+c.Size && off[j] < off[i]+b.Size {
				return -1
			}
		}
	}
	return peak
}

func TestOptimumHandChecked(t *testing.T) {
	buf := func(id string, s, e, size int64) model.Buffer {
		return model.Buffer{ID: id, Start: s, End: e, Size: size}
	}
	tests := []struct {
		name string
		bufs []model.Buffer
		want int64
	}{
		{"empty", nil, 0},
		{"one", []model.Buffer{buf("a", 0, 1, 5)}, 5},
		{"disjoint in time", []model.Buffer{buf("a", 0, 1, 5), buf("b", 1, 2, 7)}, 7},
		{"stacked", []model.Buffer{buf("a", 0, 2, 5), buf("b", 1, 3, 7)}, 12},
		{"zero size", []model.Buffer{buf("a", 0, 2, 0), buf("b", 1, 3, 7)}, 7},
		// MiniMalloc's input.12.csv: optimum 12.
		{"minimalloc example", []model.Buffer{
			buf("b1", 0, 3, 4), buf("b2", 3, 9, 4), buf("b3", 0, 9, 4), buf("b4", 9, 21, 4), buf("b5", 0, 21, 4)}, 12},
		// Staircase: a,b overlap; b,c overlap; a,c do not. Max-live 5 but a
		// and c must both sit beside b: a=3@0, c=3@0, b=2@3 → 5.
		{"staircase", []model.Buffer{buf("a", 0, 2, 3), buf("b", 1, 3, 2), buf("c", 2, 4, 3)}, 5},
		// Contiguity gap: max-live 4, optimum 5. a[0,2)=2, b[1,3)=2,
		// c[2,4)=2, d[0,1)... see comment in the test body below.
		{"contiguity", []model.Buffer{buf("a", 0, 3, 1), buf("b", 0, 1, 2), buf("c", 1, 4, 2), buf("d", 2, 3, 1), buf("e", 3, 4, 1)}, 4},
		{"aligned", []model.Buffer{
			{ID: "a", Start: 0, End: 2, Size: 3, Pin: pin(0)},
			{ID: "b", Start: 1, End: 3, Size: 2, Align: 4}}, 6},
		{"pinned high", []model.Buffer{
			{ID: "a", Start: 0, End: 2, Size: 3, Pin: pin(10)},
			{ID: "b", Start: 1, End: 3, Size: 2}}, 13},
		{"pinned gap used", []model.Buffer{
			{ID: "a", Start: 0, End: 2, Size: 3, Pin: pin(4)},
			{ID: "b", Start: 1, End: 3, Size: 5},
			{ID: "c", Start: 1, End: 3, Size: 2}}, 12},
		{"pins clash", []model.Buffer{
			{ID: "a", Start: 0, End: 2, Size: 3, Pin: pin(0)},
			{ID: "b", Start: 1, End: 3, Size: 2, Pin: pin(2)}}, -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := &model.Problem{Buffers: tc.bufs}
			got, off := Optimum(p)
			assert.Equal(t, tc.want, got)
			if got < 0 {
				assert.Nil(t, off)
				return
			}
			require.Len(t, off, len(tc.bufs))
			assert.Equal(t, got, valid(p, off))
		})
	}
}

func TestOptimumRejectsUnsupported(t *testing.T) {
	p := &model.Problem{}
	for i := 0; i <= MaxBuffers; i++ {
		p.Buffers = append(p.Buffers, model.Buffer{ID: fmt.Sprint(i), Start: 0, End: 1, Size: 1})
	}
	got, off := Optimum(p)
	assert.Equal(t, int64(-1), got)
	assert.Nil(t, off)
	q := &model.Problem{Buffers: []model.Buffer{{ID: "a", Start: 0, End: 1, Size: 1}, {ID: "b", Start: 0, End: 1, Size: 1, Alias: &model.Alias{Parent: "a"}}}}
	got, _ = Optimum(q)
	assert.Equal(t, int64(-1), got)
}

// exhaustiveOffsets tries every offset vector in [0, h)^n: an independent
// oracle for very small instances.
func exhaustiveOffsets(p *model.Problem, h int64) int64 {
	n := len(p.Buffers)
	off := make([]int64, n)
	best := int64(-1)
	var rec func(i int)
	rec = func(i int) {
		if i == n {
			if v := valid(p, off); v >= 0 && (best < 0 || v < best) {
				best = v
			}
			return
		}
		for o := int64(0); o < h; o++ {
			off[i] = o
			rec(i + 1)
		}
	}
	rec(0)
	return best
}

func TestOptimumMatchesOffsetEnumeration(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for k := 0; k < 400; k++ {
		n := 1 + rng.IntN(4)
		p := Random(rng, n, RandomOptions{MaxSize: 3, Align: 0.3, Pin: 0.15, ZeroSize: 0.1})
		require.NoError(t, p.Validate())
		got, off := Optimum(p)
		if got >= 0 {
			require.Equal(t, got, valid(p, off), "instance %d", k)
		}
		// Every offset of a pushed-down packing is below the sum of sizes
		// plus the largest pin and alignment, so 16 offsets suffice here.
		want := exhaustiveOffsets(p, 16)
		require.Equal(t, want, got, "instance %d: %+v", k, p.Buffers)
	}
}

func TestRandomDeterministicAndValid(t *testing.T) {
	a := Random(rand.New(rand.NewPCG(7, 7)), 8, RandomOptions{Align: 0.5, Pin: 0.2})
	b := Random(rand.New(rand.NewPCG(7, 7)), 8, RandomOptions{Align: 0.5, Pin: 0.2})
	assert.Equal(t, a, b)
	require.NoError(t, a.Validate())
	assert.Len(t, a.Buffers, 8)
}

func TestPerfectPacking(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for k := 0; k < 50; k++ {
		p, off := PerfectPacking(rng, 10, 20, 6)
		require.NoError(t, p.Validate())
		assert.Len(t, p.Buffers, 6)
		assert.Equal(t, int64(20), valid(p, off), "the cut layout is a valid packing of height 20")
		assert.Equal(t, int64(20), p.ComputeSweep().MaxLive)
		got, _ := Optimum(p)
		assert.Equal(t, int64(20), got)
	}
	p, _ := PerfectPacking(rng, 2, 1, 10)
	assert.Len(t, p.Buffers, 2, "a 2×1 rectangle has only two unit pieces")
}

func TestOptimumPlansPassVerify(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for k := 0; k < 300; k++ {
		p := Random(rng, 1+rng.IntN(8), RandomOptions{Align: 0.3, Pin: 0.1, ZeroSize: 0.1})
		got, off := Optimum(p)
		if got < 0 {
			continue
		}
		pl := Plan(p, off)
		require.Empty(t, verify.Check(p, pl), "instance %d", k)
		require.Equal(t, got, pl.Peak(p))
	}
}
