package verify_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/formats/csv"
	"github.com/optalloc/optalloc/formats/jsonfmt"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/verify"
)

func dump(p *model.Problem, pl *model.Plan) string {
	var sb strings.Builder
	_ = jsonfmt.Write(&sb, p)
	if pl != nil && len(pl.Placements) == len(p.Buffers) {
		_ = csv.Write(&sb, p, pl)
	}
	return sb.String()
}

// TestValidPlansPass: plans built by first fit (aliases, gaps, elastic
// grants, pins, two pools with a capacity) have no violation.
func TestValidPlansPass(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for trial := 0; trial < 500; trial++ {
		s := rngSource{rng}
		p := genProblem(s, 1+rng.IntN(12), trial%2 == 0)
		pl := validPlan(s, p)
		require.NoError(t, p.Validate(), dump(p, nil))
		require.Empty(t, verify.Check(p, pl), "trial %d\n%s", trial, dump(p, pl))
	}
}

// mutate spoils some placements of a plan in the ways the verifier must
// catch: moved offsets (overlaps, misalignment, moved pins and aliases),
// other pools, wrong grants, missing or absurd placements.
func mutate(s source, p *model.Problem, pl *model.Plan) {
	n := len(pl.Placements)
	for k := 0; k <= s.intn(4); k++ {
		i := s.intn(n)
		q := &pl.Placements[i]
		switch s.intn(10) {
		case 0, 1, 2, 3:
			q.Offset = int64(s.intn(48))
		case 4:
			q.Offset += int64(s.intn(9)) - 4
		case 5:
			q.Pool = s.intn(len(p.PoolList()) + 1)
		case 6:
			q.Size += int64(s.intn(5)) - 2
		case 7:
			q.Offset = []int64{model.MissingOffset, -1, math.MaxInt64, math.MaxInt64 - 3}[s.intn(4)]
		case 8:
			j := s.intn(n)
			q.Offset, q.Pool = pl.Placements[j].Offset, pl.Placements[j].Pool
		case 9:
			if p.Pools != nil {
				p.Pools[0].Capacity = int64(s.intn(40))
			}
		}
	}
}

// TestOverlapsMatchBruteForce: on spoiled plans, the pairs Check reports as
// overlapping are exactly the pairs an all-pairs, every-time-step check
// finds.
func TestOverlapsMatchBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	flagged := 0
	for trial := 0; trial < 1500; trial++ {
		s := rngSource{rng}
		p := genProblem(s, 2+rng.IntN(11), trial%2 == 0)
		pl := validPlan(s, p)
		mutate(s, p, pl)
		got := verify.Check(p, pl)
		want := bruteOverlaps(p, pl)
		require.Equal(t, want, overlapPairs(p, got), "trial %d\n%s", trial, dump(p, pl))
		if len(want) > 0 {
			flagged++
		}
		for _, v := range got {
			assert.NotEqual(t, verify.TooMany, v.Kind)
			assert.NotEmpty(t, v.Buffers, v.String())
		}
	}
	assert.Greater(t, flagged, 300, "the mutations must produce overlaps often")
}

// TestCheckIsDeterministic: same input, same list.
func TestCheckIsDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	for trial := 0; trial < 100; trial++ {
		s := rngSource{rng}
		p := genProblem(s, 2+rng.IntN(11), true)
		pl := validPlan(s, p)
		mutate(s, p, pl)
		assert.Equal(t, verify.Check(p, pl), verify.Check(p, pl.Clone()))
	}
}
