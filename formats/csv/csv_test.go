package csv

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/optalloc/optalloc/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func readCSV(t *testing.T, text string) (*model.Problem, error) {
	t.Helper()
	return Read(strings.NewReader(text), "in.csv")
}

// core returns (id, start, end, size) of every buffer, for compact asserts.
func core(p *model.Problem) [][4]any {
	out := make([][4]any, len(p.Buffers))
	for i, b := range p.Buffers {
		out[i] = [4]any{b.ID, b.Start, b.End, b.Size}
	}
	return out
}

func TestReadCSVDialect(t *testing.T) {
	ab := [][4]any{{"a", int64(0), int64(3), int64(4)}, {"b", int64(3), int64(9), int64(8)}}
	tests := []struct {
		name string
		text string
		want [][4]any
	}{
		{"minimalloc header", "id,lower,upper,size\na,0,3,4\nb,3,9,8\n", ab},
		{"buffer and start", "buffer,start,upper,size\na,0,3,4\nb,3,9,8\n", ab},
		{"buffer_id and begin", "buffer_id,begin,upper,size\na,0,3,4\nb,3,9,8\n", ab},
		{"inclusive end", "id,lower,end,size\na,0,2,4\nb,3,8,8\n", ab},
		{"any column order", "size,upper,id,lower\n4,3,a,0\n8,9,b,3\n", ab},
		{"case and spaces in header", " ID , Lower ,UPPER, Size\na, 0, 3, 4\nb ,3 ,9 ,8\n", ab},
		{"no final newline", "id,lower,upper,size\na,0,3,4\nb,3,9,8", ab},
		{"CRLF", "id,lower,upper,size\r\na,0,3,4\r\nb,3,9,8\r\n", ab},
		{"BOM", "\ufeffid,lower,upper,size\na,0,3,4\nb,3,9,8\n", ab},
		{"BOM and CRLF without final newline", "\ufeffid,lower,upper,size\r\na,0,3,4\r\nb,3,9,8", ab},
		{"blank lines", "id,lower,upper,size\n\na,0,3,4\n\n\nb,3,9,8\n\n", ab},
		{"unknown columns ignored", "id,lower,upper,size,name\na,0,3,4,conv1\nb,3,9,8,relu\n", ab},
		{"quoted id", "id,lower,upper,size\n\"a\",0,3,4\n\"b\",3,9,8\n", ab},
		{"empty optional columns", "id,lower,upper,size,alignment,offset,hint,gaps\na,0,3,4,,,,\nb,3,9,8,,-1,-1,\n", ab},
		{"short rows leave optional columns empty", "id,lower,upper,size,offset,hint\na,0,3,4\nb,3,9,8,\n", ab},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := readCSV(t, tc.text)
			require.NoError(t, err)
			assert.Equal(t, tc.want, core(p))
			for _, b := range p.Buffers {
				assert.Nil(t, b.Pin, "no pin")
				assert.Nil(t, b.Hint, "no hint")
				assert.Equal(t, int64(1), b.Alignment())
				assert.Empty(t, b.Gaps)
			}
		})
	}
}

func TestReadCSVOptionalColumns(t *testing.T) {
	p, err := readCSV(t, "id,lower,upper,size,alignment,offset,hint,gaps\n"+
		"a,0,10,64,16,32,-1,2-4 6-8@0:16\n"+
		"b,1,3,8,,,48,\n"+
		"c,2,4,8,8,-1,,\n")
	require.NoError(t, err)
	require.Len(t, p.Buffers, 3)
	a, b, c := p.Buffers[0], p.Buffers[1], p.Buffers[2]
	assert.Equal(t, int64(16), a.Align)
	require.NotNil(t, a.Pin)
	assert.Equal(t, int64(32), *a.Pin)
	assert.Nil(t, a.Hint)
	assert.Equal(t, []model.Gap{{Start: 2, End: 4}, {Start: 6, End: 8, Window: true, Lo: 0, Hi: 16}}, a.Gaps)
	assert.Equal(t, int64(1), b.Alignment())
	assert.Nil(t, b.Pin)
	require.NotNil(t, b.Hint)
	assert.Equal(t, int64(48), *b.Hint)
	assert.Equal(t, int64(8), c.Align)
	assert.Nil(t, c.Pin)
	assert.Equal(t, []string{"alignment", "hint", "gaps"}, p.CSVColumns)
	assert.Equal(t, []int{2, 3, 4}, []int{a.Line, b.Line, c.Line})
}

func TestReadCSVLineNumbers(t *testing.T) {
	text := "id,lower,upper,size\r\n\r\na,0,3,4\r\n\"multi\nline\",0,3,4\r\nc,0,3,4"
	p, err := readCSV(t, text)
	require.NoError(t, err)
	assert.Equal(t, []int{3, 4, 6}, []int{p.Buffers[0].Line, p.Buffers[1].Line, p.Buffers[2].Line})
}

