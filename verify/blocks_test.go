package verify_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/verify"
)

func blockKinds(vs []verify.BlockViolation) []verify.BlockKind {
	var ks []verify.BlockKind
	for _, v := range vs {
		ks = append(ks, v.Kind)
	}
	return ks
}

// blockProblem: a [0,2) 8 bytes, b [1,3) 4 bytes, c [3,5) 6 bytes, v an
// alias child of a (4 bytes at delta 4) alive [1,3), z of size 0.
func blockProblem() *model.Problem {
	return &model.Problem{Buffers: []model.Buffer{
		{ID: "a", Start: 0, End: 2, Size: 8},
		{ID: "b", Start: 1, End: 3, Size: 4},
		{ID: "c", Start: 3, End: 5, Size: 6},
		{ID: "v", Start: 1, End: 3, Size: 4, Alias: &model.Alias{Parent: "a", Delta: 4}},
		{ID: "z", Start: 0, End: 5, Size: 0},
	}}
}

func TestBlockCheckRules(t *testing.T) {
	cases := []struct {
		name   string
		sizes  []int64
		assign []int
		want   []verify.BlockKind
	}{
		{"valid", []int64{8, 6}, []int{0, 1, 1, 0, -1}, nil},
		{"valid, zero-size buffer in a block", []int64{8, 6}, []int{0, 1, 1, 0, 1}, nil},
		{"wrong length", []int64{8}, []int{0}, []verify.BlockKind{verify.BlockBadInput}},
		{"negative block size", []int64{8, -4, 6}, []int{0, 2, 2, 0, -1}, []verify.BlockKind{verify.BlockBadInput}},
		{"unassigned buffer with bytes", []int64{8, 6}, []int{0, -1, 1, 0, -1}, []verify.BlockKind{verify.BlockUnassigned}},
		{"block out of range", []int64{8, 6}, []int{0, 7, 1, 0, -1}, []verify.BlockKind{verify.BlockUnassigned}},
		{"block too small", []int64{7, 6}, []int{0, 1, 1, 0, -1}, []verify.BlockKind{verify.BlockTooSmall, verify.BlockTooSmall}},
		{"alias split", []int64{8, 6, 4}, []int{0, 1, 1, 2, -1}, []verify.BlockKind{verify.BlockAliasSplit, verify.BlockTooSmall}},
		// b overlaps a and v in time: both pairs are reported (a and v are
		// one alias group, so they may share).
		{"time overlap", []int64{8, 6}, []int{0, 0, 1, 0, -1}, []verify.BlockKind{verify.BlockOverlap, verify.BlockOverlap}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := verify.BlockCheck(blockProblem(), tc.sizes, tc.assign)
			assert.ElementsMatch(t, tc.want, blockKinds(got), "%v", got)
			for _, v := range got {
				assert.Equal(t, v.Kind.String(), v.Name)
				assert.NotEmpty(t, v.Msg)
			}
		})
	}
}

func TestBlockCheckOverlapNamesBuffersAndBlock(t *testing.T) {
	got := verify.BlockCheck(blockProblem(), []int64{8, 6}, []int{0, 0, 1, 0, -1})
	require.Len(t, got, 2)
	assert.Equal(t, verify.BlockOverlap, got[0].Kind)
	assert.Equal(t, []string{"a", "b"}, got[0].Buffers)
	assert.Equal(t, []string{"b", "v"}, got[1].Buffers)
	assert.Equal(t, []int{0}, got[0].Blocks)
}

func TestBlockCheckAliasSiblings(t *testing.T) {
	p := &model.Problem{Buffers: []model.Buffer{
		{ID: "r", Start: 0, End: 1, Size: 8},
		{ID: "x", Start: 0, End: 3, Size: 4, Alias: &model.Alias{Parent: "r", Delta: 0}},
		{ID: "y", Start: 0, End: 3, Size: 4, Alias: &model.Alias{Parent: "r", Delta: 4}},
		{ID: "w", Start: 0, End: 3, Size: 2, Alias: &model.Alias{Parent: "r", Delta: 3}},
	}}
	// x and y are byte-disjoint siblings: fine. w overlaps both bytes.
	got := verify.BlockCheck(p, []int64{8}, []int{0, 0, 0, 0})
	assert.Equal(t, []verify.BlockKind{verify.BlockOverlap}, blockKinds(got))
	got = verify.BlockCheck(p, []int64{8}, []int{0, 0, 0, -1})
	assert.Equal(t, []verify.BlockKind{verify.BlockUnassigned}, blockKinds(got))
}

