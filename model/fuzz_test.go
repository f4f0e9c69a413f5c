package model

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// Seed corpora live in testdata/fuzz/<FuzzName>/; the f.Add seeds below are
// the smallest interesting inputs. Run one target at a time, e.g.
//
//	go test ./model/ -run XXX -fuzz FuzzReadCSV -fuzztime 1000000x

// checkInputError fails unless err is a one-line *InputError naming file.
func checkInputError(t *testing.T, err error, file string) {
	t.Helper()
	var ie *InputError
	if !errors.As(err, &ie) {
		t.Fatalf("error is %T, not *InputError: %v", err, err)
	}
	msg := err.Error()
	if strings.ContainsAny(msg, "\n\r") {
		t.Fatalf("error is not one line: %q", msg)
	}
	if !strings.HasPrefix(msg, file) {
		t.Fatalf("error does not start with the file name: %q", msg)
	}
}

// checkProblem fails unless p is a valid, non-empty problem whose sweep
// agrees with its buffers.
func checkProblem(t *testing.T, p *Problem) {
	t.Helper()
	if p == nil || len(p.Buffers) == 0 {
		t.Fatalf("no error but no buffers: %+v", p)
	}
	if err := p.Validate(); err != nil {
		t.Fatalf("returned problem does not validate: %v", err)
	}
	s := p.ComputeSweep()
	n := 0
	for _, c := range s.Components {
		n += len(c.Buffers)
	}
	if n != len(p.Buffers) {
		t.Fatalf("components hold %d of %d buffers", n, len(p.Buffers))
	}
	for i := range p.Buffers {
		if b := &p.Buffers[i]; b.Alias == nil && len(b.Gaps) == 0 && b.Size > s.MaxLive {
			t.Fatalf("max-live %d below the size %d of %q", s.MaxLive, b.Size, b.ID)
		}
	}
}

func sameCore(t *testing.T, want, got *Problem) {
	t.Helper()
	if len(want.Buffers) != len(got.Buffers) {
		t.Fatalf("round trip: %d buffers became %d", len(want.Buffers), len(got.Buffers))
	}
	for i := range want.Buffers {
		w, g := &want.Buffers[i], &got.Buffers[i]
		if w.ID != g.ID || w.Start != g.Start || w.End != g.End || w.Size != g.Size || w.Alignment() != g.Alignment() ||
			!eqPtr(w.Pin, g.Pin) || !eqPtr(w.Hint, g.Hint) || FormatGaps(w.Gaps) != FormatGaps(g.Gaps) {
			t.Fatalf("round trip changed buffer %d:\n%+v\n%+v", i, *w, *g)
		}
	}
}

func eqPtr(a, b *int64) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

func FuzzReadCSV(f *testing.F) {
	for _, s := range []string{
		"id,lower,upper,size\na,0,3,4\nb,3,9,8\n",
		"\ufeffbuffer,start,end,size,alignment,offset,hint,gaps\r\na,0,9,64,16,32,-1,2-4 6-8@0:16\r\nb,1,3,8,,,48,",
		"id,lower,upper,size\na,0,1,9223372036854775807\nb,0,1,1\n",
		"id,lower,upper,size,offset\na,0,1,8,9223372036854775800\n",
		"id,lower,upper,size\n\"a,\"\"b\",0,1,1\n",
		"", "id,lower,upper,size\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ReadCSV(bytes.NewReader(data), "f.csv")
		if err != nil {
			if p != nil {
				t.Fatalf("problem and error both returned")
			}
			checkInputError(t, err, "f.csv")
			return
		}
		checkProblem(t, p)
		var out bytes.Buffer
		if err := WriteCSV(&out, p, nil); err != nil {
			t.Fatal(err)
		}
		q, err := ReadCSV(&out, "rt.csv")
		if err != nil {
			t.Fatalf("WriteCSV output does not read back: %v\n%s", err, out.String())
		}
		sameCore(t, p, q)
	})
}

func FuzzReadJSON(f *testing.F) {
	for _, s := range []string{
		`{"buffers": [{"id": "a", "start": 0, "end": 3, "size": 4}]}`,
		`{"pools": [{"name": "sram", "capacity": 1024, "align": 8}, {"name": "dram", "rank": 1}], "buffers": [
 {"id": "p", "start": 0, "end": 4, "size": 64, "align": 16, "offset": 32, "pools": ["sram"], "kind": "input"},
 {"id": "c", "start": 1, "end": 3, "size": 16, "alias": {"parent": "p", "delta": 16}},
 {"id": "s", "start": 2, "end": 9, "size": 8, "max_size": 32, "kind": "scratch", "weight": 2.5, "latency_critical": true,
  "hint": 64, "gaps": [{"start": 3, "end": 5}, {"start": 6, "end": 7, "window": true, "lo": 0, "hi": 4}]}]}`,
		`{"buffers": [{"id": "a", "start": 0, "end": 1, "size": 1, "alias": {"parent": "b"}}, {"id": "b", "start": 0, "end": 1, "size": 1, "alias": {"parent": "a"}}]}`,
		`{"buffers": [{"id": "p", "start": 0, "end": 1, "size": 8}, {"id": "c", "start": 0, "end": 1, "size": 4, "alias": {"parent": "p", "delta": 9223372036854775806}}]}`,
		`{}`, `[]`, ``, `{"buffers": [`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ReadJSON(bytes.NewReader(data), "f.json")
		if err != nil {
			if p != nil {
				t.Fatalf("problem and error both returned")
			}
			checkInputError(t, err, "f.json")
			return
		}
		checkProblem(t, p)
		var out bytes.Buffer
		if err := WriteJSON(&out, p); err != nil {
			t.Fatal(err)
		}
		q, err := ReadJSON(&out, "rt.json")
		if err != nil {
			t.Fatalf("WriteJSON output does not read back: %v\n%s", err, out.String())
		}
		sameCore(t, p, q)
	})
}

// fuzzPlanProblem has two pools and an elastic buffer, so that every plan
// column (offset, pool, granted) is exercised.
func fuzzPlanProblem() *Problem {
	return &Problem{
		Pools: []Pool{{Name: "sram", Capacity: 64}, {Name: "dram"}},
		Buffers: []Buffer{
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
		pl, err := ReadPlan(bytes.NewReader(data), "f.plan", p)
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
		if err := WriteCSV(&out, p, pl); err != nil {
			t.Fatal(err)
		}
		back, err := ReadPlan(&out, "rt.csv", p)
		if err != nil {
			t.Fatalf("WriteCSV plan does not read back: %v\n%s", err, out.String())
		}
		for i := range pl.Placements {
			if pl.Placements[i] != back.Placements[i] {
				t.Fatalf("round trip changed placement %d: %+v → %+v\n%s", i, pl.Placements[i], back.Placements[i], out.String())
			}
		}
	})
}
