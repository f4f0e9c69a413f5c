package heuristics

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/verify"
)

// tflmBuf is TFLite Micro's AddBuffer(size, first, last) with inclusive
// scopes, as the half-open lifetime [first, last+1).
func tflmBuf(id string, size int64, first, last int64) model.Buffer {
	return model.Buffer{ID: id, Size: size, Start: first, End: last + 1}
}

func TestTFLMGreedyHandChecked(t *testing.T) {
	pin := func(b model.Buffer, o int64) model.Buffer { b.Pin = &o; return b }
	tests := []struct {
		name string
		bufs []model.Buffer
		want []int64
	}{
		// two buffers apart in time share offset 0
		{"apart", []model.Buffer{tflmBuf("a", 10, 0, 1), tflmBuf("b", 20, 2, 3)}, []int64{0, 0}},
		// largest first: 50, 40, 30 (on 40), 20 (above 50 and 30: 70),
		// 10 (the gap between 50 and 20 at 70); peak 90
		{"medium", []model.Buffer{tflmBuf("a", 10, 0, 1), tflmBuf("b", 20, 1, 2), tflmBuf("c", 30, 2, 3),
			tflmBuf("d", 40, 3, 4), tflmBuf("e", 50, 0, 1)}, []int64{50, 70, 40, 0, 0}},
		// equal sizes: TFLite Micro's sort array is filled from the tail,
		// so the buffer added last is placed first
		{"ties in reverse order", []model.Buffer{tflmBuf("a", 16, 0, 2), tflmBuf("b", 16, 0, 2), tflmBuf("c", 16, 0, 2)},
			[]int64{32, 16, 0}},
		// an offline (pinned) buffer keeps its offset and the others fit
		// around it, largest first: 32 above it, then 16 below it
		{"around a pin", []model.Buffer{pin(tflmBuf("p", 16, 0, 3), 16), tflmBuf("x", 16, 0, 3), tflmBuf("y", 32, 1, 2)},
			[]int64{16, 0, 32}},
		// first fit, not best fit: the lowest gap that holds the buffer
		// ([10, 30)) wins over the exact fit [40, 50) higher up
		{"lowest gap", []model.Buffer{pin(tflmBuf("a", 10, 0, 3), 0), pin(tflmBuf("b", 10, 0, 3), 30),
			pin(tflmBuf("c", 100, 0, 3), 50), tflmBuf("d", 10, 1, 2)},
			[]int64{0, 30, 50, 10}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := &model.Problem{Buffers: tc.bufs}
			pl, err := TFLMGreedy{}.Plan(context.Background(), p)
			require.NoError(t, err)
			got := make([]int64, len(pl.Placements))
			for i, q := range pl.Placements {
				got[i] = q.Offset
			}
			assert.Equal(t, tc.want, got)
			assert.Empty(t, verify.Check(p, pl))
		})
	}
}
