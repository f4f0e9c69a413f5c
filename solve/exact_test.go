package solve

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/exact/bnb"
	"github.com/optalloc/optalloc/exact/sat"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/verify"
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

// TestSATWhole: the coarse restrictions are skipped only where SAT takes
// the whole problem under the height: sparsely aligned, SAT on, no budget
// of the caller's, and an encoding within budget (a byte grid and a 4 MB
// axis is not).
func TestSATWhole(t *testing.T) {
	small := []model.Buffer{
		{ID: "a", Start: 0, End: 2, Size: 1024, Align: 8192},
		{ID: "b", Start: 1, End: 3, Size: 1024, Align: 8192},
		{ID: "c", Start: 0, End: 3, Size: 2048},
	}
	huge := []model.Buffer{
		{ID: "a", Start: 0, End: 2, Size: 8, Align: 64},
		{ID: "b", Start: 1, End: 3, Size: 8, Align: 64},
		{ID: "c", Start: 0, End: 3, Size: 4_000_001},
		{ID: "d", Start: 2, End: 3, Size: 3}, // about 4 M offsets
	}
	for _, c := range []struct {
		name   string
		bufs   []model.Buffer
		opt    Options
		height int64
		want   bool
	}{
		{"sparsely aligned, small", small, Options{Method: "auto"}, 8192, true},
		{"no SAT", small, Options{Method: "auto", NoSAT: true}, 8192, false},
		{"branch-and-bound only", small, Options{Method: "bnb"}, 8192, false},
		{"SAT only", small, Options{Method: "sat"}, 8192, true},
		{"a budget of the caller's", small, Options{Method: "auto", SAT: sat.Options{MaxClauses: 1 << 20}}, 8192, false},
		{"no height", small, Options{Method: "auto"}, 0, false},
		{"over budget", huge, Options{Method: "auto"}, 4_000_020, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := &model.Problem{Buffers: c.bufs}
			require.True(t, sparselyAligned(p))
			s := &solver{p: p, opt: c.opt}
			require.Equal(t, c.want, s.satWhole(context.Background(), c.height))
		})
	}
}

// TestRaceEngines: which engines race. The coarse restrictions join a
// decision only where SAT does not take the whole problem; the window
// bounds join a race on a sparsely aligned problem, with the
// branch-and-bound (which minimises the windows), deciding only a capacity
// at most 5% above the bound (4096 here); the branch-and-bound stays out
// of a minimisation that SAT takes whole.
func TestRaceEngines(t *testing.T) {
	aligned := &model.Problem{Buffers: []model.Buffer{
		{ID: "a", Start: 0, End: 2, Size: 1024, Align: 8192},
		{ID: "b", Start: 1, End: 3, Size: 1024, Align: 8192},
		{ID: "c", Start: 0, End: 3, Size: 2048},
	}}
	require.NotEmpty(t, coarseLevels(aligned))
	for _, c := range []struct {
		name     string
		opt      Options
		capacity int64
		want     []string
	}{
		{"decision", Options{Method: "auto", Threads: 2}, 4300, []string{"bnb", "sat", "heuristic", "window"}},
		{"decision far above the bound", Options{Method: "auto", Threads: 2}, 8192, []string{"bnb", "sat", "heuristic"}},
		{"decision without SAT", Options{Method: "auto", Threads: 2, NoSAT: true}, 4300, []string{"bnb", "heuristic", "coarse", "window"}},
		{"decision without the branch-and-bound", Options{Method: "auto", Threads: 2, NoBnB: true}, 4300, []string{"sat", "heuristic"}},
		{"minimisation", Options{Method: "auto", Threads: 2}, 0, []string{"bnb", "sat", "window"}},
		{"minimisation from a plan", Options{Method: "auto", Threads: 2}, -1, []string{"sat", "window"}},
		{"minimisation from a plan without SAT", Options{Method: "auto", Threads: 2, NoSAT: true}, -1, []string{"bnb", "window"}},
		{"one thread", Options{Method: "auto", Threads: 1}, 8192, []string{"bnb", "sat"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := &solver{p: aligned, opt: c.opt}
			s.res = s.newResult()
			s.res.LowerBound = 4096
			capacity := c.capacity
			if capacity < 0 { // minimising from a plan
				r, err := Solve(context.Background(), aligned, Options{Method: "greedy-size"})
				require.NoError(t, err)
				s.res.Plan, s.res.Peak, capacity = r.Plan, r.Peak, 0
			}
			var names []string
			var satDelay time.Duration
			for _, e := range s.raceEngines(context.Background(), &race{s: s}, capacity) {
				names = append(names, e.name)
				if e.name == "sat" {
					satDelay = e.delay
				}
			}
			require.Equal(t, c.want, names)
			if slices.Contains(names, "sat") {
				// SAT waits for the branch-and-bound only when it races.
				want := time.Duration(0)
				if slices.Contains(names, "bnb") {
					want = satRaceDelay
				}
				require.Equal(t, want, satDelay)
			}
		})
	}
}

