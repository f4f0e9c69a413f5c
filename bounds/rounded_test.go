package bounds

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/model"
)

func TestRoundedGrid(t *testing.T) {
	at := func(v int64) *int64 { return &v }
	buf := func(size, align int64) model.Buffer {
		return model.Buffer{ID: "b", Start: 0, End: 2, Size: size, Align: align}
	}
	pool := func(align int64, bs ...model.Buffer) *model.Problem {
		p := &model.Problem{Buffers: bs}
		if align > 0 {
			p.Pools = []model.Pool{{Name: model.DefaultPool, Align: align}}
		}
		return p
	}
	pinned := buf(1024, 4096)
	pinned.Pin = at(8192)
	offPin := buf(1024, 4096)
	offPin.Pin = at(2048) // invalid anyway: a pin must respect its alignment
	member := buf(1024, 4096)
	member.Alias = &model.Alias{Parent: "b", Delta: 0}
	deep := buf(1024, 4096)
	deep.Alias = &model.Alias{Parent: "b", Delta: 8192}
	offMember := buf(1024, 4096)
	offMember.Alias = &model.Alias{Parent: "b", Delta: 512}
	gapped := buf(1024, 4096)
	gapped.Gaps = []model.Gap{{Start: 0, End: 1}}
	for _, tc := range []struct {
		name string
		p    *model.Problem
		want int64
	}{
		{"no alignment", pool(0, buf(1024, 0), buf(3072, 0)), 0},
		{"a pool alignment", pool(4096, buf(1024, 0), buf(3072, 0)), 4096},
		{"buffer alignments, their GCD", pool(0, buf(1024, 8192), buf(3072, 4096)), 4096},
		{"one buffer free", pool(0, buf(1024, 4096), buf(3072, 1)), 0},
		{"sizes already on the grid", pool(4096, buf(4096, 0), buf(8192, 0)), 0},
		{"a pin on the grid", pool(4096, buf(1024, 0), pinned), 4096},
		{"a pin off the grid", pool(0, buf(1024, 4096), offPin), 0},
		{"an alias member at delta 0 (a view)", pool(4096, buf(1024, 0), member), 4096},
		{"an alias member at a delta on the grid", pool(4096, buf(1024, 0), deep), 4096},
		{"an alias member off the grid", pool(4096, buf(1024, 0), offMember), 0},
		{"gaps", pool(4096, buf(1024, 0), gapped), 0},
		{"no buffers", pool(4096), 0},
		{"rounding would overflow", pool(4096, buf(math.MaxInt64-1, 0)), 0},
		{"the rounded sum would overflow", pool(4096, buf(math.MaxInt64/2, 0), buf(math.MaxInt64/2, 0)), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, RoundedGrid(tc.p))
		})
	}
	two := pool(4096, buf(1024, 0))
	two.Pools = append(two.Pools, model.Pool{Name: "slow", Align: 4096})
	require.Zero(t, RoundedGrid(two), "several pools are split first, each then single")
}

func TestRoundUp(t *testing.T) {
	p := &model.Problem{Buffers: []model.Buffer{
		{ID: "a", End: 1, Size: 5},
		{ID: "b", End: 1, Size: 8},
		{ID: "c", End: 1, Size: 0},
		{ID: "d", End: 1, Size: 7, MaxSize: 9},
	}}
	q, rmin := RoundUp(p, 4)
	var sizes, maxes []int64
	for _, b := range q.Buffers {
		sizes, maxes = append(sizes, b.Size), append(maxes, b.MaxSize)
	}
	require.Equal(t, []int64{8, 8, 0, 8}, sizes)
	require.Equal(t, []int64{0, 0, 0, 12}, maxes)
	require.Equal(t, int64(1), rmin, "5 = 4 + 1")
	require.Equal(t, int64(5), p.Buffers[0].Size, "the original is unchanged")
}
