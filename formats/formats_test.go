package formats

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/optalloc/optalloc/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
	Register(".test-graph.json", func(r io.Reader, name string) (*model.Problem, error) {
		return &model.Problem{Name: name + "#graph", Buffers: []model.Buffer{{ID: "g", Start: 0, End: 1, Size: 1}}}, nil
	})
	graphPath := filepath.Join(dir, "net.Test-Graph.json")
	require.NoError(t, os.WriteFile(graphPath, []byte("{}"), 0o644))
	p, err := Load(graphPath)
	require.NoError(t, err)
	assert.Equal(t, graphPath+"#graph", p.Name)
}

// core is each buffer's id, start, end and size (as in formats/csv's tests).
func core(p *model.Problem) [][4]any {
	out := make([][4]any, len(p.Buffers))
	for i, b := range p.Buffers {
		out[i] = [4]any{b.ID, b.Start, b.End, b.Size}
	}
	return out
}
