package sat

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/verify"
)

var gapShapes = []struct {
	name string
	opt  gapOpts
}{
	{"gaps", gapOpts{horizon: 8, maxSize: 6, gap: 0.6, window: 0.5, twoGaps: true}},
	{"partial", gapOpts{horizon: 8, maxSize: 6, gap: 0.8, window: 0.9, twoGaps: true}},
	{"aliases", gapOpts{horizon: 8, maxSize: 6, alias: 0.5, gap: 0.2, window: 0.5}},
	{"mixed", gapOpts{horizon: 9, maxSize: 6, gap: 0.5, window: 0.5, alias: 0.4, align: 0.2, pin: 0.1,
		zero: 0.1, twoGaps: true, alignMembers: true}},
	{"split", gapOpts{horizon: 6, maxSize: 6, alias: 0.6, gap: 0.3, window: 0.7, split: true}},
	{"between", gapOpts{horizon: 5, maxSize: 8, alias: 0.7, gap: 0.6, window: 1, twoGaps: true, split: true}},
}

// TestGapsAliasesEqualBrute: on 3,300 random tiny instances with gaps
// (absent and partial), alias groups (chains, members outliving their
// root) and some alignment, pins and zero sizes, the SAT optimum equals
// brute force, the proven lower bound equals it too (the refutation one
// unit below is a proof), Decide is Feasible at the optimum and Infeasible
// below it, and every plan passes verify.Check. Each instance runs under
// one of the option variants in turn.
func TestGapsAliasesEqualBrute(t *testing.T) {
	ctx := context.Background()
	total, aboveMaxLive, noPlan := 0, 0, 0
	for si, shape := range gapShapes {
		t.Run(shape.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(61, uint64(si)))
			for k := 0; k < 550; k++ {
				p := randomGapAlias(rng, 2+rng.IntN(5), shape.opt)
				v := variants[k%len(variants)]
				total++
				want, _ := bruteGaps(p)
				if want < 0 {
					noPlan++
					_, s, st, err := Decide(ctx, p, 1000, v.opt)
					require.NoError(t, err)
					require.Equal(t, Infeasible, s, "instance %d has no valid plan: %s %+v", k, st.Reason, p.Buffers)
					pl, _, _, err := Minimise(ctx, p, nil, 0, v.opt, nil)
					if err == nil && pl != nil {
						require.NotEmpty(t, verify.Check(p, pl), "instance %d: a valid plan where brute force finds none", k)
					}
					continue
				}
				if want > p.ComputeSweep().MaxLive {
					aboveMaxLive++
				}
				var improved []*model.Plan
				pl, lb, st, err := Minimise(ctx, p, nil, 0, v.opt, func(q *model.Plan) { improved = append(improved, q) })
				require.NoError(t, err)
				requireValid(t, p, pl)
				require.Equal(t, want, pl.Peak(p), "instance %d (%s): %s %+v", k, v.name, st.Reason, p.Buffers)
				require.Equal(t, want, lb, "lower bound of instance %d (%s): %s %+v", k, v.name, st.Reason, p.Buffers)
				for _, q := range improved {
					requireValid(t, p, q)
				}
				if k%4 == 0 {
					checkFromIncumbent(t, p, want, v.opt)
				}
				if want == 0 {
					continue
				}
				o := v.opt
				o.NoFirstFit = k%2 == 0
				pl, s, st, err := Decide(ctx, p, want, o)
				require.NoError(t, err)
				require.Equal(t, Feasible, s, "instance %d at its optimum %d: %s %+v", k, want, st.Reason, p.Buffers)
				requireValid(t, p, pl)
				require.LessOrEqual(t, pl.Peak(p), want)
				if want == 1 {
					continue // capacity 0 would mean the pool's own (unbounded)
				}
				_, s, st, err = Decide(ctx, p, want-1, o)
				require.NoError(t, err)
				require.Equal(t, Infeasible, s, "instance %d below its optimum %d: %s %+v", k, want, st.Reason, p.Buffers)
			}
		})
	}
	t.Logf("%d instances: %d with no valid plan, %d with an optimum above max-live", total, noPlan, aboveMaxLive)
	assert.Positive(t, aboveMaxLive, "the generator should give instances where SAT proves more than max-live")
}

