package solve

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/verify"
)

// viewChain is n views chained in place (each buffer an alias of the one
// before it, at delta 0, live for two steps) beside one long-lived buffer
// aligned to 4096: every stage that walks alias groups meets an n-deep
// chain, and the alignment brings in the alignment bound and the SAT
// encoding's pieces.
func viewChain(n int) *model.Problem {
	p := &model.Problem{Buffers: make([]model.Buffer, 0, n+1)}
	p.Buffers = append(p.Buffers, model.Buffer{ID: "v0", Start: 0, End: 2, Size: 4096})
	for i := 1; i < n; i++ {
		p.Buffers = append(p.Buffers, model.Buffer{ID: fmt.Sprintf("v%d", i), Start: int64(i), End: int64(i + 2), Size: 4096,
			Alias: &model.Alias{Parent: fmt.Sprintf("v%d", i-1)}})
	}
	p.Buffers = append(p.Buffers, model.Buffer{ID: "long", Start: 0, End: int64(n + 1), Size: 1000, Align: 4096})
	return p
}

// TestViewChainPlansAndProves: a 20 000-deep chain of views is planned at
// its max-live and proven optimal, by Solve and by ProveBound.
func TestViewChainPlansAndProves(t *testing.T) {
	p := viewChain(20000)
	r, err := Solve(context.Background(), p, Options{Work: DefaultWork})
	require.NoError(t, err)
	require.Empty(t, verify.Check(p, r.Plan))
	require.Equal(t, Optimal, r.Status)
	require.Equal(t, int64(5096), r.Peak)
	b, err := ProveBound(context.Background(), p, Options{TimeLimit: 10 * time.Second, Threads: 1})
	require.NoError(t, err)
	require.Equal(t, int64(5096), b.LowerBound)
}

// BenchmarkViewChain100k plans and bounds a 100 000-deep chain of views
// (before the alias walks took O(n) per buffer: 584 s to plan with a 2 s
// limit, 14 s for bounds --prove; docs/reliability.md).
func BenchmarkViewChain100k(b *testing.B) {
	p := viewChain(100000)
	for b.Loop() {
		r, err := Solve(context.Background(), p, Options{TimeLimit: 30 * time.Second, Threads: 1})
		if err != nil || r.Status != Optimal {
			b.Fatalf("%v %v", err, r.Status)
		}
		if _, err := ProveBound(context.Background(), p, Options{TimeLimit: 30 * time.Second, Threads: 1}); err != nil {
			b.Fatal(err)
		}
	}
}
