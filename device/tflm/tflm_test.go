package tflm

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/device"
	"github.com/optalloc/optalloc/formats/tflite"
	"github.com/optalloc/optalloc/solve"
	"github.com/optalloc/optalloc/verify"
)

// TestRuntimeIsTheDevices: on a model without kernel scratch (cellnet) and
// one with (the keyword model's SVDF), the runtime's plan is the device's
// (SolveTFLM), its replay keeps it, and the model written back carries the
// tensors' offsets, read back.
func TestRuntimeIsTheDevices(t *testing.T) {
	ctx := context.Background()
	for _, path := range []string{"../../examples/cellnet.tflite", "../../../shared/models/tflite/keyword_scrambled_8bit.tflite"} {
		t.Run(path, func(t *testing.T) {
			if _, err := os.Stat(path); err != nil {
				t.Skipf("%s absent", path)
			}
			m, err := tflite.ReadFile(path)
			require.NoError(t, err)
			a, err := m.Arena()
			require.NoError(t, err)
			rt := &Runtime{Model: m, Arena: a}
			p := a.Problem
			// The scratch buffers; flags all false for a model without
			// scratch (its plan still goes through the runtime's solve).
			on := a.Online()
			if on == nil {
				on = make([]bool, len(p.Buffers))
			}
			assert.Equal(t, on, rt.Online(p))
			opt := solve.Options{Threads: 1, TimeLimit: 5e9}
			res, _, err := rt.Solve(ctx, p, opt)
			require.NoError(t, err)
			want, _, err := device.SolveTFLM(ctx, p, a.Online(), opt)
			require.NoError(t, err)
			assert.Equal(t, want.Peak, res.Peak)
			assert.Empty(t, verify.Check(p, res.Plan))
			replay, err := rt.Replay(ctx, p, res.Plan)
			require.NoError(t, err)
			assert.Equal(t, res.Plan.Placements, replay.Placements)
			data, _, err := rt.WriteBack(ctx, p, res.Plan, "out.tflite")
			require.NoError(t, err)
			back, err := tflite.Decode(data, "out.tflite")
			require.NoError(t, err)
			require.NotNil(t, back.Offline)
			for j, i := range a.Tensors {
				if p.Buffers[j].Size > 0 {
					assert.Equal(t, res.Plan.Placements[j].Offset, int64(back.Offline.Offsets[i]), p.Buffers[j].ID)
				}
			}
		})
	}
}
