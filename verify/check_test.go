package verify_test

import (
	"encoding/json"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/verify"
)

// kindProblem: a [0,4) 8 bytes align 4; b [2,6) 8 bytes; p [0,6) 16 bytes
// pinned at 32 with child c (8 bytes at delta 8); e elastic 4..12 only in
// dram; g with an absent gap [2,4) and a window [4,5) on bytes [0,2).
func kindProblem() *model.Problem {
	return &model.Problem{
		Pools: []model.Pool{{Name: "sram", Capacity: 64, Align: 4}, {Name: "dram"}},
		Buffers: []model.Buffer{
			{ID: "a", Start: 0, End: 4, Size: 8, Align: 4},
			{ID: "b", Start: 2, End: 6, Size: 8},
			{ID: "p", Start: 0, End: 6, Size: 16, Pin: i64(32)},
			{ID: "c", Start: 1, End: 3, Size: 8, Alias: &model.Alias{Parent: "p", Delta: 8}},
			{ID: "e", Start: 0, End: 6, Size: 4, MaxSize: 12, Pools: []string{"dram"}},
			{ID: "g", Start: 0, End: 6, Size: 4, Gaps: []model.Gap{{Start: 2, End: 4}, {Start: 4, End: 5, Window: true, Lo: 0, Hi: 2}}},
		},
	}
}

func kindPlan() *model.Plan {
	return &model.Plan{Placements: []model.Placement{
		{Offset: 0, Pool: 0, Size: 8},   // a
		{Offset: 8, Pool: 0, Size: 8},   // b
		{Offset: 32, Pool: 0, Size: 16}, // p
		{Offset: 40, Pool: 0, Size: 8},  // c = p + 8
		{Offset: 0, Pool: 1, Size: 10},  // e
		{Offset: 16, Pool: 0, Size: 4},  // g
	}}
}

func TestCheckAcceptsTheBasePlan(t *testing.T) {
	p := kindProblem()
	require.NoError(t, p.Validate())
	assert.Empty(t, verify.Check(p, kindPlan()))
}

