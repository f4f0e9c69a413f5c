package jsonfmt

import (
	"bytes"
	"testing"
)

// Seed corpora live in testdata/fuzz/<FuzzName>/; the f.Add seeds below are
// the smallest interesting inputs. Run one target at a time, e.g.
//
//	go test ./formats/jsonfmt/ -run XXX -fuzz FuzzReadJSON -fuzztime 1000000x

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
		p, err := Read(bytes.NewReader(data), "f.json")
		if err != nil {
			if p != nil {
				t.Fatalf("problem and error both returned")
			}
			checkInputError(t, err, "f.json")
			return
		}
		checkProblem(t, p)
		var out bytes.Buffer
		if err := Write(&out, p); err != nil {
			t.Fatal(err)
		}
		q, err := Read(&out, "rt.json")
		if err != nil {
			t.Fatalf("Write output does not read back: %v\n%s", err, out.String())
		}
		sameCore(t, p, q)
	})
}
