package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Issue 42 (hostile round 4): the CLI's cases.

// TestScratchListIsAnInput: the list given to --scratch is an input, so
// an output naming it (plan -o, check --write-baseline) is refused with
// exit 2 and the list is left as it was (before, both replaced it, exit 0).
func TestScratchListIsAnInput(t *testing.T) {
	in := needTFLite(t, "keyword_scrambled_8bit.tflite")
	dir := t.TempDir()
	list := filepath.Join(dir, "list.csv")
	want := []byte("id,lower,upper,size\n")
	require.NoError(t, os.WriteFile(list, want, 0o644))
	link := filepath.Join(dir, "link.csv")
	require.NoError(t, os.Symlink("list.csv", link))
	tests := []struct {
		name string
		args []string
	}{
		{"plan -o", []string{"plan", in, "--scratch", list, "-o", list}},
		{"plan -o a link", []string{"plan", in, "--scratch", list, "-o", link}},
		{"check --write-baseline", []string{"check", in, "--scratch", list, "--write-baseline", list}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := cli(t, "", tc.args...)
			assert.Equal(t, 2, code, stderr)
			assert.Contains(t, stderr, "is the input")
			got, err := os.ReadFile(list)
			require.NoError(t, err)
			assert.Equal(t, want, got)
		})
	}
}