func TestCheckReportsEachKind(t *testing.T) {
	tests := []struct {
		name    string
		mutate  func(p *model.Problem, pl *model.Plan)
		want    []verify.Kind
		buffers [][]string
		msg     string // substring of the first message
	}{
		{"missing buffer", func(p *model.Problem, pl *model.Plan) { pl.Placements[1].Offset = model.MissingOffset },
			[]verify.Kind{verify.MissingBuffer}, [][]string{{"b"}}, `buffer "b" has no placement`},
		{"too few placements", func(p *model.Problem, pl *model.Plan) { pl.Placements = pl.Placements[:3] },
			[]verify.Kind{verify.MissingBuffer}, [][]string{nil}, "the plan has 3 placements for 6 buffers"},
		{"overlap", func(p *model.Problem, pl *model.Plan) { pl.Placements[1].Offset = 4 },
			[]verify.Kind{verify.Overlap}, [][]string{{"a", "b"}}, `buffers "a" [0, 4) and "b" [2, 6) share bytes [4, 8) at time 2`},
		{"overlap with an alias child", func(p *model.Problem, pl *model.Plan) { pl.Placements[1].Offset = 44 },
			[]verify.Kind{verify.Overlap, verify.Overlap}, [][]string{{"b", "p"}, {"b", "c"}}, "share bytes"},
		{"overlap inside a window", func(p *model.Problem, pl *model.Plan) {
			p.Buffers[1].Start, p.Buffers[1].End = 4, 5
			pl.Placements[1].Offset = 16
		}, []verify.Kind{verify.Overlap}, [][]string{{"b", "g"}}, "share bytes [16, 18) at time 4"},
		{"no overlap in an absent gap", func(p *model.Problem, pl *model.Plan) {
			p.Buffers[1].Start, p.Buffers[1].End = 2, 4
			pl.Placements[1].Offset = 16
		}, nil, nil, ""},
		{"no overlap beside a window", func(p *model.Problem, pl *model.Plan) {
			p.Buffers[1].Start, p.Buffers[1].End, p.Buffers[1].Size = 4, 5, 2
			p.Pools[0].Align = 0
			pl.Placements[1].Offset, pl.Placements[1].Size = 18, 2
		}, nil, nil, ""},
		{"touching lifetimes do not overlap", func(p *model.Problem, pl *model.Plan) {
			p.Buffers[1].Start = 4
			pl.Placements[1].Offset = 0
		}, nil, nil, ""},
		{"zero-size buffers never overlap", func(p *model.Problem, pl *model.Plan) {
			p.Buffers[1].Size = 0
			pl.Placements[1].Offset, pl.Placements[1].Size = 4, 0
		}, nil, nil, ""},
		{"misaligned by the buffer", func(p *model.Problem, pl *model.Plan) {
			p.Pools[0].Align = 0
			pl.Placements[0].Offset = 58
			pl.Placements[0].Size = 8
			p.Buffers[0].End = 1
			p.Pools[0].Capacity = 0
		}, []verify.Kind{verify.Misaligned}, [][]string{{"a"}}, `buffer "a" at offset 58 is not a multiple of 4`},
		{"misaligned by the pool", func(p *model.Problem, pl *model.Plan) { pl.Placements[5].Offset = 18 },
			[]verify.Kind{verify.Misaligned}, [][]string{{"g"}}, `buffer "g" at offset 18 is not a multiple of 4`},
		{"pin moved", func(p *model.Problem, pl *model.Plan) {
			pl.Placements[2].Offset, pl.Placements[3].Offset = 48, 56
			p.Pools[0].Capacity = 0
		}, []verify.Kind{verify.PinMoved}, [][]string{{"p"}}, `buffer "p" is pinned at 32 but placed at 48`},
		{"out of capacity", func(p *model.Problem, pl *model.Plan) { p.Pools[0].Capacity = 40 },
			[]verify.Kind{verify.OutOfCapacity, verify.OutOfCapacity}, [][]string{{"p"}, {"c"}}, `buffer "p" occupies [32, 48), beyond the capacity 40 of pool "sram"`},
		{"negative offset", func(p *model.Problem, pl *model.Plan) { pl.Placements[1].Offset = -8 },
			[]verify.Kind{verify.OutOfCapacity}, [][]string{{"b"}}, "outside any memory"},
		{"offset plus size overflows", func(p *model.Problem, pl *model.Plan) { pl.Placements[1].Offset = math.MaxInt64 - 4 },
			[]verify.Kind{verify.OutOfCapacity}, [][]string{{"b"}}, "outside any memory"},
		{"alias moved", func(p *model.Problem, pl *model.Plan) { pl.Placements[3].Offset = 36 },
			[]verify.Kind{verify.AliasBroken}, [][]string{{"c", "p"}}, `buffer "c" must sit at offset 32+8 of parent "p"`},
		{"alias in another pool", func(p *model.Problem, pl *model.Plan) { pl.Placements[3].Pool, pl.Placements[3].Offset = 1, 40 },
			[]verify.Kind{verify.AliasBroken}, [][]string{{"c", "p"}}, "(pool #0) but is at 40 (pool #1)"},
		{"alias parent unknown", func(p *model.Problem, pl *model.Plan) { p.Buffers[3].Alias.Parent = "zz" },
			[]verify.Kind{verify.AliasBroken, verify.Overlap}, [][]string{{"c"}, {"p", "c"}}, `aliases unknown parent "zz"`},
		{"pool index out of range", func(p *model.Problem, pl *model.Plan) { pl.Placements[1].Pool = 2 },
			[]verify.Kind{verify.WrongPool}, [][]string{{"b"}}, `buffer "b" is in pool #2; there are 2 pools`},
		{"pool not allowed", func(p *model.Problem, pl *model.Plan) { pl.Placements[4].Pool, pl.Placements[4].Offset = 0, 48 },
			[]verify.Kind{verify.WrongPool}, [][]string{{"e"}}, `buffer "e" is in pool "sram"; allowed: dram`},
		{"elastic grant too large", func(p *model.Problem, pl *model.Plan) { pl.Placements[4].Size = 13 },
			[]verify.Kind{verify.ElasticRange}, [][]string{{"e"}}, `buffer "e" is granted 13 bytes; allowed 4..12`},
		{"elastic grant too small", func(p *model.Problem, pl *model.Plan) { pl.Placements[4].Size = 3 },
			[]verify.Kind{verify.ElasticRange}, [][]string{{"e"}}, "allowed 4..12"},
		{"fixed buffer granted more", func(p *model.Problem, pl *model.Plan) { pl.Placements[1].Size = 9 },
			[]verify.Kind{verify.ElasticRange}, [][]string{{"b"}}, `buffer "b" is granted 9 bytes; its size is 8`},
		{"gap outside the lifetime", func(p *model.Problem, pl *model.Plan) { p.Buffers[5].Gaps[1].End = 7 },
			[]verify.Kind{verify.GapMisuse}, [][]string{{"g"}}, `buffer "g": gap [4, 7) is not inside the lifetime [0, 6)`},
		{"gaps out of order", func(p *model.Problem, pl *model.Plan) { p.Buffers[5].Gaps[1].Start = 3 },
			[]verify.Kind{verify.GapMisuse}, [][]string{{"g"}}, "after the previous gap"},
		{"window beyond the granted bytes", func(p *model.Problem, pl *model.Plan) { p.Buffers[5].Gaps[1].Hi = 5 },
			[]verify.Kind{verify.GapMisuse}, [][]string{{"g"}}, `buffer "g": gap window [0, 5) is outside its 4 granted bytes`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, pl := kindProblem(), kindPlan()
			tc.mutate(p, pl)
			got := verify.Check(p, pl)
			assert.Equal(t, tc.want, kinds(got))
			if len(got) != len(tc.want) {
				return
			}
			for i, v := range got {
				assert.Equal(t, v.Kind.String(), v.Name)
				assert.Equal(t, tc.buffers[i], v.Buffers)
				assert.Equal(t, v.Name+": "+v.Msg, v.String())
			}
			if tc.msg != "" {
				assert.Contains(t, got[0].Msg, tc.msg)
			}
		})
	}
}

