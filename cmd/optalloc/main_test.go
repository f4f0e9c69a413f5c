package main

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

// cliChildEnv, when set to 1, makes the test binary run the CLI with its
// arguments instead of the tests: timelimit_test.go runs runs that may hang
// (known bugs) in a child process it can kill.
const cliChildEnv = "OPTALLOC_TEST_CLI_CHILD"

// TestMain fails the package when any test leaves a goroutine running: after
// a time limit, a cancel or an error, no engine, planner or progress display
// may keep running. Tests that stop a solve early (timelimit_test.go) also
// check after each subtest with goleak.VerifyNone.
func TestMain(m *testing.M) {
	if os.Getenv(cliChildEnv) == "1" {
		main() // with main's signal handling and start time
		return
	}
	goleak.VerifyTestMain(m)
}
