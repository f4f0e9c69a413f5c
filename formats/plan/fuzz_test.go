package plan

import (
	"bytes"
	"testing"

	"github.com/optalloc/optalloc/formats/csv"
	"github.com/optalloc/optalloc/model"
)

// Seed corpora live in testdata/fuzz/<FuzzName>/; the f.Add seeds below are
// the smallest interesting inputs. Run one target at a time, e.g.
//
//	go test ./formats/plan/ -run XXX -fuzz FuzzReadPlan -fuzztime 1000000x

// fuzzPlanProblem has two pools and an elastic buffer, so that every plan
// column (offset, pool, granted) is exercised.
func fuzzPlanProblem() *model.Problem {
	return &model.Problem{
		Pools: []model.Pool{{Name: "sram", Capacity: 64}, {Name: "dram"}},
		Buffers: []model.Buffer{
			{ID: "a", End: 2, Size: 8, MaxSize: 16},
			{ID: "b", Start: 1, End: 3, Size: 4, Align: 4},
			{ID: "c,d", Start: 0, End: 3, Size: 4},
		},
	}
}

func FuzzReadPlan(f *testing.F) {
	for _, s := range []string{
		"id,lower,upper,size,alignment,offset,pool,granted\na,0,2,8,1,0,dram,12\nb,1,3,4,4,16,sram,4\n\"c,d\",0,3,4,1,4,sram,4\n",
		"id,offset\r\nb,16\r\n",
		`{"peak": 20, "placements": [{"id": "b", "offset": 16, "pool": "dram", "size": 4, "start": 1, "end": 3}]}`,
		"", "id\n", "offset,id\n-9223372036854775808,a\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p := fuzzPlanProblem()
		pl, err := Read(bytes.NewReader(data), "f.plan", p)
		if err != nil {
			if pl != nil {
				t.Fatalf("plan and error both returned")
			}
			checkInputError(t, err, "f.plan")
			return
		}
		if len(pl.Placements) != len(p.Buffers) {
			t.Fatalf("%d placements for %d buffers", len(pl.Placements), len(p.Buffers))
		}
		for _, q := range pl.Placements {
			if q.Pool < 0 || q.Pool >= len(p.PoolList()) {
				t.Fatalf("pool index %d out of range", q.Pool)
			}
		}
		var out bytes.Buffer
		if err := csv.Write(&out, p, pl); err != nil {
			t.Fatal(err)
		}
		back, err := Read(&out, "rt.csv", p)
		if err != nil {
			t.Fatalf("csv.Write plan does not read back: %v\n%s", err, out.String())
		}
		for i := range pl.Placements {
			if pl.Placements[i] != back.Placements[i] {
				t.Fatalf("round trip changed placement %d: %+v → %+v\n%s", i, pl.Placements[i], back.Placements[i], out.String())
			}
		}
	})
}
