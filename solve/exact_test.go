package solve

import (
	"context"
	"testing"

	"github.com/optalloc/optalloc/verify"
	"github.com/stretchr/testify/require"
)

// TestPortfolioEngineDecides: the portfolio's race adapter answers fits
// with a plan within the capacity, and undecided below what it reaches.
func TestPortfolioEngineDecides(t *testing.T) {
	p := randomProblem(3, 20)
	s := &solver{p: p, opt: Options{Threads: 2, Seed: 1}}
	s.res = s.newResult()
	e := s.portfolioEngine()
	plan, answer, _, err := e.decide(context.Background(), p, 1<<40)
	require.NoError(t, err)
	require.Equal(t, fits, answer)
	require.Empty(t, verify.Check(p, plan))
	_, answer, _, err = e.decide(context.Background(), p, p.ComputeSweep().MaxLive-1)
	require.NoError(t, err)
	require.Equal(t, undecided, answer)
}
