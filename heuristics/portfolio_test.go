package heuristics

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/optalloc/optalloc/model"
	"github.com/stretchr/testify/require"
)

func TestPortfolioDeterministic(t *testing.T) {
	p := transformerTrace(300, 5)
	var first *model.Plan
	var firstName string
	for run := 0; run < 4; run++ {
		plan, name, err := Portfolio(context.Background(), p, PortfolioOptions{Threads: 1 + run%2, Seed: 7})
		require.NoError(t, err)
		if first == nil {
			first, firstName = plan, name
			continue
		}
		require.Equal(t, firstName, name)
		require.Equal(t, first.Placements, plan.Placements)
	}
	// the winner is no worse than any planner run alone
	for _, pl := range All() {
		if _, ok := pl.(Seeded); ok {
			continue
		}
		plan, err := pl.Plan(context.Background(), p)
		require.NoError(t, err)
		require.LessOrEqual(t, first.Peak(p), plan.Peak(p), pl.Name())
	}
}

func TestPortfolioLowerBoundTies(t *testing.T) {
	// every planner reaches max-live here: the first in the list wins
	p := bufs([3]int64{0, 2, 4}, [3]int64{1, 3, 4}, [3]int64{2, 4, 4})
	lb := p.ComputeSweep().MaxLive
	plan, name, err := Portfolio(context.Background(), p, PortfolioOptions{LowerBound: lb, Planners: []string{"freelist", "greedy-size", "strip-size"}})
	require.NoError(t, err)
	require.Equal(t, "freelist", name)
	require.Equal(t, lb, plan.Peak(p))
}

// badPlanner overlaps every buffer at offset 0.
type badPlanner struct{}

func (badPlanner) Name() string { return "bad" }
func (badPlanner) Plan(_ context.Context, p *model.Problem) (*model.Plan, error) {
	return model.NewPlan(p), nil
}

func TestPortfolioRejectsInvalidPlans(t *testing.T) {
	saved := registry
	defer func() { registry = saved }()
	Register(badPlanner{})
	p := bufs([3]int64{0, 2, 4}, [3]int64{1, 3, 4})
	_, _, err := Portfolio(context.Background(), p, PortfolioOptions{Planners: []string{"greedy-size", "bad"}})
	require.ErrorContains(t, err, "planner bad produced an invalid plan")
	_, _, err = Portfolio(context.Background(), p, PortfolioOptions{Planners: []string{"nope"}})
	require.ErrorContains(t, err, `unknown planner "nope"`)
}

func TestPortfolioCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, err := Portfolio(ctx, transformerTrace(100, 1), PortfolioOptions{})
	require.ErrorIs(t, err, context.Canceled)
}

// orderPlanner records the order in which planners start, then plans with
// greedy-size.
type orderPlanner struct {
	name    string
	started *[]string
	mu      *sync.Mutex
}

func (o orderPlanner) Name() string { return o.name }
func (o orderPlanner) Plan(ctx context.Context, p *model.Problem) (*model.Plan, error) {
	o.mu.Lock()
	*o.started = append(*o.started, o.name)
	o.mu.Unlock()
	pl, _ := ByName("greedy-size")
	return pl.Plan(ctx, p)
}

// TestPortfolioStartsInListOrder: planners take the threads in the order of
// the list (fastest first matters with a time limit), whatever order the
// scheduler runs their goroutines in.
func TestPortfolioStartsInListOrder(t *testing.T) {
	saved := registry
	defer func() { registry = saved }()
	var started []string
	var mu sync.Mutex
	var names []string
	for i := 0; i < 8; i++ {
		name := fmt.Sprint("order-", i)
		Register(orderPlanner{name: name, started: &started, mu: &mu})
		names = append(names, name)
	}
	p := bufs([3]int64{0, 2, 4}, [3]int64{1, 3, 4})
	for trial := 0; trial < 20; trial++ {
		started = started[:0]
		_, _, err := Portfolio(context.Background(), p, PortfolioOptions{Threads: 1, Planners: names})
		require.NoError(t, err)
		require.Equal(t, names, started, "trial %d", trial)
	}
}

// TestPortfolioNoSearch: NoSearch leaves the searching planners out of the
// default list (the cheap portfolio solve runs before the rounded
// problem), not out of an explicit one.
func TestPortfolioNoSearch(t *testing.T) {
	searched := 0
	for seed := range 20 {
		p := transformerTrace(60+10*seed, uint64(seed))
		_, def, err := Portfolio(context.Background(), p, PortfolioOptions{Threads: 1})
		require.NoError(t, err)
		plan, name, err := Portfolio(context.Background(), p, PortfolioOptions{Threads: 1, NoSearch: true})
		require.NoError(t, err)
		require.NotNil(t, plan)
		require.NotContains(t, Searching, name, "seed %d", seed)
		if slices.Contains(Searching, def) {
			searched++
		}
	}
	require.Positive(t, searched, "a searching planner wins some default portfolio")
	p := transformerTrace(100, 1)
	_, name, err := Portfolio(context.Background(), p, PortfolioOptions{Threads: 1, NoSearch: true, Planners: []string{"lns"}})
	require.NoError(t, err)
	require.Equal(t, "lns", name)
}

// TestSearchStopsAtTheBound: with a bound (Portfolio's LowerBound) the
// hill climb stops once its plan reaches it, as at max-live: with a bound
// above its starting plans it returns the best of them, no search.
func TestSearchStopsAtTheBound(t *testing.T) {
	searched := 0
	for seed := range 5 {
		p := transformerTrace(200, uint64(seed))
		in, err := newInstance(context.Background(), p)
		require.NoError(t, err)
		want, err := (&HillClimb{Iterations: -1, NoSkyline: true}).plan(context.Background(), in.its)
		require.NoError(t, err)
		got, err := (&HillClimb{}).plan(withStopAt(context.Background(), 1<<50), in.its)
		require.NoError(t, err)
		require.Equal(t, want, got, "seed %d", seed)
		full, err := (&HillClimb{}).plan(context.Background(), in.its)
		require.NoError(t, err)
		if !slices.Equal(want, full) {
			searched++ // without the bound it searched on
		}
	}
	require.Positive(t, searched)
}