// TestRaceReportsBestOverCapacity: when no plan fits, the result reports
// the lowest plan above the capacity that an engine returned undecided.
func TestRaceReportsBestOverCapacity(t *testing.T) {
	free := randomProblem(5, 20)
	g, err := Solve(context.Background(), free, Options{Method: "greedy-size"})
	require.NoError(t, err)
	p := *free
	c := g.Peak - 1
	p.Pools = []model.Pool{{Name: model.DefaultPool, Capacity: c}}
	s := &solver{p: &p, opt: Options{Threads: 2}}
	s.res = s.newResult()
	r := &race{s: s, cancel: func() {}}
	r.run(context.Background(), engine{name: "fake", decide: func(context.Context, *model.Problem, int64) (*model.Plan, outcome, any, error) {
		return g.Plan, undecided, nil, nil
	}}, c)
	s.finish()
	require.Nil(t, s.res.Plan)
	require.Equal(t, Unknown, s.res.Status)
	require.Equal(t, g.Peak, s.res.Peak)
	require.Contains(t, s.res.Reason, "above the capacity")
}

// TestPortfolioEngineDecides: the portfolio's race adapter answers fits
// with a plan within the capacity, and undecided below what it reaches.
func TestPortfolioEngineDecides(t *testing.T) {
	p := randomProblem(3, 20)
	s := &solver{p: p, opt: Options{Threads: 2, Seed: 1}}
	s.res = s.newResult()
	e := s.portfolioEngine(context.Background())
	plan, answer, _, err := e.decide(context.Background(), p, 1<<40)
	require.NoError(t, err)
	require.Equal(t, fits, answer)
	require.Empty(t, verify.Check(p, plan))
	c := p.ComputeSweep().MaxLive - 1
	plan, answer, _, err = e.decide(context.Background(), p, c)
	require.NoError(t, err)
	require.Equal(t, undecided, answer)
	require.NotNil(t, plan, "the plan above the capacity is returned, to be reported as the best found")
	require.Greater(t, plan.Peak(p), c)
	require.Empty(t, verify.Check(p, plan))
}

// TestExactTakes: the heuristics get the whole time only when no engine of
// the race would take the problem on (each engine's own budget check).
func TestExactTakes(t *testing.T) {
	p := randomProblem(8, 30)
	noPairs := bnb.Options{MaxPairs: 1}
	noVars := sat.Options{MaxVars: 1}
	cases := []struct {
		name string
		opt  Options
		want bool
	}{
		{"both engines", Options{Method: "auto"}, true},
		{"branch-and-bound only", Options{Method: "auto", SAT: noVars}, true},
		{"SAT only", Options{Method: "auto", BnB: noPairs}, true},
		{"both over budget", Options{Method: "auto", BnB: noPairs, SAT: noVars}, false},
		{"SAT left out, branch-and-bound over budget", Options{Method: "auto", NoSAT: true, BnB: noPairs}, false},
		{"branch-and-bound left out, SAT over budget", Options{Method: "auto", NoBnB: true, SAT: noVars}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := &solver{p: p, opt: tc.opt}
			s.res = s.newResult()
			require.NoError(t, s.startBound(context.Background()))
			require.Equal(t, tc.want, s.exactTakes(context.Background()))
		})
	}
}

// TestDelayedEngineStartsWhenAlone: once every engine without a delay has
// returned (race.alone closed), a delayed engine starts at once instead of
// waiting out its delay.
func TestDelayedEngineStartsWhenAlone(t *testing.T) {
	p := randomProblem(9, 10)
	s := &solver{p: p, opt: Options{Threads: 2}}
	s.res = s.newResult()
	r := &race{s: s, cancel: func() {}, alone: make(chan struct{})}
	close(r.alone)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ran := false
	r.run(ctx, engine{name: "late", delay: time.Hour, minimise: func(context.Context, *model.Problem, *model.Plan, int64, func(*model.Plan)) (int64, any, error) {
		ran = true
		return 0, nil, nil
	}}, 0)
	require.True(t, ran, "the delayed engine ran before the context ended")
}
