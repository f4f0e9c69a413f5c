package plan

import (
	"github.com/optalloc/optalloc/internal/problemtest"
)

// The shared test helpers (internal/problemtest) under the names these
// tests use.
var (
	buf             = problemtest.Buf
	randProblem     = problemtest.Random
	checkInputError = problemtest.CheckInputError
)

type genOptions = problemtest.Options
