package main

import (
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
