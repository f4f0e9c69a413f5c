package sat

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/model"
)

func alias(parent string, delta int64) *model.Alias {
	return &model.Alias{Parent: parent, Delta: delta}
}

// TestItemPieces: what each item occupies, relative to its offset, in
// units of the scale g.
func TestItemPieces(t *testing.T) {
	tests := []struct {
		name   string
		bufs   []model.Buffer
		g      int64
		pieces [][]piece // per item; nil = the full rectangle
		hull   [][2]int64
	}{
		{"plain buffer: full rectangle",
			[]model.Buffer{{ID: "a", Start: 0, End: 4, Size: 4}},
			4, [][]piece{nil}, [][2]int64{{0, 4}}},
		{"absent gap in the middle: two full pieces",
			[]model.Buffer{{ID: "a", Start: 0, End: 10, Size: 4, Gaps: []model.Gap{{Start: 2, End: 8}}}},
			4, [][]piece{{{0, 2, 0, 1}, {8, 10, 0, 1}}}, [][2]int64{{0, 10}}},
		{"partial gap: the window only",
			[]model.Buffer{{ID: "a", Start: 0, End: 6, Size: 8, Gaps: []model.Gap{{Start: 2, End: 4, Window: true, Lo: 2, Hi: 6}}}},
			2, [][]piece{{{0, 2, 0, 4}, {2, 4, 1, 3}, {4, 6, 0, 4}}}, [][2]int64{{0, 6}}},
		{"absent at the start: a shorter full rectangle",
			[]model.Buffer{{ID: "a", Start: 0, End: 6, Size: 3, Gaps: []model.Gap{{Start: 0, End: 2}}}},
			3, [][]piece{nil}, [][2]int64{{2, 6}}},
		{"absent throughout: no piece, still its size",
			[]model.Buffer{{ID: "a", Start: 1, End: 3, Size: 5, Gaps: []model.Gap{{Start: 1, End: 3}}}},
			5, [][]piece{{}}, [][2]int64{{1, 1}}},
		{"window of the whole size: the full rectangle",
			[]model.Buffer{{ID: "a", Start: 0, End: 4, Size: 2, Gaps: []model.Gap{{Start: 1, End: 2, Window: true, Lo: 0, Hi: 2}}}},
			2, [][]piece{nil}, [][2]int64{{0, 4}}},
		{"alias inside its root's lifetime: the root's rectangle",
			[]model.Buffer{{ID: "r", Start: 0, End: 4, Size: 6}, {ID: "m", Start: 1, End: 3, Size: 2, Alias: alias("r", 4)}},
			6, [][]piece{nil}, [][2]int64{{0, 4}}}, // the delta needs no unit of its own
		{"alias outliving its root: its own bytes afterwards",
			[]model.Buffer{{ID: "r", Start: 0, End: 2, Size: 6}, {ID: "m", Start: 1, End: 6, Size: 2, Alias: alias("r", 4)}},
			2, [][]piece{{{0, 2, 0, 3}, {2, 6, 2, 3}}}, [][2]int64{{0, 6}}},
		{"alias born before its root (a concat output)",
			[]model.Buffer{{ID: "r", Start: 3, End: 6, Size: 6}, {ID: "m", Start: 0, End: 4, Size: 3, Alias: alias("r", 0)}},
			3, [][]piece{{{0, 3, 0, 1}, {3, 6, 0, 2}}}, [][2]int64{{0, 6}}},
		{"split outliving its input: two members side by side",
			[]model.Buffer{{ID: "r", Start: 0, End: 2, Size: 6},
				{ID: "m1", Start: 1, End: 6, Size: 2, Alias: alias("r", 0)},
				{ID: "m2", Start: 1, End: 6, Size: 2, Alias: alias("r", 4)}},
			2, [][]piece{{{0, 2, 0, 3}, {2, 6, 0, 1}, {2, 6, 2, 3}}}, [][2]int64{{0, 6}}},
		{"chain: a member of a member, both past the root",
			[]model.Buffer{{ID: "r", Start: 0, End: 1, Size: 8},
				{ID: "m", Start: 0, End: 3, Size: 4, Alias: alias("r", 4)},
				{ID: "mm", Start: 2, End: 5, Size: 2, Alias: alias("m", 2)}},
			2, [][]piece{{{0, 1, 0, 4}, {1, 3, 2, 4}, {3, 5, 3, 4}}}, [][2]int64{{0, 5}}},
		{"member with a gap, root without",
			[]model.Buffer{{ID: "r", Start: 0, End: 2, Size: 4},
				{ID: "m", Start: 0, End: 6, Size: 4, Alias: alias("r", 0), Gaps: []model.Gap{{Start: 3, End: 5, Window: true, Lo: 0, Hi: 2}}}},
			2, [][]piece{{{0, 3, 0, 2}, {3, 5, 0, 1}, {5, 6, 0, 2}}}, [][2]int64{{0, 6}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in, err := newInstance(&model.Problem{Buffers: tc.bufs}, 0)
			require.NoError(t, err)
			assert.True(t, in.exact)
			assert.Equal(t, tc.g, in.g)
			require.Len(t, in.items, len(tc.pieces))
			for k, it := range in.items {
				if tc.pieces[k] == nil {
					assert.Nil(t, it.pieces, "item %d", k)
				} else {
					assert.Equal(t, tc.pieces[k], it.pieces, "item %d", k)
				}
				assert.Equal(t, tc.hull[k], [2]int64{it.start, it.end}, "hull of item %d", k)
			}
		})
	}
}