func TestBlockCheckNeverPanics(t *testing.T) {
	assert.Equal(t, []verify.BlockKind{verify.BlockBadInput}, blockKinds(verify.BlockCheck(nil, nil, nil)))
	cyc := &model.Problem{Buffers: []model.Buffer{
		{ID: "a", Start: 0, End: 2, Size: 4, Alias: &model.Alias{Parent: "b"}},
		{ID: "b", Start: 0, End: 2, Size: 4, Alias: &model.Alias{Parent: "a"}},
		{ID: "c", Start: 0, End: 2, Size: 4, Alias: &model.Alias{Parent: "nobody"}},
	}}
	got := verify.BlockCheck(cyc, []int64{4}, []int{0, 0, 0})
	assert.Contains(t, blockKinds(got), verify.BlockBadInput)
	_ = verify.BlockCheckSchedule(cyc, []int64{4}, []int{0, 0, 0}, []verify.BlockEvent{{Op: "take", Block: 0, Buffer: "a"}})
	assert.Equal(t, []verify.BlockKind{verify.BlockBadInput}, blockKinds(verify.BlockCheckSchedule(nil, nil, nil, nil)))
}

func TestBlockCheckManyViolationsAreCut(t *testing.T) {
	p := &model.Problem{}
	assign := []int{}
	for i := 0; i < 3*verify.BlockMaxViolations; i++ {
		p.Buffers = append(p.Buffers, model.Buffer{ID: fmt.Sprint(i), Start: 0, End: 10, Size: 1})
		assign = append(assign, 0)
	}
	got := verify.BlockCheck(p, []int64{1}, assign)
	require.Len(t, got, verify.BlockMaxViolations+1)
	assert.Equal(t, verify.BlockTooMany, got[len(got)-1].Kind)
}

func TestBlockCheckSweepScales(t *testing.T) {
	// 20000 buffers back to back in one block: a sweep, not all pairs.
	p := &model.Problem{}
	assign := []int{}
	for i := 0; i < 20000; i++ {
		p.Buffers = append(p.Buffers, model.Buffer{ID: fmt.Sprint(i), Start: int64(i), End: int64(i + 1), Size: 4})
		assign = append(assign, 0)
	}
	assert.Empty(t, verify.BlockCheck(p, []int64{4}, assign))
	p.Buffers[7].End = 9
	assert.Equal(t, []verify.BlockKind{verify.BlockOverlap}, blockKinds(verify.BlockCheck(p, []int64{4}, assign)))
}

// blockSchedule is the valid schedule of blockProblem with sizes {8, 6} and
// assign {0, 1, 1, 0, -1}: a+v hold block 0 over [0, 3); b then c block 1.
func blockSchedule() []verify.BlockEvent {
	return []verify.BlockEvent{
		{Time: 0, Op: "new", Block: 0, Size: 8},
		{Time: 0, Op: "take", Block: 0, Buffer: "a", Size: 8},
		{Time: 1, Op: "new", Block: 1, Size: 6},
		{Time: 1, Op: "take", Block: 0, Buffer: "v", Size: 4, Offset: 4},
		{Time: 1, Op: "take", Block: 1, Buffer: "b", Size: 4},
		{Time: 3, Op: "release", Block: 0, Buffer: "a"},
		{Time: 3, Op: "release", Block: 1, Buffer: "b"},
		{Time: 3, Op: "retire", Block: 0},
		{Time: 3, Op: "take", Block: 1, Buffer: "c", Size: 6},
		{Time: 5, Op: "release", Block: 1, Buffer: "c"},
		{Time: 5, Op: "retire", Block: 1},
	}
}

