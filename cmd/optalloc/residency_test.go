package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTwoModelsKeepWeightsResident: in the serial two-model example every
// weight stays resident (the plan is above the 19 972 480 bytes it took
// when the second model overwrote the first one's weights), and --explain
// shows the arena with weights resident and with weights reloaded.
func TestTwoModelsKeepWeightsResident(t *testing.T) {
	code, stdout, stderr := cli(t, "", "plan", "../../examples/two-models-shared-weights.graph.json", "--explain", "--time-limit", "5s")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "peak=21294528 lower_bound=21294528")
	assert.Contains(t, stdout, "weights: 15273408 B, resident across stages (default): planned peak 21294528 B")
	assert.Contains(t, stdout, "reloaded before each run (\"reload_weights\": true on every model): planned peak 19972480 B")
}
