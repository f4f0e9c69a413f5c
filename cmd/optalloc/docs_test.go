package main

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReadmeGetsANewcomerStarted (issue 35 item 5): the docs call the
// optalloc binary about forty times; the README says how to get it, and
// that the first build and test run download modules.
func TestReadmeGetsANewcomerStarted(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	assert.Contains(t, string(readme), "go install ./cmd/optalloc")
	assert.Contains(t, string(readme), "$(go env GOPATH)/bin/optalloc")
	assert.Contains(t, string(readme), "downloads the modules")
}
