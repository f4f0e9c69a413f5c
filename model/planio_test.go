package model

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// randPlan gives every buffer of p some placement (not necessarily valid).
func randPlan(rng *rand.Rand, p *Problem) *Plan {
	pl := NewPlan(p)
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
		p := randProblem(rng, 1+rng.IntN(20), genOptions{pools: trial%2 == 0, elastic: true, aligns: true, gaps: true})
		require.NoError(t, p.Validate())
		pl := randPlan(rng, p)
		for _, format := range []string{"csv", "json"} {
			var out bytes.Buffer
			if format == "csv" {
				require.NoError(t, WriteCSV(&out, p, pl))
			} else {
				require.NoError(t, WritePlanJSON(&out, p, pl))
			}
			got, err := ReadPlan(bytes.NewReader(out.Bytes()), "plan."+format, p)
			require.NoError(t, err, out.String())
			assert.Equal(t, pl.Placements, got.Placements, format)
		}
	}
}

// TestPlanCSVRoundTripsQuotedIDs: WriteCSV quotes ids with commas and quotes;
// ReadPlan must read them back.
func TestPlanCSVRoundTripsQuotedIDs(t *testing.T) {
	p := &Problem{Buffers: []Buffer{buf("a,b", 0, 2, 4), buf(`q"x`, 1, 3, 4), buf("plain", 0, 3, 2)}}
	pl := &Plan{Placements: []Placement{{Offset: 0, Size: 4}, {Offset: 4, Size: 4}, {Offset: 8, Size: 2}}}
	var out bytes.Buffer
	require.NoError(t, WriteCSV(&out, p, pl))
	got, err := ReadPlan(&out, "plan.csv", p)
	require.NoError(t, err, out.String())
	assert.Equal(t, pl.Placements, got.Placements)
}

func TestReadPlanMarksMissingBuffers(t *testing.T) {
	p := &Problem{Buffers: []Buffer{buf("a", 0, 2, 4), buf("b", 1, 3, 4)}}
	for name, text := range map[string]string{
		"csv":  "id,offset\r\nb,16\r\n",
		"json": `{"peak": 20, "placements": [{"id": "b", "offset": 16, "size": 4, "start": 1, "end": 3}]}`,
	} {
		pl, err := ReadPlan(strings.NewReader(text), "plan", p)
		require.NoError(t, err, name)
		assert.Equal(t, []Placement{{Offset: MissingOffset, Size: 4}, {Offset: 16, Size: 4}}, pl.Placements, name)
	}
}

func TestReadPlanReadsAProblemFileWithOffsets(t *testing.T) {
	p := &Problem{Buffers: []Buffer{buf("a", 0, 2, 4), buf("b", 1, 3, 4)}}
	pl, err := ReadPlan(strings.NewReader("\ufeffbuffer_id,lower,upper,size,offset\na,0,2,4,4\nb,1,3,4,0"), "p.csv", p)
	require.NoError(t, err)
	assert.Equal(t, []Placement{{Offset: 4, Size: 4}, {Offset: 0, Size: 4}}, pl.Placements)
}

func TestReadPlanHostileInput(t *testing.T) {
	p := &Problem{Pools: []Pool{{Name: "sram"}, {Name: "dram"}}, Buffers: []Buffer{buf("a", 0, 2, 4), buf("b", 1, 3, 4)}}
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
			pl, err := ReadPlan(strings.NewReader(tc.text), "plan.csv", p)
			require.Error(t, err)
			assert.Nil(t, pl)
			var ie *InputError
			require.True(t, errors.As(err, &ie), "want *InputError, got %T", err)
			assert.Contains(t, err.Error(), tc.want)
			assert.NotContains(t, err.Error(), "\n")
		})
	}
}

func TestPlanToJSON(t *testing.T) {
	p := &Problem{Pools: []Pool{{Name: "sram"}, {Name: "dram"}}, Buffers: []Buffer{buf("a", 0, 2, 4), buf("b", 1, 3, 6)}}
	pl := &Plan{Placements: []Placement{{Offset: 8, Pool: 1, Size: 4}, {Offset: 2, Pool: 0, Size: 6}}}
	j := PlanToJSON(p, pl)
	assert.Equal(t, int64(12), j.Peak)
	assert.Equal(t, map[string]int64{"sram": 8, "dram": 12}, j.PoolPeaks)
	assert.Equal(t, []JSONPlacement{{ID: "a", Offset: 8, Pool: "dram", Size: 4, End: 2}, {ID: "b", Offset: 2, Pool: "sram", Size: 6, Start: 1, End: 3}}, j.Placements)
	assert.Equal(t, []int64{8, 12}, pl.PoolPeaks(p))
}

func TestLoadChoosesTheFormat(t *testing.T) {
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "net.CSV")
	require.NoError(t, os.WriteFile(csvPath, []byte("id,lower,upper,size\na,0,1,4\n"), 0o644))
	jsonPath := filepath.Join(dir, "net.json")
	require.NoError(t, os.WriteFile(jsonPath, []byte(`{"buffers": [{"id": "a", "start": 0, "end": 1, "size": 4}]}`), 0o644))
	for _, path := range []string{csvPath, jsonPath} {
		p, err := Load(path)
		require.NoError(t, err, path)
		assert.Equal(t, [][4]any{{"a", int64(0), int64(1), int64(4)}}, core(p))
		assert.Equal(t, path, p.Name)
	}

	_, err := Load(filepath.Join(dir, "absent.csv"))
	require.Error(t, err)
	assert.Equal(t, filepath.Join(dir, "absent.csv")+": cannot open: no such file or directory", err.Error())

	// A registered format wins over ".json" because its suffix is longer.
	RegisterFormat(".test-graph.json", func(r io.Reader, name string) (*Problem, error) {
		return &Problem{Name: name + "#graph", Buffers: []Buffer{buf("g", 0, 1, 1)}}, nil
	})
	graphPath := filepath.Join(dir, "net.Test-Graph.json")
	require.NoError(t, os.WriteFile(graphPath, []byte("{}"), 0o644))
	p, err := Load(graphPath)
	require.NoError(t, err)
	assert.Equal(t, graphPath+"#graph", p.Name)
}

func TestWritePlanJSONRejectsPlansItCannotWrite(t *testing.T) {
	p := &Problem{Pools: []Pool{{Name: "sram"}, {Name: "dram"}}, Buffers: []Buffer{buf("a", 0, 2, 4)}}
	var out bytes.Buffer
	assert.EqualError(t, WritePlanJSON(&out, p, &Plan{Placements: []Placement{{Pool: 2, Size: 4}}}), `buffer "a": pool #2 does not exist`)
	assert.EqualError(t, WritePlanJSON(&out, p, &Plan{Placements: make([]Placement, 2)}), "the plan has 2 placements for 1 buffers")
	assert.Zero(t, out.Len())
}

func TestReadersAcceptABOM(t *testing.T) {
	p, err := ReadJSON(strings.NewReader("\ufeff{\"buffers\": [{\"id\": \"a\", \"start\": 0, \"end\": 1, \"size\": 4}]}"), "bom.json")
	require.NoError(t, err)
	pl, err := ReadPlan(strings.NewReader("\ufeff{\"placements\": [{\"id\": \"a\", \"offset\": 8}]}"), "bom.plan.json", p)
	require.NoError(t, err)
	assert.Equal(t, []Placement{{Offset: 8, Size: 4}}, pl.Placements)
}
