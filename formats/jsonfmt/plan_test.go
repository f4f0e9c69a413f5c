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
