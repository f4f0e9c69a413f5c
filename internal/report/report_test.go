package report

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCommandLine(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "go run ./x"},
		{[]string{"-n", "3"}, "go run ./x -n 3"},
		{[]string{"-note", "idle machine"}, "go run ./x -note 'idle machine'"},
		{[]string{"it's"}, `go run ./x 'it'\''s'`},
		{[]string{""}, "go run ./x ''"},
	} {
		assert.Equal(t, tc.want, CommandLine("go run ./x", tc.args))
	}
}

// TestWrite: between the markers of a README, or a whole file; a README
// without the markers is left as it was.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	readme := filepath.Join(dir, "README.md")
	require.NoError(t, os.WriteFile(readme, []byte("a\n<!-- b -->\nold\n<!-- e -->\nz\n"), 0o644))
	require.NoError(t, Write([]byte("new\n"), "-", readme, "<!-- b -->", "<!-- e -->"))
	got, err := os.ReadFile(readme)
	require.NoError(t, err)
	assert.Equal(t, "a\n<!-- b -->\nnew\n<!-- e -->\nz\n", string(got))

	bare := filepath.Join(dir, "bare.md")
	require.NoError(t, os.WriteFile(bare, []byte("no markers\n"), 0o644))
	require.Error(t, Write([]byte("x"), "-", bare, "<!-- b -->", "<!-- e -->"))
	got, err = os.ReadFile(bare)
	require.NoError(t, err)
	assert.Equal(t, "no markers\n", string(got))

	out := filepath.Join(dir, "out.md")
	require.NoError(t, Write([]byte("table\n"), out, "", "<!-- b -->", "<!-- e -->"))
	got, err = os.ReadFile(out)
	require.NoError(t, err)
	assert.Equal(t, "table\n", string(got))
}
