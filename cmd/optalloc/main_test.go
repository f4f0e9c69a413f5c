package main

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package when any test leaves a goroutine running: after
// a time limit, a cancel or an error, no engine, planner or progress display
// may keep running. Tests that stop a solve early (timelimit_test.go) also
// check after each subtest with goleak.VerifyNone.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// knownBug skips a test that reproduces a bug not fixed yet, so that CI stays
// green; OPTALLOC_SHOW_BUGS=1 runs it (and shows the failure) instead.
func knownBug(t *testing.T, what string) {
	t.Helper()
	if os.Getenv("OPTALLOC_SHOW_BUGS") == "" {
		t.Skip("BUG: " + what)
	}
	t.Log("known bug (OPTALLOC_SHOW_BUGS set, running): " + what)
}