func TestBlockCheckScheduleRules(t *testing.T) {
	sizes, assign := []int64{8, 6}, []int{0, 1, 1, 0, -1}
	p := blockProblem()
	require.Empty(t, verify.BlockCheck(p, sizes, assign))
	require.Empty(t, verify.BlockCheckSchedule(p, sizes, assign, blockSchedule()))
	edit := func(f func(ev []verify.BlockEvent) []verify.BlockEvent) []verify.BlockEvent {
		return f(blockSchedule())
	}
	cases := []struct {
		name string
		ev   []verify.BlockEvent
		want verify.BlockKind
	}{
		{"unknown op", edit(func(ev []verify.BlockEvent) []verify.BlockEvent { ev[0].Op = "alloc"; return ev }), verify.BlockOrder},
		{"time goes back", edit(func(ev []verify.BlockEvent) []verify.BlockEvent { ev[9].Time = 2; return ev }), verify.BlockOrder},
		{"take before release at one time", edit(func(ev []verify.BlockEvent) []verify.BlockEvent {
			ev[6], ev[8] = ev[8], ev[6]
			return ev
		}), verify.BlockOrder},
		{"new with the wrong size", edit(func(ev []verify.BlockEvent) []verify.BlockEvent { ev[2].Size = 5; return ev }), verify.BlockMismatch},
		{"block created twice", edit(func(ev []verify.BlockEvent) []verify.BlockEvent {
			return append(ev[:3:3], append([]verify.BlockEvent{{Time: 1, Op: "new", Block: 1, Size: 6}}, ev[3:]...)...)
		}), verify.BlockLifecycle},
		{"take of a block never created", edit(func(ev []verify.BlockEvent) []verify.BlockEvent { return append(ev[:2:2], ev[3:]...) }), verify.BlockLifecycle},
		{"take into another block than the plan", edit(func(ev []verify.BlockEvent) []verify.BlockEvent { ev[8].Block = 0; return ev }), verify.BlockMismatch},
		{"take at the wrong time", edit(func(ev []verify.BlockEvent) []verify.BlockEvent {
			ev[4].Time = 1
			ev[4].Buffer = "c"
			ev[8].Buffer = "b"
			return ev
		}), verify.BlockMismatch},
		{"take at the wrong offset", edit(func(ev []verify.BlockEvent) []verify.BlockEvent { ev[3].Offset = 0; return ev }), verify.BlockMismatch},
		{"take of an unknown buffer", edit(func(ev []verify.BlockEvent) []verify.BlockEvent { ev[4].Buffer = "ghost"; return ev }), verify.BlockMismatch},
		{"buffer taken twice", edit(func(ev []verify.BlockEvent) []verify.BlockEvent { ev[8].Buffer = "b"; return ev }), verify.BlockLifecycle},
		{"buffer never taken", edit(func(ev []verify.BlockEvent) []verify.BlockEvent { return append(ev[:8:8], ev[9:]...) }), verify.BlockLifecycle},
		{"take of a held block overwrites", edit(func(ev []verify.BlockEvent) []verify.BlockEvent {
			ev[4].Block = 0 // b into a's block while a lives
			return ev
		}), verify.BlockOverwrite},
		{"release while alive", edit(func(ev []verify.BlockEvent) []verify.BlockEvent { ev[5].Time = 2; return ev }), verify.BlockLifecycle},
		{"release names another holder", edit(func(ev []verify.BlockEvent) []verify.BlockEvent { ev[5].Buffer = "b"; return ev }), verify.BlockMismatch},
		{"release of a free block", edit(func(ev []verify.BlockEvent) []verify.BlockEvent {
			return append(ev, verify.BlockEvent{Time: 5, Op: "release", Block: 1})
		}), verify.BlockLifecycle},
		{"never released", edit(func(ev []verify.BlockEvent) []verify.BlockEvent { return ev[:9] }), verify.BlockLifecycle},
		{"retire while held", edit(func(ev []verify.BlockEvent) []verify.BlockEvent {
			return append(ev[:5:5], append([]verify.BlockEvent{{Time: 2, Op: "retire", Block: 1}}, ev[5:]...)...)
		}), verify.BlockLifecycle},
		{"take after retire", edit(func(ev []verify.BlockEvent) []verify.BlockEvent {
			ev[7].Block = 1
			return ev
		}), verify.BlockLifecycle},
		{"block out of range", edit(func(ev []verify.BlockEvent) []verify.BlockEvent { ev[10].Block = 9; return ev }), verify.BlockMismatch},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := verify.BlockCheckSchedule(p, sizes, assign, tc.ev)
			assert.Contains(t, blockKinds(got), tc.want, "%v", got)
		})
	}
}

// FuzzBlockCheck builds an arbitrary (often invalid) problem, plan and
// schedule from bytes: the block checks must never panic.
func FuzzBlockCheck(f *testing.F) {
	f.Add([]byte{3, 0, 2, 8, 1, 1, 3, 4, 0, 2, 4, 6, 1})
	f.Add([]byte{255, 0, 0, 0, 255, 254, 1, 2, 3})
	f.Fuzz(func(t *testing.T, data []byte) {
		next := func() int {
			if len(data) == 0 {
				return 0
			}
			v := int(int8(data[0]))
			data = data[1:]
			return v
		}
		n := next()&7 + 1
		p := &model.Problem{}
		for i := 0; i < n; i++ {
			b := model.Buffer{ID: fmt.Sprint(i), Start: int64(next()), End: int64(next()), Size: int64(next())}
			if a := next(); a > 0 {
				b.Alias = &model.Alias{Parent: fmt.Sprint(a % (n + 1)), Delta: int64(next())}
			}
			p.Buffers = append(p.Buffers, b)
		}
		sizes := make([]int64, next()&3)
		for k := range sizes {
			sizes[k] = int64(next())
		}
		assign := make([]int, n-next()&1)
		for i := range assign {
			assign[i] = next() % 4
		}
		_ = verify.BlockCheck(p, sizes, assign)
		ops := []string{"new", "take", "release", "retire", "bogus"}
		var ev []verify.BlockEvent
		for len(data) > 0 {
			ev = append(ev, verify.BlockEvent{Time: int64(next()), Op: ops[(next()&255)%len(ops)], Block: next() % 4,
				Buffer: fmt.Sprint(next() % (n + 1)), Size: int64(next()), Offset: int64(next())})
		}
		_ = verify.BlockCheckSchedule(p, sizes, assign, ev)
	})
}
