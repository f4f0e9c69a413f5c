package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/internal/tflmrun"
)

// TestRow: a concurrent pair and a handoff give rows where the stated
// head is the runtime's and the outputs are identical (run fails
// otherwise); skipped without tools/tflm_multi or the shared models.
func TestRow(t *testing.T) {
	bin, ok := tflmrun.Find("../../../tools/tflm_multi/out/bin/tflm_multi")
	if !ok {
		t.Skip("tflm_multi is absent: build it with tools/tflm_multi/build.sh")
	}
	if _, ok := tflmrun.Find("../../../../shared/models/tflite/hello_world_int8.tflite"); !ok {
		t.Skip("the shared models are absent")
	}
	for _, tc := range []tcase{cases[2], cases[5]} {
		row, err := run(context.Background(), "../../../../shared/models/tflite", bin, t.TempDir(), tc, 5*time.Second)
		require.NoError(t, err)
		cells := strings.Split(row, " | ")
		require.Len(t, cells, 9, row)
		assert.Equal(t, cells[1], cells[4], "stated head and runtime head")
		assert.Contains(t, row, "| yes |")
	}
}