func TestCheckAliasFamiliesShareBytes(t *testing.T) {
	// c and its child gc share bytes with p by design; two children of p
	// at disjoint deltas are fine, at overlapping deltas they conflict.
	p := &model.Problem{Buffers: []model.Buffer{
		{ID: "p", Start: 0, End: 4, Size: 16},
		{ID: "c", Start: 1, End: 3, Size: 8, Alias: &model.Alias{Parent: "p", Delta: 0}},
		{ID: "gc", Start: 1, End: 2, Size: 4, Alias: &model.Alias{Parent: "c", Delta: 4}},
		{ID: "d", Start: 1, End: 3, Size: 8, Alias: &model.Alias{Parent: "p", Delta: 8}},
	}}
	require.NoError(t, p.Validate())
	pl := &model.Plan{Placements: []model.Placement{{Offset: 0, Size: 16}, {Offset: 0, Size: 8}, {Offset: 4, Size: 4}, {Offset: 8, Size: 8}}}
	assert.Empty(t, verify.Check(p, pl))

	p.Buffers[3].Alias.Delta = 4
	pl.Placements[3].Offset = 4
	got := verify.Check(p, pl)
	assert.Equal(t, []verify.Kind{verify.Overlap, verify.Overlap}, kinds(got))
	assert.ElementsMatch(t, [][2]string{{"c", "d"}, {"gc", "d"}}, keys(overlapPairs(p, got)))
}

