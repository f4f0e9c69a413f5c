package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
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

// TestVerifyPlanOfAnotherProblem (issue 35 item 10): a plan made for a
// problem with the same ids but other lifetimes and sizes gave a violation
// per buffer; verify says it is a plan for a different problem instead.
func TestVerifyPlanOfAnotherProblem(t *testing.T) {
	dir := t.TempDir()
	var a, b strings.Builder
	a.WriteString("id,lower,upper,size\n")
	b.WriteString("id,lower,upper,size\n")
	for i := range 10 {
		fmt.Fprintf(&a, "x%d,%d,%d,%d\n", i, i, i+2, 16*(i+1))
		fmt.Fprintf(&b, "x%d,%d,%d,%d\n", i, i, i+3, 16*(10-i))
	}
	pa, pb, plan := filepath.Join(dir, "a.csv"), filepath.Join(dir, "b.csv"), filepath.Join(dir, "b.plan.csv")
	require.NoError(t, os.WriteFile(pa, []byte(a.String()), 0o644))
	require.NoError(t, os.WriteFile(pb, []byte(b.String()), 0o644))
	code, _, stderr := cli(t, "", "plan", pb, "-o", plan)
	require.Equal(t, 0, code, stderr)
	code, stdout, stderr := cli(t, "", "verify", pa, plan)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "is a plan for a different problem: of the 10 buffers of "+pa+", 0 are not in it and 10 have another lifetime or size")
	assert.NotContains(t, stdout, "overlap")
	code, stdout, _ = cli(t, "", "verify", pa, plan, "--json")
	assert.Equal(t, 1, code)
	assert.Contains(t, stdout, `"reason": "`)
	code, stdout, stderr = cli(t, "", "verify", pb, plan)
	assert.Equal(t, 0, code, stdout+stderr)
	assert.NotContains(t, stderr, "note:")
}
