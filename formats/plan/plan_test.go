package plan

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/optalloc/optalloc/formats/csv"
	"github.com/optalloc/optalloc/formats/jsonfmt"
	"github.com/optalloc/optalloc/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// randPlan gives every buffer of p some placement (not necessarily valid).
func randPlan(rng *rand.Rand, p *model.Problem) *model.Plan {
	pl := model.NewPlan(p)
	for i := range pl.Placements {
		pl.Placements[i].Offset = rng.Int64N(1000)
		pl.Placements[i].Pool = rng.IntN(len(p.PoolList()))
		if b := &p.Buffers[i]; b.Elastic() {
			pl.Placements[i].Size = b.Size + rng.Int64N(b.MaxSize-b.Size+1)
		}
	}
	return pl
}

func TestPlanRoundTrips(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 100; trial++ {
		p := randProblem(rng, 1+rng.IntN(20), genOptions{Pools: trial%2 == 0, Elastic: true, Aligns: true, Gaps: true})
		require.NoError(t, p.Validate())
		pl := randPlan(rng, p)
		for _, format := range []string{"csv", "json"} {
			var out bytes.Buffer
			if format == "csv" {
				require.NoError(t, csv.Write(&out, p, pl))
			} else {
				require.NoError(t, jsonfmt.WritePlan(&out, p, pl))
			}
			got, err := Read(bytes.NewReader(out.Bytes()), "plan."+format, p)
			require.NoError(t, err, out.String())
			assert.Equal(t, pl.Placements, got.Placements, format)
		}
	}
}

// TestPlanCSVRoundTripsQuotedIDs: csv.Write quotes ids with commas and quotes;
// Read must read them back.
func TestPlanCSVRoundTripsQuotedIDs(t *testing.T) {
	p := &model.Problem{Buffers: []model.Buffer{buf("a,b", 0, 2, 4), buf(`q"x`, 1, 3, 4), buf("plain", 0, 3, 2)}}
	pl := &model.Plan{Placements: []model.Placement{{Offset: 0, Size: 4}, {Offset: 4, Size: 4}, {Offset: 8, Size: 2}}}
	var out bytes.Buffer
	require.NoError(t, csv.Write(&out, p, pl))
	got, err := Read(&out, "plan.csv", p)
	require.NoError(t, err, out.String())
	assert.Equal(t, pl.Placements, got.Placements)
}

func TestReadPlanMarksMissingBuffers(t *testing.T) {
	p := &model.Problem{Buffers: []model.Buffer{buf("a", 0, 2, 4), buf("b", 1, 3, 4)}}
	for name, text := range map[string]string{
		"csv":  "id,offset\r\nb,16\r\n",
		"json": `{"peak": 20, "placements": [{"id": "b", "offset": 16, "size": 4, "start": 1, "end": 3}]}`,
	} {
		pl, err := Read(strings.NewReader(text), "plan", p)
		require.NoError(t, err, name)
		assert.Equal(t, []model.Placement{{Offset: model.MissingOffset, Size: 4}, {Offset: 16, Size: 4}}, pl.Placements, name)
	}
}

func TestReadPlanReadsAProblemFileWithOffsets(t *testing.T) {
	p := &model.Problem{Buffers: []model.Buffer{buf("a", 0, 2, 4), buf("b", 1, 3, 4)}}
	pl, err := Read(strings.NewReader("\ufeffbuffer_id,lower,upper,size,offset\na,0,2,4,4\nb,1,3,4,0"), "p.csv", p)
	require.NoError(t, err)
	assert.Equal(t, []model.Placement{{Offset: 4, Size: 4}, {Offset: 0, Size: 4}}, pl.Placements)
}

func TestReadPlanHostileInput(t *testing.T) {
	p := &model.Problem{Pools: []model.Pool{{Name: "sram"}, {Name: "dram"}}, Buffers: []model.Buffer{buf("a", 0, 2, 4), buf("b", 1, 3, 4)}}
	tests := []struct {
		name, text, want string
	}{
		{"empty", "", "plan.csv: plan: empty file"},
		{"no offset column", "id,lower\na,0\n", "plan.csv:1: plan: missing column offset"},
		{"no id column", "offset\n4\n", "plan.csv:1: plan: missing column id"},
		{"unknown buffer", "id,offset\na,0\nzz,4\n", `plan.csv:3: buffer "zz" is not in the problem`},
		{"bad offset", "id,offset\na,x\n", `plan.csv:2: plan: offset "x" is not an integer`},
		{"empty offset", "id,offset\na,\n", `plan.csv:2: plan: offset "" is not an integer`},
		{"huge offset", "id,offset\na,99999999999999999999\n", `plan.csv:2: plan: offset "99999999999999999999" is not an integer`},
		{"bad granted", "id,offset,granted\na,0,big\n", `plan.csv:2: plan: granted "big" is not an integer`},
		{"unknown pool", "id,offset,pool\na,0,hbm\n", `plan.csv:2: buffer "a": unknown pool "hbm"`},
		{"json unknown field", `{"placements": [{"id": "a", "offset": 0, "colour": 1}]}`, `plan.csv: plan: unknown field "colour"`},
		{"json bad type", `{"placements": [{"id": "a", "offset": "0"}]}`, "plan.csv: plan: field placements.offset: expected an integer in the int64 range"},
		{"json unknown buffer", `{"placements": [{"id": "zz", "offset": 0}]}`, `buffer "zz" is not in the problem`},
		{"json unknown pool", `{"placements": [{"id": "a", "offset": 0, "pool": "hbm"}]}`, `unknown pool "hbm"`},
		{"placed twice", "id,offset\na,0\nb,4\na,8\n", `plan.csv:4: buffer "a" is placed twice`},
		{"json placed twice", `{"placements": [{"id": "a", "offset": 0}, {"id": "a", "offset": 4}]}`, `buffer "a" is placed twice`},
		{"json truncated", `{"placements": [`, "plan.csv: plan:"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pl, err := Read(strings.NewReader(tc.text), "plan.csv", p)
			require.Error(t, err)
			assert.Nil(t, pl)
			var ie *model.InputError
			require.True(t, errors.As(err, &ie), "want *InputError, got %T", err)
			assert.Contains(t, err.Error(), tc.want)
			assert.NotContains(t, err.Error(), "\n")
		})
	}
}

func TestReadersAcceptABOM(t *testing.T) {
	p, err := jsonfmt.Read(strings.NewReader("\ufeff{\"buffers\": [{\"id\": \"a\", \"start\": 0, \"end\": 1, \"size\": 4}]}"), "bom.json")
	require.NoError(t, err)
	pl, err := Read(strings.NewReader("\ufeff{\"placements\": [{\"id\": \"a\", \"offset\": 8}]}"), "bom.plan.json", p)
	require.NoError(t, err)
	assert.Equal(t, []model.Placement{{Offset: 8, Size: 4}}, pl.Placements)
}
