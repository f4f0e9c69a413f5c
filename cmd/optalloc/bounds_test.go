package main

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBoundsRejectsNegativeFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--threads", "-1"},
		{"--prove", "--threads", "-2"},
		{"--prove", "--time-limit", "-1s"},
	} {
		code, stdout, stderr := cli(t, "", append([]string{"bounds", "../../examples/tiny-cnn.csv"}, args...)...)
		assert.Equal(t, 2, code, args)
		assert.Empty(t, stdout, args)
		assert.Contains(t, stderr, "must not be negative", args)
	}
}

// TestOnCores: --threads N holds the process to N cores while the provers
// run side by side, and gives the previous setting back.
func TestOnCores(t *testing.T) {
	before := runtime.GOMAXPROCS(0)
	restore := onCores(1)
	assert.Equal(t, 1, runtime.GOMAXPROCS(0))
	restore()
	assert.Equal(t, before, runtime.GOMAXPROCS(0))
	onCores(0)()
	assert.Equal(t, before, runtime.GOMAXPROCS(0), "0 = all cores: unchanged")
}

func TestBoundsProveWithOneThread(t *testing.T) {
	code, stdout, stderr := cli(t, "", "bounds", "../../examples/tiny-cnn.csv", "--prove", "--threads", "1", "--time-limit", "5s")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "lower_bound=")
	assert.Contains(t, stdout, "optimal=true")
}
