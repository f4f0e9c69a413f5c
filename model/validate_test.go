package model

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func i64(v int64) *int64 { return &v }

// buf returns a valid fixed buffer live on [start, end).
func buf(id string, start, end, size int64) Buffer {
	return Buffer{ID: id, Start: start, End: end, Size: size}
}

func TestValidateAcceptsWellFormedProblems(t *testing.T) {
	tests := []struct {
		name string
		p    Problem
	}{
		{"single buffer", Problem{Buffers: []Buffer{buf("a", 0, 1, 4)}}},
		{"zero size", Problem{Buffers: []Buffer{buf("a", 0, 1, 0)}}},
		{"alignment 2^40", Problem{Buffers: []Buffer{{ID: "a", End: 2, Size: 8, Align: MaxAlign}}}},
		{"pin multiple of alignment", Problem{Buffers: []Buffer{{ID: "a", End: 2, Size: 8, Align: 4, Pin: i64(12)}}}},
		{"pin at max with size 0", Problem{Buffers: []Buffer{{ID: "a", End: 2, Size: 0, Pin: i64(math.MaxInt64)}}}},
		{"hint -1 means none", Problem{Buffers: []Buffer{{ID: "a", End: 2, Size: 8, Hint: i64(-1)}}}},
		{"elastic", Problem{Buffers: []Buffer{{ID: "a", End: 2, Size: 8, MaxSize: 16}}}},
		{"alias chain", Problem{Buffers: []Buffer{
			buf("p", 0, 4, 16),
			{ID: "c", Start: 1, End: 3, Size: 8, Alias: &Alias{Parent: "p", Delta: 8}},
			{ID: "g", Start: 2, End: 3, Size: 4, Alias: &Alias{Parent: "c", Delta: 4}},
		}}},
		{"alias siblings sharing bytes at different times", Problem{Buffers: []Buffer{
			buf("p", 0, 6, 8),
			{ID: "x", Start: 0, End: 2, Size: 8, Alias: &Alias{Parent: "p"}},
			{ID: "y", Start: 3, End: 5, Size: 8, Alias: &Alias{Parent: "p"}},
		}}},
		{"alias declared before parent", Problem{Buffers: []Buffer{
			{ID: "c", Start: 1, End: 3, Size: 8, Alias: &Alias{Parent: "p"}},
			buf("p", 0, 4, 8),
		}}},
		{"gaps", Problem{Buffers: []Buffer{{ID: "a", End: 10, Size: 8,
			Gaps: []Gap{{Start: 2, End: 4}, {Start: 4, End: 6, Window: true, Lo: 2, Hi: 8}}}}}},
		{"pools", Problem{Pools: []Pool{{Name: "sram", Capacity: 64, Align: 8}, {Name: "dram", Rank: 1}},
			Buffers: []Buffer{{ID: "a", End: 1, Size: 8, Pools: []string{"dram", "sram"}, Kind: Scratch, Weight: 2}}}},
		{"sizes summing to exactly MaxInt64", Problem{Buffers: []Buffer{
			buf("a", 0, 1, math.MaxInt64-1), buf("b", 0, 1, 1)}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.NoError(t, tc.p.Validate())
		})
	}
}

