package solve

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/model"
)

func TestFinishReserve(t *testing.T) {
	const m = 1_000_000
	for _, tc := range []struct {
		name      string
		n         int
		wall, cpu time.Duration
		want      time.Duration
	}{
		{"small problem: nothing kept", finishFrom - 1, time.Second, time.Second, 0},
		{"idle machine", m, time.Second, time.Second, 300 * time.Millisecond},
		{"two busy threads count as idle", m, time.Second, 2 * time.Second, 300 * time.Millisecond},
		{"a core at 40%: stretched", m, time.Second, 400 * time.Millisecond, 750 * time.Millisecond},
		{"stretch capped", m, 100 * time.Second, time.Second, 3 * time.Second},
		{"too early to read the load", m, minStartWall / 2, time.Microsecond, 300 * time.Millisecond},
		{"no CPU read", m, time.Second, 0, 300 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, finishReserve(tc.n, tc.wall, tc.cpu))
		})
	}
}

// TestStageContext: on a large problem a stage's deadline and its CPU share
// both end the reserve earlier; on a small one the context is unchanged.
func TestStageContext(t *testing.T) {
	now := useFakeCPU(t)
	wall, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	dl, _ := wall.Deadline()
	top := cpuLimit(wall, 10*time.Second, 1)

	big := &model.Problem{Buffers: make([]model.Buffer, 200_000)}
	s := &solver{p: big, start: time.Now(), startCPU: time.Duration(now.Load())}
	sctx, scancel := s.stageContext(top)
	defer scancel()
	got, ok := sctx.Deadline()
	require.True(t, ok)
	reserve := 200_000 * finishPerBuffer // the fake CPU clock and the start just now: no stretch
	assert.Equal(t, dl.Add(-reserve), got)
	left, _ := timeLeft(sctx)
	assert.Equal(t, 10*time.Second-reserve, left, "the CPU share, less the reserve")

	// A later stage never ends after an earlier one's reserve.
	s.finishBy = dl.Add(-time.Minute)
	sctx3, scancel3 := s.stageContext(top)
	defer scancel3()
	got, _ = sctx3.Deadline()
	assert.Equal(t, dl.Add(-time.Minute), got)

	small := &solver{p: &model.Problem{Buffers: make([]model.Buffer, 10)}, start: time.Now()}
	sctx2, scancel2 := small.stageContext(top)
	defer scancel2()
	assert.Equal(t, top, sctx2)
}
