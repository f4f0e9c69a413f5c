package bounds

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package when any test leaves a goroutine running: after
// a time limit or a cancel, no prover may keep searching.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
