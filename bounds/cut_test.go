package bounds

import (
	"math/rand/v2"
	"testing"

	"github.com/optalloc/optalloc/internal/brute"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/verify"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func buf(id string, s, e, size int64) model.Buffer {
	return model.Buffer{ID: id, Start: s, End: e, Size: size}
}

func TestSections(t *testing.T) {
	tests := []struct {
		name string
		bufs []model.Buffer
		want []Section
	}{
		{"empty", nil, nil},
		{"one", []model.Buffer{buf("a", 2, 5, 7)}, []Section{{2, 5, 7}}},
		{"overlap", []model.Buffer{buf("a", 0, 4, 3), buf("b", 2, 6, 5)},
			[]Section{{0, 2, 3}, {2, 4, 8}, {4, 6, 5}}},
		{"hole and zero size", []model.Buffer{buf("a", 0, 2, 3), buf("z", 1, 9, 0), buf("b", 4, 6, 1)},
			[]Section{{0, 2, 3}, {4, 6, 1}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, Sections(&model.Problem{Buffers: tc.bufs}))
		})
	}
}

func TestFullest(t *testing.T) {
	secs := []Section{{0, 1, 5}, {1, 2, 9}, {2, 3, 5}, {3, 4, 9}, {4, 5, 1}}
	tests := []struct {
		k    int
		want []int
	}{
		{0, []int{}},
		{1, []int{1}},
		{2, []int{1, 3}},
		{3, []int{0, 1, 3}}, // ties: the earlier first
		{9, []int{0, 1, 2, 3, 4}},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, Fullest(secs, tc.k), "k=%d", tc.k)
	}
}

func TestCutByHand(t *testing.T) {
	// Three buffers in a row, each overlapping the next: a and c never
	// meet, and cutting to the sections of a and c keeps them apart.
	p := &model.Problem{Buffers: []model.Buffer{buf("a", 0, 2, 4), buf("b", 1, 4, 3), buf("c", 3, 5, 4)}}
	secs := Sections(p) // [0,1) 4, [1,2) 7, [2,3) 3, [3,4) 7, [4,5) 4
	require.Len(t, secs, 5)
	q, from := Cut(p, secs, []int{1, 3})
	require.NotNil(t, q)
	assert.Equal(t, []int{0, 1, 2}, from)
	assert.Equal(t, []int64{0, 0, 1}, []int64{q.Buffers[0].Start, q.Buffers[1].Start, q.Buffers[2].Start})
	assert.Equal(t, []int64{1, 2, 2}, []int64{q.Buffers[0].End, q.Buffers[1].End, q.Buffers[2].End})
	peak, _ := brute.Optimum(q)
	assert.Equal(t, int64(7), peak)

	// Cutting to the middle section drops a and c.
	q, from = Cut(p, secs, []int{2})
	assert.Equal(t, []int{1}, from)
	assert.Len(t, q.Buffers, 1)

	gap := &model.Problem{Buffers: []model.Buffer{buf("a", 0, 4, 1)}}
	gap.Buffers[0].Gaps = []model.Gap{{Start: 1, End: 2}}
	q, _ = Cut(gap, Sections(gap), []int{0})
	assert.Nil(t, q, "gaps are not cut")
}

// TestCutIsRelaxation checks on random tiny problems (alignments, pins,
// zero sizes) against brute force: every optimal plan of the problem,
// restricted to the buffers of a cut, is a valid plan of the cut, so the
// cut's optimum never exceeds the problem's; the cut to every section has
// the problem's optimum.
func TestCutIsRelaxation(t *testing.T) {
	rng := rand.New(rand.NewPCG(34, 3))
	lower, tried := 0, 0
	for k := 0; k < 400; k++ {
		ro := brute.RandomOptions{MaxSize: 1 + rng.Int64N(8)}
		if k%2 == 1 {
			ro.Align, ro.Pin, ro.ZeroSize = 0.3, 0.15, 0.1
		}
		p := brute.Random(rng, 2+rng.IntN(6), ro)
		want, off := brute.Optimum(p)
		if want < 0 {
			continue // pins that overlap: no plan
		}
		tried++
		secs := Sections(p)
		all := Fullest(secs, len(secs))
		q, _ := Cut(p, secs, all)
		require.NotNil(t, q)
		got, _ := brute.Optimum(q)
		require.Equal(t, want, max(got, 0), "instance %d: the cut to every section", k)

		chosen := Fullest(secs, rng.IntN(len(secs)+1))
		q, from := Cut(p, secs, chosen)
		require.NotNil(t, q)
		pl := model.NewPlan(q)
		for j, i := range from {
			pl.Placements[j].Offset = off[i]
		}
		require.Empty(t, verify.Check(q, pl), "instance %d: the problem's plan on its cut", k)
		got, _ = brute.Optimum(q)
		require.LessOrEqual(t, got, want, "instance %d", k)
		if got < want {
			lower++
		}
	}
	assert.Greater(t, tried, 300)
	assert.Positive(t, lower, "some cuts are strictly weaker")
}
