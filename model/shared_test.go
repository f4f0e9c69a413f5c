package model_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/optalloc/optalloc/formats"
	"github.com/optalloc/optalloc/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sharedBenchmarks is the shared data folder (../shared/benchmarks from the
// repository root); tests that need it skip when it is absent.
const sharedBenchmarks = "../../shared/benchmarks"

func loadShared(t *testing.T, rel string) *model.Problem {
	t.Helper()
	path := filepath.Join(sharedBenchmarks, rel)
	if _, err := os.Stat(path); err != nil {
		t.Skipf("shared benchmark data absent (%s): %v", path, err)
	}
	p, err := formats.Load(path)
	require.NoError(t, err)
	return p
}

// bruteMaxLive is the largest sum of sizes live at one start time, O(n²).
func bruteMaxLive(p *model.Problem) int64 {
	var best int64
	for i := range p.Buffers {
		t := p.Buffers[i].Start
		var load int64
		for j := range p.Buffers {
			if b := &p.Buffers[j]; b.Start <= t && t < b.End {
				load += b.Size
			}
		}
		best = max(best, load)
	}
	return best
}

// TestSharedInstancesMaxLive checks ComputeSweep's max-live on every shared
// instance against brute force and against the table of
// ../shared/benchmarks/README.md (and ../shared/notes/exact-search.md for
// A..K, where the README gives a range).
func TestSharedInstancesMaxLive(t *testing.T) {
	tests := []struct {
		file    string
		buffers int
		maxLive int64 // 0: only the range below is known
		lo, hi  int64
	}{
		{file: "traces/mindspore-resnet50.csv", buffers: 1042, maxLive: 1515472556},
		{file: "traces/mindspore-tiny_bert.csv", buffers: 1821, maxLive: 758936113},
		{file: "traces/mindspore-bert_base.csv", buffers: 5620, maxLive: 15734934689},
		{file: "traces/iopddl-G_1.csv", buffers: 816, maxLive: 3030937746},
		{file: "traces/iree-mobilebert.csv", buffers: 316, maxLive: 1674240},
		{file: "traces/iree-mobilebert.plan.csv", buffers: 316, maxLive: 1674240},
		{file: "minimalloc/input.12.csv", buffers: 5, lo: 1, hi: 12}, // optimal peak 12
		{file: "minimalloc/D.1048576.csv", maxLive: 986112},
		{file: "minimalloc/E.1048576.csv", maxLive: 1048576},
		{file: "minimalloc/J.1048576.csv", maxLive: 989184},
	}
	for _, name := range []string{"A", "B", "C", "F", "G", "H", "I", "K"} {
		tests = append(tests, struct {
			file    string
			buffers int
			maxLive int64
			lo, hi  int64
		}{file: "minimalloc/" + name + ".1048576.csv", lo: 986112, hi: 1048576})
	}
	atCapacity := 0
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			p := loadShared(t, tc.file)
			if tc.buffers > 0 {
				assert.Len(t, p.Buffers, tc.buffers)
			} else {
				assert.True(t, len(p.Buffers) >= 154 && len(p.Buffers) <= 454, "A..K have 154..454 buffers, got %d", len(p.Buffers))
			}
			s := p.ComputeSweep()
			assert.Equal(t, bruteMaxLive(p), s.MaxLive, "sweep vs brute force")
			if tc.maxLive > 0 {
				assert.Equal(t, tc.maxLive, s.MaxLive, "README table")
			} else {
				assert.True(t, tc.lo <= s.MaxLive && s.MaxLive <= tc.hi, "max-live %d outside [%d, %d]", s.MaxLive, tc.lo, tc.hi)
			}
			if s.MaxLive == 1048576 {
				atCapacity++
			}
			var n int
			for _, c := range s.Components {
				n += len(c.Buffers)
			}
			assert.Equal(t, len(p.Buffers), n, "components partition the buffers")
			assert.Positive(t, s.Sections)
		})
	}
	if _, err := os.Stat(filepath.Join(sharedBenchmarks, "minimalloc")); err == nil {
		// exact-search.md: on 8 of the 11 challenging instances max-live equals the capacity.
		assert.Equal(t, 8, atCapacity)
	}
}
