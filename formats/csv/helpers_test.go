package csv

import (
	"github.com/optalloc/optalloc/internal/problemtest"
)

// The shared test helpers (internal/problemtest) under the names these
// tests use.
var (
	i64             = problemtest.I64
	buf             = problemtest.Buf
	randProblem     = problemtest.Random
	checkInputError = problemtest.CheckInputError
	checkProblem    = problemtest.CheckProblem
	sameCore        = problemtest.SameCore
)

type genOptions = problemtest.Options
