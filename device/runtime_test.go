package device

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/solve"
	"github.com/optalloc/optalloc/verify"
)

var _ Runtime = Greedy{}

// TestRuntimesAgreeWithTheFunctions: Greedy's methods are the package's
// functions for its buffers (Simulate, TFLite Micro's greedy, SolveTFLM),
// and it has no file to write back (device/tflm's test: the runtime that
// has one).
func TestRuntimesAgreeWithTheFunctions(t *testing.T) {
	ctx := context.Background()
	p := &model.Problem{Buffers: []model.Buffer{
		{ID: "a", Start: 1, End: 2, Size: 16, Align: 16}, {ID: "b", Start: 1, End: 2, Size: 16, Align: 16},
		{ID: "c", Start: 0, End: 3, Size: 16, Align: 16}, {ID: "d", Start: 0, End: 2, Size: 32, Align: 16},
		{ID: "s0", Start: 1, End: 2, Size: 64, Align: 16, Kind: model.Scratch},
		{ID: "s1", Start: 2, End: 3, Size: 48, Align: 16, Kind: model.Scratch},
	}}
	online := []bool{false, false, false, false, true, true}
	for _, tc := range []struct {
		name      string
		rt        Runtime
		p         *model.Problem
		online    []bool
		writeBack bool
	}{
		{"greedy", Greedy{Flags: online}, p, online, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.online, tc.rt.Online(tc.p))
			opt := solve.Options{Threads: 1, TimeLimit: 5e9}
			res, out, err := tc.rt.Solve(ctx, tc.p, opt)
			require.NoError(t, err)
			want, _, err := SolveTFLM(ctx, tc.p, tc.online, opt)
			require.NoError(t, err)
			assert.Equal(t, want.Peak, res.Peak)
			assert.Empty(t, verify.Check(tc.p, res.Plan))
			replay, err := tc.rt.Replay(ctx, tc.p, res.Plan)
			require.NoError(t, err)
			assert.Equal(t, res.Plan.Placements, replay.Placements, "the plan is not the device's")
			own, err := tc.rt.Own(ctx, tc.p)
			require.NoError(t, err)
			if out != nil {
				assert.Equal(t, out.TFLMHead, own.Peak(tc.p))
			}
			data, _, err := tc.rt.WriteBack(ctx, tc.p, res.Plan, "out.tflite")
			if !tc.writeBack {
				assert.ErrorIs(t, err, ErrNoWriteBack)
				return
			}
			require.NoError(t, err)
			require.NotEmpty(t, data)
		})
	}
	// A problem that is no longer the arena has no runtime buffers.
	two := *p
	two.Pools = []model.Pool{{Name: "a"}, {Name: "b", Rank: 1}}
	assert.Nil(t, Greedy{Flags: online}.Online(&two))
	assert.Nil(t, Greedy{Flags: online}.Online(&model.Problem{Buffers: p.Buffers[:2]}))
}
