package heuristics

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/verify"
	"github.com/stretchr/testify/require"
)

// randomProblem builds a valid random instance with alignments, pins (laid
// out so that they never collide), alias chains with deltas (members with
// gaps too), gaps (absent and partial windows), elastic scratch and,
// sometimes, two pools.
func randomProblem(r *rand.Rand, n int) *model.Problem {
	p := &model.Problem{Name: "random"}
	twoPools := r.IntN(4) == 0
	if twoPools {
		p.Pools = []model.Pool{{Name: "fast", Align: int64(1 + r.IntN(2)*3), Rank: 0}, {Name: "slow", Rank: 1}}
	}
	var pinTop int64
	hasChild := map[int]bool{}
	for i := 0; i < n; i++ {
		s := int64(r.IntN(20))
		b := model.Buffer{ID: fmt.Sprint("b", i), Start: s, End: s + 1 + int64(r.IntN(8)), Size: int64(r.IntN(40))}
		if r.IntN(3) == 0 {
			b.Align = []int64{2, 4, 8, 16}[r.IntN(4)]
		}
		if twoPools && r.IntN(3) == 0 {
			b.Pools = []string{[]string{"fast", "slow"}[r.IntN(2)]}
		}
		switch x := r.IntN(12); {
		case x == 0 && !twoPools:
			pin := alignUp(pinTop, b.Alignment())
			b.Pin = &pin
			pinTop = pin + b.Size
		case x == 1 && i > 0:
			// one child per parent: the group is a chain, so members
			// that share bytes are always ancestor and descendant
			pi := r.IntN(i)
			par := &p.Buffers[pi]
			if !hasChild[pi] && !par.Elastic() && par.Size > 0 {
				hasChild[pi] = true
				b.Align = 0
				b.Pools = par.Pools
				b.Size = int64(r.IntN(int(par.Size) + 1))
				d := int64(r.IntN(int(par.Size-b.Size) + 1))
				if twoPools {
					d -= d % 4 // the fast pool may align to 4
				} else if par.Alignment() == 1 && par.Alias == nil && par.Pin == nil && r.IntN(2) == 0 {
					// an odd delta with an aligned child: the root must
					// sit at a non-zero phase
					b.Align = []int64{2, 4}[r.IntN(2)]
				}
				b.Alias = &model.Alias{Parent: par.ID, Delta: d}
				if b.End-b.Start >= 3 && r.IntN(3) == 0 {
					// a gapped member: the group's footprint has holes
					b.Gaps = []model.Gap{{Start: b.Start + 1, End: b.Start + 2, Window: b.Size > 1, Lo: 0, Hi: b.Size / 2}}
				}
			}
		case x == 2:
			b.Kind = model.Scratch
			b.MaxSize = b.Size + int64(r.IntN(30))
		case x == 3 && b.End-b.Start >= 3:
			b.Gaps = []model.Gap{{Start: b.Start + 1, End: b.Start + 2}}
			if b.Size > 2 && r.IntN(2) == 0 {
				b.Gaps[0].Window, b.Gaps[0].Lo, b.Gaps[0].Hi = true, 1, b.Size-1
			}
		}
		p.Buffers = append(p.Buffers, b)
	}
	return p
}

// TestPropertyEveryPlannerIsValid runs every planner, the portfolio and the
// scratch pass on random instances; every plan must pass verify.Check and
// the test's own brute-force checker, and never go below max-live.
func TestPropertyEveryPlannerIsValid(t *testing.T) {
	r := rand.New(rand.NewPCG(42, 1))
	instances := 1200
	if testing.Short() {
		instances = 200
	}
	for it := 0; it < instances; it++ {
		p := randomProblem(r, 2+r.IntN(22))
		require.NoError(t, p.Validate())
		ml := p.ComputeSweep().MaxLive
		for _, pl := range All() {
			switch pl.(type) { // keep the test fast
			case *HillClimb:
				pl = &HillClimb{Seed: int64(it), Iterations: 100}
			case *LNS:
				pl = &LNS{Seed: int64(it), Iterations: 100}
			case *SkylineRandom:
				pl = &SkylineRandom{Seed: int64(it), Restarts: 20}
			}
			plan, err := pl.Plan(context.Background(), p)
			require.NoError(t, err, "%s on instance %d", pl.Name(), it)
			require.Empty(t, verify.Check(p, plan), "%s on instance %d", pl.Name(), it)
			require.NoError(t, checkPlan(p, plan), "%s on instance %d", pl.Name(), it)
			if len(p.Pools) == 0 {
				require.GreaterOrEqual(t, plan.Peak(p), ml, pl.Name())
			}
			if pl.Name() == "greedy-size" || pl.Name() == "freelist" {
				for _, opt := range []ScratchOptions{{}, {Top: true}, {NoElastic: true}} {
					got, err := FillScratch(p, plan, opt)
					require.NoError(t, err)
					require.Empty(t, verify.Check(p, got), "scratch pass %+v after %s on instance %d", opt, pl.Name(), it)
				}
			}
		}
		if it%10 == 0 {
			plan, name, err := Portfolio(context.Background(), p, PortfolioOptions{Threads: 2, Seed: int64(it)})
			require.NoError(t, err)
			require.NotEmpty(t, name)
			require.Empty(t, verify.Check(p, plan))
		}
	}
}

// TestPropertyFreeListTiers: with a bounded fast pool and an unbounded slow
// one, the free-list planner's plans are valid (capacity included) and
// keep the fast pool within its capacity.
func TestPropertyFreeListTiers(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 9))
	for it := 0; it < 400; it++ {
		p := randomProblem(r, 2+r.IntN(30))
		if len(p.Pools) == 0 {
			continue
		}
		p.Pools[0].Capacity = int64(8 + r.IntN(60))
		for i := range p.Buffers {
			if b := &p.Buffers[i]; len(b.Pools) == 1 && b.Pools[0] == "fast" {
				b.Pools = []string{"fast", "slow"}
			}
		}
		require.NoError(t, p.Validate())
		plan, err := (&FreeList{}).Plan(context.Background(), p)
		require.NoError(t, err)
		require.Empty(t, verify.Check(p, plan), "instance %d", it)
		require.LessOrEqual(t, plan.PoolPeaks(p)[0], p.Pools[0].Capacity)
	}
}

// TestEdgeCases: empty problems, zero-size buffers and invalid input give a
// plan or an error naming the buffer, never a panic.
func TestEdgeCases(t *testing.T) {
	empty := &model.Problem{}
	zero := bufs([3]int64{0, 1, 0}, [3]int64{0, 2, 0})
	bad := bufs([3]int64{3, 1, 5})
	for _, pl := range All() {
		for _, p := range []*model.Problem{empty, zero} {
			plan, err := pl.Plan(context.Background(), p)
			require.NoError(t, err, pl.Name())
			require.Empty(t, verify.Check(p, plan), pl.Name())
		}
		_, err := pl.Plan(context.Background(), bad)
		require.ErrorContains(t, err, `"b0"`, pl.Name())
	}
	_, _, err := Portfolio(context.Background(), empty, PortfolioOptions{})
	require.NoError(t, err)
	_, err = FillScratch(zero, &model.Plan{}, ScratchOptions{})
	require.Error(t, err)
}
