package formats

import (
	"strings"
	"testing"

	"github.com/optalloc/optalloc/formats/csv"
	"github.com/optalloc/optalloc/formats/jsonfmt"
	"github.com/optalloc/optalloc/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Inputs the readers used to accept silently, each now one clear error.
func TestReadersRejectSilentlyLossyInput(t *testing.T) {
	big := strings.Repeat("9", 5<<20)
	for _, tc := range []struct {
		name, text, want string
		line             int
		csv              bool
	}{
		{"json missing size", `{"buffers": [{"id": "a", "start": 0, "end": 2}]}`, `buffer "a": missing field "size"`, 1, false},
		{"json missing start", "{\"buffers\": [\n{\"id\": \"a\", \"end\": 2, \"size\": 4}]}", `buffer "a": missing field "start"`, 2, false},
		{"json missing end", `{"buffers": [{"id": "a", "start": 0, "size": 4}]}`, `missing field "end"`, 1, false},
		{"json missing id", `{"buffers": [{"start": 0, "end": 2, "size": 4}]}`, `buffer 1: missing field "id"`, 1, false},
		{"json duplicate key", "{\"buffers\": [\n{\"id\": \"a\", \"start\": 0, \"end\": 2, \"size\": 4, \"size\": 8}]}", `duplicate key "size"`, 2, false},
		{"json duplicate top-level key", `{"buffers": [{"id": "a", "start": 0, "end": 2, "size": 4}], "buffers": [{"id": "b", "start": 0, "end": 2, "size": 4}]}`, `duplicate key "buffers"`, 1, false},
		{"json duplicate key in alias", `{"buffers": [{"id": "a", "start": 0, "end": 2, "size": 4}, {"id": "b", "start": 0, "end": 2, "size": 4, "alias": {"parent": "a", "parent": "b"}}]}`, `duplicate key "parent"`, 1, false},
		{"json duplicate key in pool", `{"pools": [{"name": "x", "name": "y"}], "buffers": [{"id": "a", "start": 0, "end": 2, "size": 4}]}`, `duplicate key "name"`, 1, false},
		{"json pool missing name", `{"pools": [{"capacity": 5}], "buffers": [{"id": "a", "start": 0, "end": 2, "size": 4}]}`, `missing field "name"`, 1, false},
		{"json alias missing parent", `{"buffers": [{"id": "a", "start": 0, "end": 2, "size": 4, "alias": {"delta": 0}}]}`, `missing field "parent"`, 1, false},
		{"json pools of the wrong type", `{"pools": ["x"], "buffers": [{"id": "a", "start": 0, "end": 2, "size": 4}]}`, `pool 1: expected an object, got JSON string`, 1, false},
		{"json huge number", `{"buffers": [{"id": "a", "start": 0, "end": 2, "size": ` + big + `}]}`, `bytes)`, 1, false},
		{"csv extra field", "id,lower,upper,size\na,0,2,4\nb,0,2,4,7\n", "4 fields in the header, 5 on this row", 3, true},
		{"csv trailing comma", "id,lower,upper,size\na,0,2,4,\n", "4 fields in the header, 5 on this row", 2, true},
		{"csv latin-1 id", "id,lower,upper,size\ncaf\xe9,0,2,4\n", "not valid UTF-8", 2, true},
		{"csv huge number", "id,lower,upper,size\na,0,2," + big + "\n", "bytes)", 2, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			if tc.csv {
				_, err = csv.Read(strings.NewReader(tc.text), "in.csv")
			} else {
				_, err = jsonfmt.Read(strings.NewReader(tc.text), "in.json")
			}
			require.Error(t, err)
			var ie *model.InputError
			require.ErrorAs(t, err, &ie)
			assert.Contains(t, ie.Msg, tc.want)
			assert.Equal(t, tc.line, ie.Line, ie.Error())
			assert.Less(t, len(err.Error()), 400, "the message is short")
			assert.NotContains(t, err.Error(), "model.", "no Go type names")
		})
	}
}

func TestCSVHeaderTypoIsFine(t *testing.T) {
	// Fewer fields than the header are fine when only optional columns are
	// missing, as before.
	p, err := csv.Read(strings.NewReader("id,lower,upper,size,hint\na,0,2,4\n"), "in.csv")
	require.NoError(t, err)
	assert.Nil(t, p.Buffers[0].Hint)
}

func TestInputErrorStaysOneShortLine(t *testing.T) {
	e := &model.InputError{File: "f", Line: 3, Msg: strings.Repeat("x", 1<<20)}
	assert.Less(t, len(e.Error()), 500)
	assert.Contains(t, e.Error(), "bytes cut")
	_, err := jsonfmt.DecodePlan([]byte(`{"placements": [{"id": "a", "offset": "0"}]}`), "p.json")
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "Go")
	assert.NotContains(t, err.Error(), "model.")
	_, err = jsonfmt.DecodePlan([]byte(`{"peak": 1, "peak": 2, "placements": []}`), "p.json")
	assert.ErrorContains(t, err, `duplicate key "peak"`)
}