func TestValidateRejectsEachRule(t *testing.T) {
	tests := []struct {
		name string
		p    Problem
		want string // substring of the message
	}{
		{"empty id", Problem{Buffers: []Buffer{buf("", 0, 1, 1)}}, "empty id"},
		{"negative size", Problem{Buffers: []Buffer{buf("a", 0, 1, -1)}}, `buffer "a": size -1 is negative`},
		{"end equals start", Problem{Buffers: []Buffer{buf("a", 3, 3, 1)}}, "lifetime [3, 3) is empty"},
		{"end before start", Problem{Buffers: []Buffer{buf("a", 3, 1, 1)}}, "end must be after start"},
		{"negative start", Problem{Buffers: []Buffer{buf("a", -2, 1, 1)}}, "start -2 is negative"},
		{"duplicate id", Problem{Buffers: []Buffer{buf("a", 0, 1, 1), buf("a", 0, 2, 1)}}, `buffer "a": duplicate id`},
		{"negative alignment", Problem{Buffers: []Buffer{{ID: "a", End: 1, Size: 1, Align: -4}}}, "alignment -4 is negative"},
		{"pin not multiple of alignment", Problem{Buffers: []Buffer{{ID: "a", End: 1, Size: 1, Align: 8, Pin: i64(12)}}},
			"pinned offset 12 is not a multiple of the alignment 8"},
		{"pin not multiple of the pool's alignment", Problem{Pools: []Pool{{Name: "m", Align: 16}}, Buffers: []Buffer{{ID: "a", End: 1, Size: 1, Pin: i64(8)}}},
			`pinned offset 8 is not a multiple of 16, the alignment of pool "m"`},
		{"pin not multiple of its first allowed pool's alignment", Problem{Pools: []Pool{{Name: "f", Align: 16}, {Name: "s", Rank: 1}},
			Buffers: []Buffer{{ID: "a", End: 1, Size: 1, Pin: i64(8), Pools: []string{"f"}}}}, `the alignment of pool "f"`},
		{"alignment with the pool's above 2^40", Problem{Pools: []Pool{{Name: "m", Align: 3}}, Buffers: []Buffer{{ID: "a", End: 1, Size: 1, Align: MaxAlign}}},
			`pool "m"'s alignment 3 have a common multiple above 2^40`},
		{"alias delta off the pool's grid", Problem{Pools: []Pool{{Name: "m", Align: 4}}, Buffers: []Buffer{
			{ID: "a", End: 2, Size: 8}, {ID: "v", End: 2, Size: 2, Alias: &Alias{Parent: "a", Delta: 2}}}},
			`buffer "v": alias delta 2 inside "a" is not a multiple of 4, the alignment of pool "m"`},
		{"negative pin", Problem{Buffers: []Buffer{{ID: "a", End: 1, Size: 1, Pin: i64(-8)}}}, "pinned offset -8 is negative"},
		{"pin plus size overflows", Problem{Buffers: []Buffer{{ID: "a", End: 1, Size: 2, Pin: i64(math.MaxInt64 - 1)}}}, "overflows int64"},
		{"hint below -1", Problem{Buffers: []Buffer{{ID: "a", End: 1, Size: 1, Hint: i64(-2)}}}, "hint -2 is negative"},
		{"sizes overflow", Problem{Buffers: []Buffer{buf("a", 0, 1, math.MaxInt64), buf("b", 5, 6, 1)}},
			`buffer "b": the sizes of the buffers up to this one add up to more than 2^63-1 bytes`},
		{"elastic max overflows sum", Problem{Buffers: []Buffer{buf("a", 0, 1, 1), {ID: "b", End: 1, Size: 1, MaxSize: math.MaxInt64}}},
			"add up to more than"},
		{"max size below size", Problem{Buffers: []Buffer{{ID: "a", End: 1, Size: 8, MaxSize: 4}}}, "max size 4 is below the minimum size 8"},
		{"unknown alias parent", Problem{Buffers: []Buffer{{ID: "a", End: 1, Size: 1, Alias: &Alias{Parent: "zz"}}}},
			`alias parent "zz" does not exist`},
		{"self alias", Problem{Buffers: []Buffer{{ID: "a", End: 1, Size: 1, Alias: &Alias{Parent: "a"}}}}, "is a cycle"},
		{"alias cycle", Problem{Buffers: []Buffer{
			{ID: "a", End: 1, Size: 1, Alias: &Alias{Parent: "b"}},
			{ID: "b", End: 1, Size: 1, Alias: &Alias{Parent: "c"}},
			{ID: "c", End: 1, Size: 1, Alias: &Alias{Parent: "a"}},
		}}, "is a cycle"},
		{"cycle reached from a tail", Problem{Buffers: []Buffer{
			{ID: "t", End: 1, Size: 1, Alias: &Alias{Parent: "a"}},
			{ID: "a", End: 1, Size: 1, Alias: &Alias{Parent: "b"}},
			{ID: "b", End: 1, Size: 1, Alias: &Alias{Parent: "a"}},
		}}, "is a cycle"},
		{"alias does not fit", Problem{Buffers: []Buffer{buf("p", 0, 1, 8), {ID: "c", End: 1, Size: 4, Alias: &Alias{Parent: "p", Delta: 6}}}},
			`does not fit inside parent "p"`},
		{"alias negative delta", Problem{Buffers: []Buffer{buf("p", 0, 1, 8), {ID: "c", End: 1, Size: 4, Alias: &Alias{Parent: "p", Delta: -1}}}},
			"does not fit"},
		{"alias delta overflows", Problem{Buffers: []Buffer{buf("p", 0, 1, 8), {ID: "c", End: 1, Size: 4, Alias: &Alias{Parent: "p", Delta: math.MaxInt64 - 1}}}},
			"does not fit"},
		{"pinned alias", Problem{Buffers: []Buffer{buf("p", 0, 1, 8), {ID: "c", End: 1, Size: 4, Pin: i64(0), Alias: &Alias{Parent: "p"}}}},
			"cannot be pinned"},
		{"elastic alias", Problem{Buffers: []Buffer{{ID: "p", End: 1, Size: 8, MaxSize: 9}, {ID: "c", End: 1, Size: 4, Alias: &Alias{Parent: "p"}}}},
			"cannot be combined"},
		{"alias siblings sharing live bytes", Problem{Buffers: []Buffer{
			buf("p", 0, 6, 8),
			{ID: "x", Start: 0, End: 3, Size: 6, Alias: &Alias{Parent: "p"}},
			{ID: "y", Start: 2, End: 5, Size: 4, Alias: &Alias{Parent: "p", Delta: 4}},
		}}, `shares bytes of "p" with "x" while both are live`},
		{"unknown pool", Problem{Buffers: []Buffer{{ID: "a", End: 1, Size: 1, Pools: []string{"hbm"}}}}, `unknown pool "hbm"`},
		{"unknown kind", Problem{Buffers: []Buffer{{ID: "a", End: 1, Size: 1, Kind: "temp"}}}, `unknown kind "temp"`},
		{"negative weight", Problem{Buffers: []Buffer{{ID: "a", End: 1, Size: 1, Weight: -1}}}, "weight"},
		{"NaN weight", Problem{Buffers: []Buffer{{ID: "a", End: 1, Size: 1, Weight: math.NaN()}}}, "weight"},
		{"empty gap", Problem{Buffers: []Buffer{{ID: "a", End: 9, Size: 1, Gaps: []Gap{{Start: 3, End: 3}}}}}, "gap [3, 3) is empty"},
		{"gap outside lifetime", Problem{Buffers: []Buffer{{ID: "a", Start: 2, End: 9, Size: 1, Gaps: []Gap{{Start: 1, End: 3}}}}}, "must lie inside the lifetime"},
		{"gap past end", Problem{Buffers: []Buffer{{ID: "a", End: 9, Size: 1, Gaps: []Gap{{Start: 5, End: 10}}}}}, "must lie inside the lifetime"},
		{"overlapping gaps", Problem{Buffers: []Buffer{{ID: "a", End: 9, Size: 1, Gaps: []Gap{{Start: 2, End: 5}, {Start: 4, End: 6}}}}}, "after the previous gap"},
		{"gap window too big", Problem{Buffers: []Buffer{{ID: "a", End: 9, Size: 4, Gaps: []Gap{{Start: 2, End: 5, Window: true, Lo: 0, Hi: 5}}}}}, "gap window [0, 5)"},
		{"gap window inverted", Problem{Buffers: []Buffer{{ID: "a", End: 9, Size: 4, Gaps: []Gap{{Start: 2, End: 5, Window: true, Lo: 3, Hi: 1}}}}}, "gap window"},
		{"pool without name", Problem{Pools: []Pool{{Capacity: 4}}, Buffers: []Buffer{buf("a", 0, 1, 1)}}, "a pool has no name"},
		{"pool twice", Problem{Pools: []Pool{{Name: "x"}, {Name: "x"}}, Buffers: []Buffer{buf("a", 0, 1, 1)}}, `pool "x" is defined twice`},
		{"negative capacity", Problem{Pools: []Pool{{Name: "x", Capacity: -1}}, Buffers: []Buffer{buf("a", 0, 1, 1)}}, "capacity -1 is negative"},
		{"alignment above 2^40", Problem{Buffers: []Buffer{{ID: "a", End: 1, Size: 1, Align: MaxAlign * 2}}}, "alignment 2199023255552 is above 2^40"},
		{"pool alignment above 2^40", Problem{Pools: []Pool{{Name: "x", Align: MaxAlign + 1}}, Buffers: []Buffer{buf("a", 0, 1, 1)}}, `pool "x": alignment 1099511627777 is above 2^40`},
		{"negative pool alignment", Problem{Pools: []Pool{{Name: "x", Align: -2}}, Buffers: []Buffer{buf("a", 0, 1, 1)}}, "alignment -2 is negative"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.p.Validate()
			require.Error(t, err)
			var ie *InputError
			require.True(t, errors.As(err, &ie), "want *InputError, got %T", err)
			assert.Contains(t, err.Error(), tc.want)
			assert.NotContains(t, err.Error(), "\n", "one line")
		})
	}
}

