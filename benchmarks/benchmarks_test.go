package benchmarks

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/formats/graph"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/verify"
)

func TestRandomDeterministicAndValid(t *testing.T) {
	for _, opt := range []RandomOptions{{}, {Buffers: 300, Horizon: 50, MaxLifetime: 5, MinSize: 1, MaxSize: 10, Align: 4}} {
		a, b := Random(7, opt), Random(7, opt)
		require.Equal(t, a, b, "same seed, same problem")
		require.NoError(t, a.Validate())
		assert.NotEqual(t, a.Buffers, Random(8, opt).Buffers)
		n := max(opt.Buffers, 100)
		require.Len(t, a.Buffers, n)
		for _, x := range a.Buffers {
			if opt.Align > 1 {
				assert.Zero(t, x.Size%opt.Align)
			}
			if opt.MaxLifetime > 0 {
				assert.LessOrEqual(t, x.End-x.Start, opt.MaxLifetime)
			}
		}
	}
}

// TestChain: the same seed gives the same chain; n ops give n tensors and a
// scratch buffer every seventh op; every tensor lives until its last
// reader, at most five ops on.
func TestChain(t *testing.T) {
	a, b := Chain(3, 700), Chain(3, 700)
	require.Equal(t, a, b)
	require.NoError(t, a.Validate())
	assert.NotEqual(t, a.Buffers, Chain(4, 700).Buffers)
	require.Len(t, a.Buffers, 700+99)
	for _, x := range a.Buffers {
		if x.Kind == model.Scratch {
			assert.Equal(t, int64(1), x.End-x.Start, x.ID)
			continue
		}
		assert.GreaterOrEqual(t, x.End-x.Start, int64(2), x.ID)
		assert.LessOrEqual(t, x.End-x.Start, int64(6), x.ID)
	}
}

// TestChainGraph: the same seed gives the same graph; it builds, most of
// its Reshapes become zero-copy views (alias members), and its Relus with
// scratch get elastic buffers.
func TestChainGraph(t *testing.T) {
	f := ChainGraph(5, 400)
	require.Equal(t, f, ChainGraph(5, 400))
	p, rep, err := graph.Build(f, "chain")
	require.NoError(t, err)
	require.NoError(t, p.Validate())
	aliases, elastic := 0, 0
	for _, b := range p.Buffers {
		if b.Alias != nil {
			aliases++
		}
		if b.Elastic() {
			elastic++
		}
	}
	// 99 Reshapes (ops 4, 8, ..., 396); the front end declines a view
	// where its rules do not allow one, but makes most of them.
	assert.Greater(t, aliases, 80)
	assert.LessOrEqual(t, aliases, 99)
	assert.Positive(t, elastic)
	assert.NotNil(t, rep)
}

// TestBranchGraph: the same seed gives the same graph, and it builds: one
// buffer per tensor plus a scratch buffer per Relu.
func TestBranchGraph(t *testing.T) {
	f := BranchGraph(2, 50)
	require.Equal(t, f, BranchGraph(2, 50))
	p, _, err := graph.Build(f, "branches")
	require.NoError(t, err)
	require.NoError(t, p.Validate())
	relus, sums := 0, 0
	for _, op := range f.Ops {
		switch op.Type {
		case "Relu":
			relus++
		case "Sum":
			sums++
			assert.GreaterOrEqual(t, len(op.Inputs), 2)
			assert.LessOrEqual(t, len(op.Inputs), 4)
		}
	}
	assert.Equal(t, 50, sums)
	assert.Len(t, p.Buffers, len(f.Tensors)+relus)
}

func TestPerfectPackingOptimumIsReached(t *testing.T) {
	for seed := uint64(0); seed < 20; seed++ {
		p, opt, offs := PerfectPacking(seed, 50, 1000, 40)
		require.NoError(t, p.Validate())
		assert.Equal(t, int64(1000), opt)
		assert.Equal(t, opt, p.ComputeSweep().MaxLive, "max-live is the height: a lower bound")
		pl := model.NewPlan(p)
		for i, o := range offs {
			pl.Placements[i].Offset = o
		}
		require.Empty(t, verify.Check(p, pl), "the cut layout is a valid plan")
		assert.Equal(t, opt, pl.Peak(p), "and it reaches the bound: optimal")
	}
}

func TestTransformerTrace(t *testing.T) {
	fwd := Transformer(TransformerOptions{Layers: 3})
	require.NoError(t, fwd.Validate())
	assert.Len(t, fwd.Buffers, 1+3*16)
	train := Transformer(TransformerOptions{Layers: 3, Backward: true})
	require.NoError(t, train.Validate())
	assert.Len(t, train.Buffers, 1+3*16+1+3*18)
	assert.Greater(t, train.ComputeSweep().MaxLive, fwd.ComputeSweep().MaxLive, "saved activations raise max-live")
	kinds := map[model.Kind]int{}
	for _, b := range train.Buffers {
		kinds[b.Kind]++
		assert.Greater(t, b.End, b.Start, b.ID)
	}
	assert.Positive(t, kinds[model.Scratch])
	assert.Positive(t, kinds[model.Activation])
	// Exact lengths, deterministic jitter.
	for _, n := range []int{1, 17, 1000, 100000} {
		p := Transformer(TransformerOptions{Buffers: n, Backward: n%2 == 0, Jitter: 0.2, Seed: 3})
		require.Len(t, p.Buffers, n)
		require.NoError(t, p.Validate())
	}
	assert.Equal(t, Transformer(TransformerOptions{Buffers: 500, Jitter: 0.3, Seed: 9}), Transformer(TransformerOptions{Buffers: 500, Jitter: 0.3, Seed: 9}))
}

// TestTransformerMillion generates the 1M-buffer trace; set OPTALLOC_LONG=1.
func TestTransformerMillion(t *testing.T) {
	if os.Getenv("OPTALLOC_LONG") == "" {
		t.Skip("set OPTALLOC_LONG=1 to generate a 1M-buffer trace")
	}
	p := Transformer(TransformerOptions{Buffers: 1_000_000, Backward: true})
	require.Len(t, p.Buffers, 1_000_000)
	require.NoError(t, p.Validate())
}