// TestImpossibleGroup: two members with gaps that Validate lets through
// but that share bytes while both are live: no plan is valid, Decide
// proves it and the other entry points decline.
func TestImpossibleGroup(t *testing.T) {
	p := &model.Problem{Buffers: []model.Buffer{
		{ID: "r", Start: 0, End: 6, Size: 4},
		{ID: "m1", Start: 0, End: 6, Size: 2, Alias: alias("r", 0), Gaps: []model.Gap{{Start: 0, End: 1}}},
		{ID: "m2", Start: 0, End: 6, Size: 2, Alias: alias("r", 1), Gaps: []model.Gap{{Start: 5, End: 6}}},
	}}
	require.NoError(t, p.Validate())
	want, _ := bruteGaps(p)
	require.Equal(t, int64(-1), want, "brute force finds no valid plan")
	_, s, st, err := Decide(context.Background(), p, 100, Options{})
	require.NoError(t, err)
	assert.Equal(t, Infeasible, s)
	assert.Contains(t, st.Reason, `"m1" and "m2"`)
	pl, _, st, err := Minimise(context.Background(), p, nil, 0, Options{}, nil)
	require.NoError(t, err)
	assert.Nil(t, pl)
	assert.Contains(t, st.Reason, "no plan is valid")
}

// TestForbidden: the ranges of d = o_b − o_a two items may not take.
func TestForbidden(t *testing.T) {
	full := func(s, e, size int64) item { return item{start: s, end: e, size: size} }
	withPieces := func(size int64, ps ...piece) item {
		it := item{size: size, pieces: ps}
		it.normalise()
		return it
	}
	tests := []struct {
		name string
		a, b item
		want []span
	}{
		{"full rectangles: one range", full(0, 4, 3), full(2, 6, 5), []span{{-5, 3}}},
		{"disjoint in time: none", full(0, 2, 3), full(2, 4, 5), []span{}},
		{"zero size: none", full(0, 4, 0), full(0, 4, 5), []span{}},
		{"a's absent gap covers b's life: none",
			withPieces(4, piece{0, 2, 0, 4}, piece{8, 10, 0, 4}), full(3, 7, 4), []span{}},
		{"split: b fits between the two members",
			withPieces(6, piece{0, 2, 0, 6}, piece{2, 6, 0, 2}, piece{2, 6, 4, 6}), full(2, 6, 2),
			[]span{{-2, 2}, {2, 6}}},
		{"ranges with no integer between are merged",
			withPieces(6, piece{0, 2, 0, 6}, piece{2, 6, 0, 2}, piece{2, 6, 3, 6}), full(2, 6, 2),
			[]span{{-2, 6}}},
		{"a piece of a with a window above b",
			withPieces(8, piece{0, 4, 4, 8}), full(0, 4, 3), []span{{1, 8}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := forbidden(&tc.a, &tc.b, nil)
			assert.Equal(t, tc.want, append([]span{}, got...))
			assert.Equal(t, len(tc.want) > 0, tc.a.conflicts(&tc.b))
		})
	}
}

// TestSplitNeedsTwoLiterals: a buffer that fits between two members of a
// split that outlive their input is placed there (peak = max-live), which
// one orientation literal per item pair could not express; the encoder
// gives that pair one literal per forbidden range.
func TestSplitNeedsTwoLiterals(t *testing.T) {
	p := &model.Problem{Buffers: []model.Buffer{
		{ID: "r", Start: 0, End: 2, Size: 6},
		{ID: "m1", Start: 1, End: 6, Size: 2, Alias: alias("r", 0)},
		{ID: "m2", Start: 1, End: 6, Size: 2, Alias: alias("r", 4)},
		{ID: "x", Start: 2, End: 6, Size: 2},
	}}
	in, err := newInstance(p, 0)
	require.NoError(t, err)
	e, inf, refused := newEncoder(context.Background(), in.items, 3, Options{})
	require.False(t, inf)
	require.Empty(t, refused)
	assert.Len(t, e.pairs[[2]int{0, 1}], 2, "one literal per forbidden range")
	pl, s, st, err := Decide(context.Background(), p, 6, Options{NoFirstFit: true})
	require.NoError(t, err)
	require.Equal(t, Feasible, s, st.Reason)
	requireValid(t, p, pl)
	assert.Equal(t, int64(2), pl.Placements[3].Offset-pl.Placements[0].Offset, "x sits between m1 and m2")
	_, s, _, err = Decide(context.Background(), p, 5, Options{})
	require.NoError(t, err)
	assert.Equal(t, Infeasible, s)
}

