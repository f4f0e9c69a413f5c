package csv

import (
	"bytes"
	"testing"
)

// Seed corpora live in testdata/fuzz/<FuzzName>/; the f.Add seeds below are
// the smallest interesting inputs. Run one target at a time, e.g.
//
//	go test ./formats/csv/ -run XXX -fuzz FuzzReadCSV -fuzztime 1000000x

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
		p, err := Read(bytes.NewReader(data), "f.csv")
		if err != nil {
			if p != nil {
				t.Fatalf("problem and error both returned")
			}
			checkInputError(t, err, "f.csv")
			return
		}
		checkProblem(t, p)
		var out bytes.Buffer
		if err := Write(&out, p, nil); err != nil {
			t.Fatal(err)
		}
		q, err := Read(&out, "rt.csv")
		if err != nil {
			t.Fatalf("Write output does not read back: %v\n%s", err, out.String())
		}
		sameCore(t, p, q)
	})
}