func TestValidateErrorNamesFileAndLine(t *testing.T) {
	p := &Problem{Name: "net.csv", Buffers: []Buffer{
		{ID: "a", Start: 0, End: 1, Size: 1, Line: 2},
		{ID: "a", Start: 0, End: 1, Size: 1, Line: 7},
	}}
	assert.EqualError(t, p.Validate(), `net.csv:7: buffer "a": duplicate id (first defined on line 2)`)

	p = &Problem{Buffers: []Buffer{buf("x", 0, 1, -5)}}
	assert.EqualError(t, p.Validate(), `buffer "x": size -5 is negative`)
}

func TestInputErrorFormats(t *testing.T) {
	assert.Equal(t, "f.csv:3: bad", (&InputError{File: "f.csv", Line: 3, Msg: "bad"}).Error())
	assert.Equal(t, "f.csv: bad", (&InputError{File: "f.csv", Msg: "bad"}).Error())
	assert.Equal(t, "bad", (&InputError{Msg: "bad"}).Error())
}

func TestRootFollowsAliasChains(t *testing.T) {
	p := &Problem{Buffers: []Buffer{
		{ID: "g", End: 3, Size: 2, Alias: &Alias{Parent: "c", Delta: 3}},
		{ID: "c", End: 3, Size: 6, Alias: &Alias{Parent: "p", Delta: 4}},
		buf("p", 0, 4, 16),
	}}
	require.NoError(t, p.Validate())
	idx := p.Index()
	r, d := p.Root(0, idx)
	assert.Equal(t, 2, r)
	assert.Equal(t, int64(7), d)
	r, d = p.Root(2, idx)
	assert.Equal(t, 2, r)
	assert.Equal(t, int64(0), d)
}