// TestWindowKeepsTheTop: a buffer that occupies only bytes [1, 3) of its
// 4 still ends at offset + 4. Max-live is 6, the optimum 7; the SAT engine
// proves 7 (Decide at 6 is Infeasible, Minimise's bound is 7).
func TestWindowKeepsTheTop(t *testing.T) {
	p := &model.Problem{Buffers: []model.Buffer{
		{ID: "a", Start: 1, End: 3, Size: 4, Gaps: []model.Gap{{Start: 1, End: 3, Window: true, Lo: 1, Hi: 3}}},
		{ID: "c", Start: 1, End: 4, Size: 4},
		{ID: "b", Start: 3, End: 5, Size: 3, Gaps: []model.Gap{{Start: 3, End: 4, Window: true, Lo: 1, Hi: 2}}},
	}}
	require.Equal(t, int64(6), p.ComputeSweep().MaxLive)
	want, _ := bruteGaps(p)
	require.Equal(t, int64(7), want)
	_, s, st, err := Decide(context.Background(), p, 6, Options{})
	require.NoError(t, err)
	assert.Equal(t, Infeasible, s, st.Reason)
	pl, lb, _, err := Minimise(context.Background(), p, nil, 0, Options{}, nil)
	require.NoError(t, err)
	requireValid(t, p, pl)
	assert.Equal(t, int64(7), pl.Peak(p))
	assert.Equal(t, int64(7), lb)
	lb, how, _, err := ProveLowerBound(context.Background(), p, Options{})
	require.NoError(t, err)
	assert.Equal(t, int64(7), lb, how)
}

// TestLoadsMatchModelSweep: the section loads of the items (scaled back to
// bytes) are the model's sweep of its own pieces: max-live agrees on random
// instances with gaps and aliases.
func TestLoadsMatchModelSweep(t *testing.T) {
	rng := rand.New(rand.NewPCG(71, 1))
	for k := 0; k < 300; k++ {
		shape := gapShapes[k%len(gapShapes)].opt
		p := randomGapAlias(rng, 2+rng.IntN(6), shape)
		in, err := newInstance(p, 0)
		if _, ok := err.(impossible); ok {
			continue
		}
		require.NoError(t, err)
		s := in.positive()
		assert.Equal(t, p.ComputeSweep().MaxLive, maxLive(s.items, seq(len(s.items)))*in.g, "instance %d: %+v", k, p.Buffers)
	}
}

// TestIdenticalInterleaved: two identical alias groups whose members leave
// a hole between them interleave (d = ±2 units); the symmetry between them
// fixes the range around d = 0, not another one, so the optimum (max-live,
// 8) is still found.
func TestIdenticalInterleaved(t *testing.T) {
	group := func(r string) []model.Buffer {
		return []model.Buffer{
			{ID: r, Start: 0, End: 4, Size: 6, Gaps: []model.Gap{{Start: 0, End: 4}}},
			{ID: r + "1", Start: 0, End: 4, Size: 2, Alias: alias(r, 0)},
			{ID: r + "2", Start: 0, End: 4, Size: 2, Alias: alias(r, 4)},
		}
	}
	p := &model.Problem{Buffers: append(group("a"), group("b")...)}
	in, err := newInstance(p, 0)
	require.NoError(t, err)
	require.Len(t, in.items, 2)
	assert.Equal(t, []span{{-3, -1}, {-1, 1}, {1, 3}}, forbidden(&in.items[0], &in.items[1], nil), "units of 2 bytes")
	e, _, _ := newEncoder(context.Background(), in.items, 4, Options{})
	assert.Len(t, e.pairs[[2]int{0, 1}], 3)
	for _, v := range variants {
		pl, s, st, err := Decide(context.Background(), p, 8, Options{NoFirstFit: true, NoSymmetry: v.opt.NoSymmetry, NoCover: v.opt.NoCover})
		require.NoError(t, err)
		require.Equal(t, Feasible, s, "%s: %s", v.name, st.Reason)
		requireValid(t, p, pl)
		assert.Equal(t, int64(2), max(pl.Placements[0].Offset-pl.Placements[3].Offset, pl.Placements[3].Offset-pl.Placements[0].Offset))
	}
	want, _ := bruteGaps(p)
	assert.Equal(t, int64(8), want)
}

// TestLoadsMatchSections: the sweep without parts gives the same slots and
// loads as the one that lists them, on problems with gaps, partial windows
// and alias members.
func TestLoadsMatchSections(t *testing.T) {
	rng := rand.New(rand.NewPCG(67, 68))
	for trial := 0; trial < 300; trial++ {
		p := randomGapAlias(rng, 2+rng.IntN(8), gapOpts{horizon: 12, maxSize: 8, gap: 0.4, window: 0.5, alias: 0.3, zero: 0.1})
		in, err := newInstance(p, 0)
		if err != nil {
			continue
		}
		sel := seq(len(in.items))
		want := sections(in.items, sel)
		for k := range want {
			want[k].parts = nil
		}
		require.Equal(t, want, loads(in.items, sel), "trial %d", trial)
	}
}