// TestReadCSVHostileInput feeds broken files: every one must give exactly one
// line "in.csv:LINE: what" (or "in.csv: what" when no row is to blame).
func TestReadCSVHostileInput(t *testing.T) {
	const h = "id,lower,upper,size\n"
	tests := []struct {
		name, text, want string
	}{
		{"empty file", "", "in.csv: empty file"},
		{"only a BOM", "\ufeff", "in.csv:1: missing column"},
		{"header only", h, "in.csv: no buffers: the file has a header but no rows"},
		{"header only without newline", "id,lower,upper,size", "in.csv: no buffers"},
		{"missing size", "id,lower,upper\na,0,1\n", "in.csv:1: missing column size"},
		{"missing id", "name,lower,upper,size\na,0,1,1\n", "in.csv:1: missing column id"},
		{"missing lower", "id,upper,size\na,1,1\n", "in.csv:1: missing column lower"},
		{"missing upper", "id,lower,size\na,0,1\n", "in.csv:1: missing column upper (or end)"},
		{"upper and end", "id,lower,upper,end,size\na,0,1,1,1\n", "in.csv:1: both upper and end"},
		{"duplicate column", "id,lower,upper,size,buffer\na,0,1,1,b\n", `in.csv:1: column "buffer" appears twice`},
		{"negative size", h + "a,0,1,1\nb,0,1,-8\n", `in.csv:3: buffer "b": size -8 is negative`},
		{"end before start", h + "a,5,1,1\n", `in.csv:2: buffer "a": lifetime [5, 1) is empty`},
		{"inclusive end before start", "id,lower,end,size\na,5,3,1\n", `in.csv:2: buffer "a": lifetime [5, 4) is empty`},
		{"not a number", h + "a,0,1,1\nb,x,1,1\n", `in.csv:3: column lower: "x" is not an integer`},
		{"float size", h + "a,0,1,1.5\n", `in.csv:2: column size: "1.5" is not an integer`},
		{"size beyond int64", h + "a,0,1,9223372036854775808\n", "in.csv:2: column size: \"9223372036854775808\" is not an integer in the int64 range"},
		{"empty size", h + "a,0,1,\n", "in.csv:2: column size is empty"},
		{"short row", h + "a,0\n", "in.csv:2: column upper is empty"},
		{"empty id", h + ",0,1,1\n", "in.csv:2: column id is empty"},
		{"duplicate id", h + "a,0,1,1\nb,0,1,1\na,2,3,1\n", `in.csv:4: buffer "a": duplicate id (first defined on line 2)`},
		{"sizes overflow", h + "a,0,1,9223372036854775807\nb,0,1,1\n", `in.csv:3: buffer "b": the sizes of the buffers up to this one add up to more than 2^63-1 bytes`},
		{"pin plus size overflows", "id,lower,upper,size,offset\na,0,1,8,9223372036854775800\n", `in.csv:2: buffer "a": pinned offset 9223372036854775800 plus size 8 overflows int64`},
		{"inclusive end at int64 max", "id,lower,end,size\na,0,9223372036854775807,1\n", "in.csv:2: end 9223372036854775807 overflows"},
		{"zero alignment", "id,lower,upper,size,alignment\na,0,1,1,0\n", `in.csv:2: buffer "a": alignment 0 must be positive`},
		{"negative alignment", "id,lower,upper,size,alignment\na,0,1,1,-8\n", "in.csv:2: buffer \"a\": alignment -8 must be positive"},
		{"pin not aligned", "id,lower,upper,size,alignment,offset\na,0,1,1,8,12\n", "in.csv:2: buffer \"a\": pinned offset 12 is not a multiple of the alignment 8"},
		{"negative pin", "id,lower,upper,size,offset\na,0,1,1,-2\n", "in.csv:2: buffer \"a\": pinned offset -2 is negative"},
		{"bad gap", "id,lower,upper,size,gaps\na,0,9,1,3\n", `in.csv:2: buffer "a": gap "3": want l-u or l-u@a:b`},
		{"bad gap window", "id,lower,upper,size,gaps\na,0,9,4,1-3@1\n", "in.csv:2: buffer \"a\": gap \"1-3@1\": window must be a:b"},
		{"gap outside lifetime", "id,lower,upper,size,gaps\na,0,9,4,7-12\n", "in.csv:2: buffer \"a\": gap [7, 12) must lie inside"},
		{"bare quote", h + "a\"b,0,1,1\n", "in.csv:2: bare \" in non-quoted-field"},
		{"unterminated quote", h + "a,0,1,1\n\"b,0,1,1\n", "in.csv:3:"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := readCSV(t, tc.text)
			require.Error(t, err)
			assert.Nil(t, p)
			var ie *model.InputError
			require.True(t, errors.As(err, &ie), "want *InputError, got %T", err)
			assert.Equal(t, "in.csv", ie.File)
			msg := err.Error()
			assert.True(t, strings.HasPrefix(msg, tc.want), "got %q, want prefix %q", msg, tc.want)
			assert.NotContains(t, msg, "\n")
		})
	}
}

