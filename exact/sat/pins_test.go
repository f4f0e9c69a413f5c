package sat

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/internal/brute"
	"github.com/optalloc/optalloc/model"
)

// TestPinFilterDomains: the pin filter drops exactly the offsets at which
// a free buffer would share bytes with a pinned one alive at the same time
// (whole buffers, and pieces: a gap in which the pinned buffer is absent,
// a window in which it holds only some of its bytes).
func TestPinFilterDomains(t *testing.T) {
	cases := []struct {
		name string
		pin  model.Buffer // pinned at 4, size 3: bytes 4..6
		free model.Buffer // size 2, height 10: offsets 0..8
		want []int64
	}{
		{"overlapping", model.Buffer{Start: 0, End: 5}, model.Buffer{Start: 2, End: 4},
			[]int64{0, 1, 2, 7, 8}},
		{"disjoint in time", model.Buffer{Start: 0, End: 2}, model.Buffer{Start: 2, End: 4},
			[]int64{0, 1, 2, 3, 4, 5, 6, 7, 8}},
		{"pin absent while the buffer lives", model.Buffer{Start: 0, End: 6, Gaps: []model.Gap{{Start: 1, End: 5}}},
			model.Buffer{Start: 2, End: 4}, []int64{0, 1, 2, 3, 4, 5, 6, 7, 8}},
		{"pin holds its top byte only", model.Buffer{Start: 0, End: 6, Gaps: []model.Gap{{Start: 1, End: 5, Window: true, Lo: 2, Hi: 3}}},
			model.Buffer{Start: 2, End: 4}, []int64{0, 1, 2, 3, 4, 7, 8}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pin, free := c.pin, c.free
			pin.ID, pin.Size, pin.Pin = "p", 3, ptr(4)
			free.ID, free.Size = "x", 2
			// A third buffer of size 1 keeps the scale at one byte.
			p := &model.Problem{Buffers: []model.Buffer{pin, free, {ID: "u", Start: 9, End: 10, Size: 1}}}
			in, err := newInstance(p, 0)
			require.NoError(t, err)
			require.Equal(t, int64(1), in.g)
			dom, ok := domains(context.Background(), in.items, 10, true, true)
			require.True(t, ok)
			assert.Equal(t, []int64{4}, dom[0], "the pinned buffer keeps its pin")
			assert.Equal(t, c.want, dom[1])
			all, _ := domains(context.Background(), in.items, 10, true, false)
			assert.Len(t, all[1], 9, "without the filter every offset stays")
		})
	}
}

// TestPinFilterCollidingPins: two pinned buffers that share bytes leave
// one of them no offset, so the encoder reports the problem infeasible.
func TestPinFilterCollidingPins(t *testing.T) {
	p := &model.Problem{Buffers: []model.Buffer{
		{ID: "a", Start: 0, End: 4, Size: 4, Pin: ptr(0)},
		{ID: "b", Start: 2, End: 6, Size: 4, Pin: ptr(2)},
	}}
	in, err := newInstance(p, 0)
	require.NoError(t, err)
	_, inf, refused := newEncoder(context.Background(), in.items, 8, Options{})
	assert.Empty(t, refused)
	assert.True(t, inf)
}

// TestPinFilterShrinksEncoding: on random pinned instances the filtered
// encoding never has more clauses than the unfiltered one, has fewer on
// most, and both decide the same (Decide at the brute-force optimum fits,
// one unit below it does not).
func TestPinFilterShrinksEncoding(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(17, 4))
	fewer, n := 0, 0
	for k := 0; k < 200; k++ {
		p := brute.Random(rng, 3+rng.IntN(5), brute.RandomOptions{Pin: 0.4})
		want, _ := brute.Optimum(p)
		if want <= 0 {
			continue
		}
		in, err := newInstance(p, 0)
		require.NoError(t, err)
		h := want / in.g
		var clauses [2]int64
		for a, o := range []Options{{}, {NoPinFilter: true}} {
			e, inf, refused := newEncoder(context.Background(), in.positive().items, h, o)
			require.Empty(t, refused)
			require.False(t, inf, "instance %d fits at %d", k, want)
			clauses[a] = e.clauses
			pl, s, st, err := Decide(ctx, p, want, Options{NoFirstFit: true, NoPinFilter: o.NoPinFilter})
			require.NoError(t, err)
			require.Equal(t, Feasible, s, "instance %d: %s", k, st.Reason)
			requireValid(t, p, pl)
			if want > in.g {
				_, s, st, err = Decide(ctx, p, want-in.g, o)
				require.NoError(t, err)
				require.Equal(t, Infeasible, s, "instance %d below its optimum: %s", k, st.Reason)
			}
		}
		n++
		require.LessOrEqual(t, clauses[0], clauses[1], "instance %d", k)
		if clauses[0] < clauses[1] {
			fewer++
		}
	}
	t.Logf("%d of %d encodings smaller with the pin filter", fewer, n)
	assert.Greater(t, fewer, n/2)
}