func keys(m map[[2]string]bool) [][2]string {
	var out [][2]string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestCheckNilAndEmpty(t *testing.T) {
	p := kindProblem()
	assert.Equal(t, []verify.Kind{verify.MissingBuffer}, kinds(verify.Check(p, nil)))
	assert.Empty(t, verify.Check(&model.Problem{}, &model.Plan{}))
}

// TestCheckNeverPanicsOnInvalidProblems: Check promises not to panic even
// on problems that fail Validate.
func TestCheckNeverPanicsOnInvalidProblems(t *testing.T) {
	probs := []*model.Problem{
		{Buffers: []model.Buffer{
			{ID: "a", Start: 0, End: 2, Size: 4, Alias: &model.Alias{Parent: "b"}},
			{ID: "b", Start: 0, End: 2, Size: 4, Alias: &model.Alias{Parent: "a"}},
		}},
		{Buffers: []model.Buffer{{ID: "a", Start: 0, End: 2, Size: 4, Alias: &model.Alias{Parent: "a"}}, {ID: "a", Start: 1, End: 3, Size: 4}}},
		{Buffers: []model.Buffer{{ID: "a", Start: 5, End: 2, Size: -4, Align: -3, Gaps: []model.Gap{{Start: 9, End: 1, Window: true, Lo: 5, Hi: -1}}}}},
		{Pools: []model.Pool{{Name: "x", Align: -1, Capacity: -5}}, Buffers: []model.Buffer{{ID: "a", Start: 0, End: 2, Size: math.MaxInt64, MaxSize: -1}}},
	}
	plans := func(n int) []*model.Plan {
		mk := func(q model.Placement) *model.Plan {
			pl := &model.Plan{}
			for i := 0; i < n; i++ {
				pl.Placements = append(pl.Placements, q)
			}
			return pl
		}
		return []*model.Plan{
			mk(model.Placement{}), mk(model.Placement{Offset: math.MaxInt64, Size: math.MaxInt64}),
			mk(model.Placement{Offset: math.MinInt64 + 1, Size: -5, Pool: -1}), mk(model.Placement{Offset: 4, Size: 4, Pool: 7}),
			mk(model.Placement{Offset: model.MissingOffset}),
		}
	}
	for _, p := range probs {
		for _, pl := range plans(len(p.Buffers)) {
			assert.NotPanics(t, func() { verify.Check(p, pl) })
		}
	}
}

// TestCheckStopsAtMaxViolations: 20000 buffers stacked at offset 0 make
// 2·10⁸ overlapping pairs; Check must stop at MaxViolations instead of
// reporting them all (it took minutes for 8000 buffers before the sweep
// stopped early; now milliseconds — the 60 s guard is only against a hang).
func TestCheckStopsAtMaxViolations(t *testing.T) {
	const n = 20000
	p := &model.Problem{}
	for i := 0; i < n; i++ {
		p.Buffers = append(p.Buffers, model.Buffer{ID: fmt.Sprint("b", i), Start: 0, End: 2, Size: 1})
	}
	done := make(chan []verify.Violation, 1)
	go func() { done <- verify.Check(p, model.NewPlan(p)) }()
	select {
	case got := <-done:
		require.Len(t, got, verify.MaxViolations+1)
		assert.Equal(t, verify.Overlap, got[0].Kind)
		assert.Equal(t, verify.TooMany, got[len(got)-1].Kind)
		assert.Equal(t, "too-many", got[len(got)-1].Name)
	case <-time.After(60 * time.Second):
		t.Fatal("Check did not stop after MaxViolations violations")
	}
}

func TestViolationJSON(t *testing.T) {
	v := verify.Violation{Kind: verify.PinMoved, Name: verify.PinMoved.String(), Buffers: []string{"a"}, Msg: "m"}
	data, err := json.Marshal(v)
	require.NoError(t, err)
	assert.JSONEq(t, `{"kind": "pin-moved", "buffers": ["a"], "message": "m"}`, string(data))
	assert.Equal(t, "kind(99)", verify.Kind(99).String())
	assert.Equal(t, "gap-misuse", verify.GapMisuse.String())
}