func TestProblemHelpers(t *testing.T) {
	p := &Problem{Name: "x.csv", Buffers: []Buffer{{ID: "a", End: 1, Size: 3, Line: 4}, {ID: "b", End: 1, Size: 5}}}
	assert.Equal(t, []Pool{{Name: DefaultPool}}, p.PoolList())
	assert.Equal(t, 0, p.PoolIndex(DefaultPool))
	assert.Equal(t, -1, p.PoolIndex("sram"))
	assert.Equal(t, "x.csv:4", p.Where(0))
	assert.Equal(t, "x.csv", p.Where(1))
	p.Name = ""
	assert.Equal(t, "buffer b", p.Where(1))
	p.SetCapacity(64)
	assert.Equal(t, []Pool{{Name: DefaultPool, Capacity: 64}}, p.Pools)

	b := Buffer{Align: 0}
	assert.Equal(t, int64(1), b.Alignment())
	b.Align = 16
	assert.Equal(t, int64(16), b.Alignment())
	assert.False(t, (&Buffer{Size: 4, MaxSize: 4}).Elastic())
	assert.True(t, (&Buffer{Size: 4, MaxSize: 5}).Elastic())

	pl := NewPlan(p)
	assert.Equal(t, []Placement{{Size: 3}, {Size: 5}}, pl.Placements)
	pl.Placements[1].Offset = 3
	assert.Equal(t, int64(8), pl.Peak(p))
	c := pl.Clone()
	c.Placements[0].Offset = 100
	assert.Equal(t, int64(0), pl.Placements[0].Offset, "Clone is deep")
}

