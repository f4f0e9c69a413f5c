package solve

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package when any test leaves a goroutine running: after
// a time limit or a cancel, no engine may keep searching.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
