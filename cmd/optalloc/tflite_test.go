package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/formats/tflite"
)

const sharedTFLite = "../../../shared/models/tflite"

func needTFLite(t *testing.T, name string) string {
	t.Helper()
	path := filepath.Join(sharedTFLite, name)
	if _, err := os.Stat(path); err != nil {
		t.Skipf("shared TFLite model not found at %s (it sits beside the repository in CI)", path)
	}
	return path
}

// TestPlanWritesTFLiteOfflinePlan: plan -o X.tflite writes a model whose
// carried plan verify accepts, with the planned peak as its arena; the
// input is untouched.
func TestPlanWritesTFLiteOfflinePlan(t *testing.T) {
	in := needTFLite(t, "person_detect.tflite")
	before, err := os.ReadFile(in)
	require.NoError(t, err)
	out := filepath.Join(t.TempDir(), "planned.tflite")
	code, _, stderr := cli(t, "", "plan", in, "-o", out, "--time-limit", "5s")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "peak=55296 lower_bound=55296 gap=0.00% status=optimal")
	code, stdout, stderr := cli(t, "", "verify", out)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "32 placed offline, 0 planned tensors left to the runtime")
	assert.Contains(t, stdout, "offline part: valid, peak=55296")
	assert.Contains(t, stdout, "greedy planner placing the rest: 55296 bytes")
	after, err := os.ReadFile(in)
	require.NoError(t, err)
	assert.Equal(t, before, after)
}

// TestVerifyVelaOfflinePlan: Vela's plan puts the NPU operator's input,
// output and both scratch areas at offset 0. They are operands of one
// CUSTOM operator, nested inside each other, so verify reads them as
// in-place aliases, and plan keeps that layout: the tensors stay in Vela's
// 74464 bytes instead of 158160 with every tensor apart. TFLite Micro's
// ethos_u kernel adds two driver arrays of 5 entries (uint64 and size_t):
// 74544 on an Ethos-U device's Cortex-M55, as the device reports; on the
// host, where the operator cannot run, a warning says to name the CPU.
func TestVerifyVelaOfflinePlan(t *testing.T) {
	in := needTFLite(t, "person_detect_vela.tflite")
	code, stdout, stderr := cli(t, "", "verify", in, "--target", "cortex-m55")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "4 placed offline")
	assert.Contains(t, stdout, "3 tensors lie inside another one")
	assert.Contains(t, stdout, "offline part: valid, peak=74464")
	assert.Contains(t, stdout, "greedy planner placing the rest: 74544 bytes")
	code, _, stderr = cli(t, "", "plan", in, "--time-limit", "2s", "--target", "cortex-m55")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "peak=74544 ")
	assert.NotContains(t, stderr, "warning")
	code, _, stderr = cli(t, "", "plan", in, "--time-limit", "2s")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, `warning: `+in+`: custom operator "ethos-u" (1 in the model) runs only on a Cortex-M with an Ethos-U NPU`)
}

// TestVerifyRejectsOverlappingOfflinePlan: an offline plan that puts every
// tensor of a model of builtin operators at offset 0 overlaps live tensors;
// verify lists the overlaps and exits 1.
func TestVerifyRejectsOverlappingOfflinePlan(t *testing.T) {
	in := needTFLite(t, "person_detect.tflite")
	m, err := tflite.ReadFile(in)
	require.NoError(t, err)
	data, err := m.WithOfflinePlan(&tflite.OfflinePlan{Offsets: make([]int32, len(m.Tensors))})
	require.NoError(t, err)
	bad := filepath.Join(t.TempDir(), "zeros.tflite")
	require.NoError(t, os.WriteFile(bad, data, 0o644))
	code, stdout, _ := cli(t, "", "verify", bad)
	assert.Equal(t, 1, code)
	assert.Contains(t, stdout, "overlap:")
	assert.NotContains(t, stdout, "lie inside another one")
}

func TestTFLiteUsageErrors(t *testing.T) {
	model := needTFLite(t, "hello_world_int8.tflite")
	dir := t.TempDir()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"csv into tflite", []string{"plan", "../../examples/tiny-cnn.csv", "-o", filepath.Join(dir, "x.tflite")}, "the input must be a .tflite model"},
		{"pools", []string{"plan", model, "--pool", "sram:1KiB", "-o", filepath.Join(dir, "y.tflite")}, "leave out --pool"},
		{"no offline plan", []string{"verify", model}, "has no OfflineMemoryAllocation metadata"},
		{"not a model", []string{"verify", "../../examples/tiny-cnn.csv", "../../examples/tiny-cnn.csv", "../../examples/tiny-cnn.csv"}, "want PROBLEM and PLAN, or a .tflite model"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := cli(t, "", tc.args...)
			assert.Equal(t, 2, code)
			assert.Contains(t, stderr, tc.want)
			assert.Empty(t, stdout)
			entries, err := os.ReadDir(dir)
			require.NoError(t, err)
			assert.Empty(t, entries, "nothing written")
		})
	}
}

// TestTFLiteEveryCommand: bounds, compare and check take a .tflite model
// like any other input.
func TestTFLiteEveryCommand(t *testing.T) {
	model := needTFLite(t, "micro_speech_quantized.tflite")
	code, stdout, stderr := cli(t, "", "bounds", model)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "max_live=5968")
	code, stdout, stderr = cli(t, "", "compare", model, "--methods", "tflm-greedy,auto", "--time-limit", "2s")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "5968")
	base := filepath.Join(t.TempDir(), "base.json")
	code, _, stderr = cli(t, "", "check", model, "--write-baseline", base, "--time-limit", "2s")
	require.Equal(t, 0, code, stderr)
	code, _, stderr = cli(t, "", "check", model, "--baseline", base, "--time-limit", "2s")
	assert.Equal(t, 0, code, stderr)
}