func TestParseAndFormatGaps(t *testing.T) {
	gaps, err := ParseGaps("  1-2   3-5@4:8 ")
	require.NoError(t, err)
	assert.Equal(t, []model.Gap{{Start: 1, End: 2}, {Start: 3, End: 5, Window: true, Lo: 4, Hi: 8}}, gaps)
	assert.Equal(t, "1-2 3-5@4:8", FormatGaps(gaps))
	gaps, err = ParseGaps("")
	require.NoError(t, err)
	assert.Empty(t, gaps)
	for _, bad := range []string{"x", "1-", "-2", "a-2", "1-b", "1-2@", "1-2@3", "1-2@x:4", "1-2@3:y"} {
		_, err := ParseGaps(bad)
		assert.Error(t, err, bad)
	}
}

func TestWriteCSVThenReadCSVRoundTrips(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 200; trial++ {
		p := randProblem(rng, 1+rng.IntN(30), genOptions{Gaps: true, Aligns: true, Pins: true, Hints: true})
		require.NoError(t, p.Validate())
		var buf bytes.Buffer
		require.NoError(t, Write(&buf, p, nil))
		q, err := Read(&buf, "rt.csv")
		require.NoError(t, err, buf.String())
		sameCore(t, p, q)
	}
}

func TestWriteCSVQuotesAwkwardIDs(t *testing.T) {
	p := &model.Problem{Buffers: []model.Buffer{buf("a,b", 0, 2, 4), buf(`say "hi"`, 1, 3, 4), buf("two\nlines", 0, 1, 1)}}
	var out bytes.Buffer
	require.NoError(t, Write(&out, p, nil))
	q, err := Read(&out, "q.csv")
	require.NoError(t, err)
	assert.Equal(t, core(p), core(q))
}

func TestWriteCSVWithPlanWritesOffsetsPoolsAndGrants(t *testing.T) {
	p := &model.Problem{
		Pools: []model.Pool{{Name: "sram", Capacity: 64}, {Name: "dram"}},
		Buffers: []model.Buffer{
			{ID: "a", End: 2, Size: 8, MaxSize: 16},
			{ID: "b", Start: 1, End: 3, Size: 4, Align: 4, Pin: i64(16)},
		},
	}
	pl := &model.Plan{Placements: []model.Placement{{Offset: 0, Pool: 1, Size: 12}, {Offset: 16, Pool: 0, Size: 4}}}
	var out bytes.Buffer
	require.NoError(t, Write(&out, p, pl))
	assert.Equal(t, "id,lower,upper,size,alignment,offset,pool,granted,max_size\na,0,2,8,1,0,dram,12,16\nb,1,3,4,4,16,sram,4,4\n", out.String())

	out.Reset()
	require.NoError(t, Write(&out, p, nil))
	assert.Equal(t, "id,lower,upper,size,alignment,offset\na,0,2,8,1,-1\nb,1,3,4,4,16\n", out.String(), "pins go in the offset column")
}

// TestWriteCSVPlanCarriesAliases: a plan CSV names each alias member's
// parent and delta, so that the plan alone can be checked (viz PLAN).
func TestWriteCSVPlanCarriesAliases(t *testing.T) {
	p := &model.Problem{Buffers: []model.Buffer{
		{ID: "x", End: 3, Size: 16},
		{ID: "v,1", Start: 1, End: 3, Size: 8, Alias: &model.Alias{Parent: "x", Delta: 8}},
	}}
	pl := &model.Plan{Placements: []model.Placement{{Offset: 0, Size: 16}, {Offset: 8, Size: 8}}}
	var out bytes.Buffer
	require.NoError(t, Write(&out, p, pl))
	assert.Equal(t, "id,lower,upper,size,offset,alias,alias_delta\nx,0,3,16,0,,\n\"v,1\",1,3,8,8,x,8\n", out.String())
	out.Reset()
	require.NoError(t, Write(&out, p, nil))
	assert.Equal(t, "id,lower,upper,size\nx,0,3,16\n\"v,1\",1,3,8\n", out.String(), "a problem without a plan has no alias columns")
}

func TestWriteCSVRejectsPlansItCannotWrite(t *testing.T) {
	p := &model.Problem{Pools: []model.Pool{{Name: "sram"}, {Name: "dram"}}, Buffers: []model.Buffer{buf("a", 0, 2, 4)}}
	var out bytes.Buffer
	assert.EqualError(t, Write(&out, p, &model.Plan{Placements: []model.Placement{{Pool: 2, Size: 4}}}), `buffer "a": pool #2 does not exist`)
	assert.EqualError(t, Write(&out, p, &model.Plan{}), "the plan has 0 placements for 1 buffers")
}
