package jsonfmt

import (
	"bytes"
	"testing"

	"github.com/optalloc/optalloc/model"
	"github.com/stretchr/testify/assert"
)

func TestPlanToJSON(t *testing.T) {
	p := &model.Problem{Pools: []model.Pool{{Name: "sram"}, {Name: "dram"}}, Buffers: []model.Buffer{buf("a", 0, 2, 4), buf("b", 1, 3, 6)}}
	pl := &model.Plan{Placements: []model.Placement{{Offset: 8, Pool: 1, Size: 4}, {Offset: 2, Pool: 0, Size: 6}}}
	j := PlanToJSON(p, pl)
	assert.Equal(t, int64(12), j.Peak)
	assert.Equal(t, map[string]int64{"sram": 8, "dram": 12}, j.PoolPeaks)
	assert.Equal(t, []JSONPlacement{{ID: "a", Offset: 8, Pool: "dram", Size: 4, End: 2}, {ID: "b", Offset: 2, Pool: "sram", Size: 6, Start: 1, End: 3}}, j.Placements)
	assert.Equal(t, []int64{8, 12}, pl.PoolPeaks(p))
}

func TestWritePlanJSONRejectsPlansItCannotWrite(t *testing.T) {
	p := &model.Problem{Pools: []model.Pool{{Name: "sram"}, {Name: "dram"}}, Buffers: []model.Buffer{buf("a", 0, 2, 4)}}
	var out bytes.Buffer
	assert.EqualError(t, WritePlan(&out, p, &model.Plan{Placements: []model.Placement{{Pool: 2, Size: 4}}}), `buffer "a": pool #2 does not exist`)
	assert.EqualError(t, WritePlan(&out, p, &model.Plan{Placements: make([]model.Placement, 2)}), "the plan has 2 placements for 1 buffers")
	assert.Zero(t, out.Len())
}

// TestPlanToJSONCarriesWhatCheckingNeeds: a placement carries its buffer's
// elastic range, alias and gaps, so that the plan alone can be checked;
// a plan without them (written before) still decodes.
func TestPlanToJSONCarriesWhatCheckingNeeds(t *testing.T) {
	p := &model.Problem{Buffers: []model.Buffer{
		{ID: "x", End: 4, Size: 16, Gaps: []model.Gap{{Start: 1, End: 2}}},
		{ID: "v", Start: 2, End: 4, Size: 8, Alias: &model.Alias{Parent: "x", Delta: 8}},
		{ID: "s", End: 1, Size: 4, MaxSize: 32},
	}}
	pl := &model.Plan{Placements: []model.Placement{{Offset: 0, Size: 16}, {Offset: 8, Size: 8}, {Offset: 16, Size: 20}}}
	assert.Equal(t, []JSONPlacement{
		{ID: "x", Size: 16, End: 4, Gaps: []JSONGap{{Start: 1, End: 2}}},
		{ID: "v", Offset: 8, Size: 8, Start: 2, End: 4, Alias: &JSONAlias{Parent: "x", Delta: 8}},
		{ID: "s", Offset: 16, Size: 20, End: 1, MinSize: 4, MaxSize: 32},
	}, PlanToJSON(p, pl).Placements)

	old := `{"peak": 8, "placements": [{"id": "a", "offset": 0, "size": 8, "start": 0, "end": 2}]}`
	jp, err := DecodePlan([]byte(old), "old.json")
	assert.NoError(t, err)
	assert.Equal(t, []JSONPlacement{{ID: "a", Size: 8, End: 2}}, jp.Placements)
}

// TestModelGraphUnderJSONName (issue 35, item 8): a model graph saved as
// net.json is read as a JSON problem; the error says what it looks like
// and how to name it.
func TestModelGraphUnderJSONName(t *testing.T) {
	for _, data := range []string{
		`{"name": "net", "tensors": [{"name": "x", "shape": [4], "dtype": "float32"}], "ops": []}`,
		`{"ops": [], "tensors": []}`,
	} {
		_, err := Read(bytes.NewReader([]byte(data)), "net.json")
		assert.ErrorContains(t, err, "net.json:1: unknown field")
		assert.ErrorContains(t, err, "(want buffers, pools): this looks like a model graph (tensors and ops); name it .graph.json")
	}
}
