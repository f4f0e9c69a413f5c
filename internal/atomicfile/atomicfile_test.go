package atomicfile

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name  string
		setup func(path string)
		mode  os.FileMode
	}{
		{"new file", func(string) {}, NewFileMode()},
		{"existing file keeps its mode", func(p string) { require.NoError(t, os.WriteFile(p, []byte("old"), 0o600)) }, 0o600},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, tc.name)
			tc.setup(p)
			require.NoError(t, Write(p, []byte("new")))
			data, err := os.ReadFile(p)
			require.NoError(t, err)
			assert.Equal(t, "new", string(data))
			fi, err := os.Stat(p)
			require.NoError(t, err)
			assert.Equal(t, tc.mode, fi.Mode().Perm())
		})
	}

	target := filepath.Join(dir, "target")
	require.NoError(t, os.WriteFile(target, []byte("old"), 0o644))
	link := filepath.Join(dir, "link")
	require.NoError(t, os.Symlink("target", link))
	require.NoError(t, Write(link, []byte("through")))
	fi, err := os.Lstat(link)
	require.NoError(t, err)
	assert.NotZero(t, fi.Mode()&os.ModeSymlink, "the link stays a link")
	data, err := os.ReadFile(target)
	require.NoError(t, err)
	assert.Equal(t, "through", string(data))

	assert.ErrorContains(t, Write(dir, []byte("x")), "not a regular file")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		assert.NotContains(t, e.Name(), ".tmp-", "no temporary file left")
	}
}
