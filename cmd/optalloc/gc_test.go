package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLessGarbage: reading a problem of more than hugeGC buffers sets the
// garbage collector's target to 50 unless GOGC is set; a small one leaves
// it.
func TestLessGarbage(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, n int) string {
		var sb strings.Builder
		sb.WriteString("id,lower,upper,size\n")
		for i := range n {
			fmt.Fprintf(&sb, "b%d,%d,%d,8\n", i, i, i+2)
		}
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte(sb.String()), 0o644))
		return path
	}
	small, huge := write("small.csv", 100), write("huge.csv", hugeGC+1)
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	for _, tc := range []struct {
		gogc, path string
		want       int
	}{{"", small, 100}, {"", huge, 50}, {"200", huge, 100}} {
		t.Setenv("GOGC", tc.gogc)
		debug.SetGCPercent(100)
		_, err := loadProblem(&env{}, tc.path)
		require.NoError(t, err)
		assert.Equal(t, tc.want, debug.SetGCPercent(100), "GOGC=%q %s", tc.gogc, filepath.Base(tc.path))
	}
}