// checkFromIncumbent: from a stacked plan, Minimise reaches the optimum and
// proves it, Improve offers only valid plans of decreasing peak, and
// ProveLowerBound (time windows, sizes rounded down) never exceeds the
// optimum. It returns whether the bound reached the optimum.
func checkFromIncumbent(t *testing.T, p *model.Problem, want int64, opt Options) bool {
	t.Helper()
	ctx := context.Background()
	_, stacked := stackGaps(p)
	require.NotNil(t, stacked)
	requireValid(t, p, stacked)
	pl, lb, st, err := Minimise(ctx, p, stacked, 0, opt, func(q *model.Plan) { requireValid(t, p, q) })
	require.NoError(t, err)
	requireValid(t, p, pl)
	require.Equal(t, want, pl.Peak(p), "from the stacked plan: %s %+v", st.Reason, p.Buffers)
	require.Equal(t, want, lb, "from the stacked plan: %s %+v", st.Reason, p.Buffers)
	last := stacked.Peak(p)
	pl, _, err = Improve(ctx, p, stacked, Options{LNSBuffers: 2}, func(q *model.Plan) {
		requireValid(t, p, q)
		require.Less(t, q.Peak(p), last)
		last = q.Peak(p)
	})
	require.NoError(t, err)
	requireValid(t, p, pl)
	require.GreaterOrEqual(t, pl.Peak(p), want)
	// Sizes and pieces rounded up (outwards) to 2 bytes: a restriction
	// whose plans stay valid.
	if pl, _, st, err := Minimise(ctx, p, nil, 0, Options{RoundUp: 2}, nil); err == nil {
		requireValid(t, p, pl)
		require.GreaterOrEqual(t, pl.Peak(p), want)
		require.Contains(t, st.Reason, "rounded up")
	} else {
		require.ErrorContains(t, err, "cannot round sizes up") // pinned or aligned
	}
	o := opt
	o.RoundUnits = []int64{2, 3}
	lb, how, _, err := ProveLowerBound(ctx, p, o)
	require.NoError(t, err)
	require.LessOrEqual(t, lb, want, "%s %+v", how, p.Buffers)
	require.GreaterOrEqual(t, lb, p.ComputeSweep().MaxLive)
	return lb == want
}

// TestVariantsAgreeOnGaps: on 300 larger random gap/alias instances (8–14
// buffers, too many for brute force) every technique switched on and every
// one switched off prove the same optimum, and every plan verifies. Cover
// clauses, symmetry and the subset-sum filter meet more piece shapes here
// than in the tiny instances.
func TestVariantsAgreeOnGaps(t *testing.T) {
	ctx := context.Background()
	none := variants[len(variants)-1].opt
	proven := 0
	for k := 0; k < 300; k++ {
		shape := gapShapes[k%len(gapShapes)].opt
		shape.horizon += 4
		rng := rand.New(rand.NewPCG(81, uint64(k)))
		p := randomGapAlias(rng, 8+rng.IntN(7), shape)
		if w, _ := stackGaps(p); w < 0 {
			continue
		}
		var peaks, lbs [2]int64
		for a, o := range []Options{{}, none} {
			c, cancel := context.WithTimeout(ctx, 2*time.Second)
			pl, lb, _, err := Minimise(c, p, nil, 0, o, nil)
			cancel()
			require.NoError(t, err)
			requireValid(t, p, pl)
			peaks[a], lbs[a] = pl.Peak(p), lb
		}
		// Each bound is proven: it may not exceed the other's plan.
		require.LessOrEqual(t, lbs[0], peaks[1], "instance %d: %+v", k, p.Buffers)
		require.LessOrEqual(t, lbs[1], peaks[0], "instance %d: %+v", k, p.Buffers)
		if lbs[0] == peaks[0] && lbs[1] == peaks[1] {
			proven++
			require.Equal(t, peaks[0], peaks[1], "instance %d", k)
		}
	}
	t.Logf("%d instances proven optimal by both", proven)
	assert.GreaterOrEqual(t, proven, 150)
}
