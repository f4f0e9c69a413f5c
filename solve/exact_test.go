package solve

import (
	"context"
	"testing"

	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/verify"
	"github.com/stretchr/testify/require"
)

// TestSparselyAligned: the SAT engine's larger budget and galloping descent
// apply when at least a third of the buffers have an alignment of at least
// 8 units of the grid, on a single pool.
func TestSparselyAligned(t *testing.T) {
	buf := func(size, align int64) model.Buffer {
		return model.Buffer{ID: "b", Start: 0, End: 1, Size: size, Align: align}
	}
	for _, c := range []struct {
		name  string
		bufs  []model.Buffer
		pools []model.Pool
		want  bool
	}{
		{"one of three at 8g", []model.Buffer{buf(1024, 8192), buf(1024, 1), buf(2048, 1)}, nil, true},
		{"one of four at 8g", []model.Buffer{buf(1024, 8192), buf(1024, 1), buf(2048, 1), buf(3072, 1)}, nil, false},
		{"alignment 4g", []model.Buffer{buf(1024, 4096), buf(1024, 4096), buf(2048, 1)}, nil, false},
		{"pool alignment 8g", []model.Buffer{buf(1024, 1), buf(2048, 1)}, []model.Pool{{Name: "m", Align: 8192}}, true},
		{"two pools", []model.Buffer{buf(1024, 8192), buf(1024, 8192)}, []model.Pool{{Name: "a"}, {Name: "b"}}, false},
		{"no buffers", nil, nil, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.want, sparselyAligned(&model.Problem{Buffers: c.bufs, Pools: c.pools}))
		})
	}
}

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
