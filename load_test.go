package optalloc

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/model"
)

// TestLoadBytesSniffsAsStdinDoes: data in memory is read as standard input
// is, by content, and a TFLite model keeps its runtime.
func TestLoadBytesSniffsAsStdinDoes(t *testing.T) {
	csvData, err := os.ReadFile("examples/tiny-cnn.csv")
	require.NoError(t, err)
	graphData, err := os.ReadFile("examples/resnet18.graph.json")
	require.NoError(t, err)
	tfl, err := os.ReadFile("examples/cellnet.tflite")
	require.NoError(t, err)
	for _, tc := range []struct {
		name    string
		data    []byte
		buffers int
		tflite  bool
	}{
		{"csv", csvData, 12, false},
		{"model graph", graphData, 109, false},
		{"tflite", tfl, 153, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in, err := LoadBytes(tc.name, tc.data, LoadOptions{})
			require.NoError(t, err)
			assert.Len(t, in.Problem.Buffers, tc.buffers)
			m, _ := in.TFLite()
			assert.Equal(t, tc.tflite, m != nil)
			// "-" reads the same from Stdin, named "-".
			in2, err := Load("-", LoadOptions{Stdin: bytes.NewReader(tc.data)})
			require.NoError(t, err)
			assert.Equal(t, "-", in2.Name)
			assert.Equal(t, in.Problem.Buffers, in2.Problem.Buffers)
		})
	}
	_, err = LoadBytes("x.csv", csvData, LoadOptions{ScratchList: "list.csv"})
	var ie *model.InputError
	require.ErrorAs(t, err, &ie)
	assert.Contains(t, err.Error(), "is not a TFLite model")
}

// TestOnlineFollowsTheProblem: the runtime's buffers are known while the
// problem is the arena; a problem with other buffers or several pools has
// none (it is no longer what the runtime places around).
func TestOnlineFollowsTheProblem(t *testing.T) {
	p := &model.Problem{Buffers: []model.Buffer{{ID: "t", Start: 0, End: 2, Size: 16}, {ID: "s", Start: 0, End: 1, Size: 16, Kind: model.Scratch}}}
	in := NewInput("p", p, []bool{false, true})
	assert.Equal(t, []bool{false, true}, in.Online())
	q := *p
	q.Buffers = q.Buffers[:1]
	assert.Nil(t, in.WithProblem(&q).Online())
	r := *p
	r.Pools = []model.Pool{{Name: "a"}, {Name: "b", Rank: 1}}
	assert.Nil(t, in.WithProblem(&r).Online())
	assert.Nil(t, NewInput("p", p, nil).Online())
}

// FuzzLoadBytes: whatever the bytes, LoadBytes returns an input or one
// line of bad input, never a reader's panic turned into "a bug".
func FuzzLoadBytes(f *testing.F) {
	for _, path := range []string{"examples/tiny-cnn.csv", "examples/resnet18.graph.json", "examples/cellnet.tflite"} {
		if data, err := os.ReadFile(path); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("{}"))
	f.Add([]byte("\x08\x07\x12\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		in, err := LoadBytes("fuzz", data, LoadOptions{})
		if err != nil {
			assert.NotContains(t, err.Error(), "a bug in optalloc")
			var ie *model.InputError
			if !errors.As(err, &ie) {
				assert.False(t, strings.Contains(err.Error(), "\n"), "not one line: %q", err)
			}
			return
		}
		require.NotNil(t, in.Problem)
	})
}
