package csv

import (
	"bytes"
	"encoding/csv"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// slowRows reads data with encoding/csv as the quoted path does.
func slowRows(data []byte) ([][]string, []int, error) {
	cr := csv.NewReader(bytes.NewReader(data))
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	var recs [][]string
	var lines []int
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return recs, lines, nil
		}
		if err != nil {
			return nil, nil, err
		}
		l, _ := cr.FieldPos(0)
		recs, lines = append(recs, rec), append(lines, l)
	}
}

func fastRows(data []byte) ([][]string, []int) {
	next := csvRows(data, "x.csv")
	var recs [][]string
	var lines []int
	for {
		rec, line, err := next()
		if err == io.EOF {
			return recs, lines
		}
		recs, lines = append(recs, append([]string(nil), rec...)), append(lines, line)
	}
}

// checkRows: on quote-free text the fast path gives encoding/csv's records
// (up to the trimming of spaces every caller does) and lines.
func checkRows(t *testing.T, data []byte) {
	if bytes.IndexByte(data, '"') >= 0 {
		return
	}
	want, wantLines, err := slowRows(data)
	if err != nil {
		return
	}
	got, gotLines := fastRows(data)
	require.Equal(t, len(want), len(got), "%q", data)
	for i := range want {
		require.Equal(t, wantLines[i], gotLines[i], "%q", data)
		require.Equal(t, len(want[i]), len(got[i]), "%q", data)
		for k := range want[i] {
			require.Equal(t, strings.TrimSpace(want[i][k]), strings.TrimSpace(got[i][k]), "%q", data)
		}
	}
}

func TestCSVFastRowsMatchEncodingCSV(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 3))
	alphabet := []byte("ab1,, \t\r\n\n-")
	for range 20000 {
		b := make([]byte, rng.IntN(40))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		checkRows(t, b)
	}
}

func FuzzCSVFastRows(f *testing.F) {
	f.Add([]byte("id,lower,upper,size\r\na,0,2,4\r\n\r\n b , 1 ,3,4\n"))
	f.Fuzz(func(t *testing.T, data []byte) { checkRows(t, data) })
}