func TestAliasGroups(t *testing.T) {
	p := &Problem{Buffers: []Buffer{
		{ID: "a", Start: 2, End: 6, Size: 32},
		{ID: "v", Start: 1, End: 3, Size: 8, Alias: &Alias{Parent: "w", Delta: 4}},
		{ID: "w", Start: 5, End: 9, Size: 16, Alias: &Alias{Parent: "a", Delta: 8}},
		{ID: "b", Start: 0, End: 1, Size: 4},
	}}
	require.NoError(t, p.Validate())
	groups, of, delta := p.AliasGroups()
	assert.Equal(t, []AliasGroup{{Root: 0, Members: []int{1, 2}, Start: 1, End: 9}, {Root: 3, Start: 0, End: 1}}, groups)
	assert.Equal(t, []int{0, 0, 0, 1}, of)
	assert.Equal(t, []int64{0, 12, 8, 0}, delta)
}

func TestGCDAndLCM(t *testing.T) {
	for _, tc := range []struct{ a, b, gcd, lcm int64 }{
		{12, 18, 6, 36}, {7, 1, 1, 7}, {64, 64, 64, 64}, {4, 6, 2, 12},
	} {
		assert.Equal(t, tc.gcd, GCD(tc.a, tc.b), "GCD(%d, %d)", tc.a, tc.b)
		assert.Equal(t, tc.lcm, LCM(tc.a, tc.b), "LCM(%d, %d)", tc.a, tc.b)
	}
	assert.Equal(t, int64(0), GCD(0, 0))
	assert.Equal(t, int64(5), GCD(0, 5), "a GCD fold starts from 0")
	assert.Equal(t, int64(3), GCD(-9, 6), "deltas may be negative")
}

// TestFirstDuplicateMatchesMap compares firstDuplicate with a map on
// random ids, with and without repeats, on one part and on many.
func TestFirstDuplicateMatchesMap(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 2))
	for _, n := range []int{0, 1, 2, 50, 1000, 3*dupPart + 17} {
		for trial := 0; trial < 6; trial++ {
			bs := make([]Buffer, n)
			for i := range bs {
				bs[i].ID = fmt.Sprint("b", r.IntN(4*n+1))
				if trial == 0 {
					bs[i].ID = fmt.Sprint("u", i) // distinct
				}
			}
			want, wantOf := -1, -1
			seen := map[string]int{}
			for i := range bs {
				if j, ok := seen[bs[i].ID]; ok {
					want, wantOf = i, j
					break
				}
				seen[bs[i].ID] = i
			}
			got, gotOf := firstDuplicate(bs)
			require.Equal(t, [2]int{want, wantOf}, [2]int{got, gotOf}, "n=%d trial %d", n, trial)
		}
	}
}
