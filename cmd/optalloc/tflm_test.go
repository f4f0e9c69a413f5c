package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/formats/tflite"
	"github.com/optalloc/optalloc/internal/tflmrun"
)

// tflmRun is TFLite Micro's real runtime on the host (reference kernels):
// the ground truth for the arena a device uses.
const tflmRun = "../../../shared/tflm/tflm_run"

func runTFLM(t *testing.T, model string, args ...string) tflmrun.Report {
	t.Helper()
	r, err := tflmrun.Run(tflmRun, model, args...)
	require.NoError(t, err)
	return r
}

// runnableTFLite lists the shared and example models TFLite Micro's
// reference kernels run, skipping without tflm_run.
func runnableTFLite(t *testing.T) []string {
	t.Helper()
	if _, err := os.Stat(tflmRun); err != nil {
		t.Skipf("%s is absent (it sits beside the repository in CI): the TFLite Micro runtime checks are skipped", tflmRun)
	}
	shared, _ := filepath.Glob(filepath.Join(sharedTFLite, "*.tflite"))
	examples, _ := filepath.Glob("../../examples/*.tflite")
	testdata, _ := filepath.Glob("testdata/*.tflite")
	var out []string
	for _, f := range append(append(shared, examples...), testdata...) {
		if exec.Command(tflmRun, f, "--no-tensors").Run() == nil {
			out = append(out, f)
		}
	}
	require.NotEmpty(t, out, "no model runs under tflm_run")
	return out
}

var peakRe = regexp.MustCompile(`peak=(\d+) `)

func statedPeak(t *testing.T, stderr string) int64 {
	t.Helper()
	m := peakRe.FindStringSubmatch(stderr)
	require.NotNil(t, m, stderr)
	v, err := strconv.ParseInt(m[1], 10, 64)
	require.NoError(t, err)
	return v
}

// TestPlannedModelsOnTheRealRuntime plans every runnable model with the
// default flags, writes it, and runs the original and the planned model
// through TFLite Micro: the outputs are identical, every offline offset is
// honoured, the device's head is no larger than with TFLite Micro's own
// planner, and it is exactly the peak optalloc states.
func TestPlannedModelsOnTheRealRuntime(t *testing.T) {
	for _, in := range runnableTFLite(t) {
		t.Run(filepath.Base(in), func(t *testing.T) {
			orig := runTFLM(t, in)
			require.True(t, orig.OK, orig.Text)
			out := filepath.Join(t.TempDir(), "planned.tflite")
			code, _, stderr := cli(t, "", "plan", in, "-o", out, "--time-limit", "5s")
			require.Equal(t, 0, code, stderr)
			planned := runTFLM(t, out)
			require.True(t, planned.OK, planned.Text)
			assert.True(t, planned.Verified, "the written model fails TFLite's flatbuffer verifier")
			assert.Equal(t, orig.Outputs, planned.Outputs, "outputs differ")
			assert.Equal(t, 0, planned.Mismatched, "offline offsets not honoured")
			assert.LessOrEqual(t, planned.Head, orig.Head, "the plan makes the device's arena larger than TFLite Micro's own")
			assert.Equal(t, planned.Head, statedPeak(t, stderr), "stated peak is not the device's head")

			// The buffer list tflm_run records, given back as the target's
			// scratch (--scratch), plans the same arena.
			list := filepath.Join(t.TempDir(), "buffers.csv")
			require.True(t, runTFLM(t, in, "--dump-buffers", list).OK)
			code, _, stderr2 := cli(t, "", "plan", in, "--scratch", list, "--time-limit", "5s")
			require.Equal(t, 0, code, stderr2)
			assert.Equal(t, planned.Head, statedPeak(t, stderr2))
		})
	}
}

// TestNoScratchSaysSo: with --no-scratch the tensors are planned alone, the
// summary says scratch is not included, and on a model whose kernels ask
// for scratch the device's head then exceeds the peak stated.
func TestNoScratchSaysSo(t *testing.T) {
	in := needTFLite(t, "keyword_scrambled_8bit.tflite")
	code, _, stderr := cli(t, "", "plan", in, "--no-scratch", "--time-limit", "5s")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, " scratch=none")
	assert.Contains(t, stderr, "scratch buffers not included")
	tensorsOnly := statedPeak(t, stderr)
	code, stdout, stderr := cli(t, "", "plan", in, "--time-limit", "5s", "--json")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, " scratch=14")
	assert.Greater(t, statedPeak(t, stderr), tensorsOnly)
	assert.Contains(t, stdout, `"tflite": {`)
	assert.Contains(t, stdout, `"kernels": "reference"`)
	assert.Contains(t, stdout, `"scratch_buffers": 14`)
	assert.Contains(t, stdout, `"tflm_own_head": 672`)
}

func TestScratchFlagErrors(t *testing.T) {
	in := needTFLite(t, "trained_lstm_int8.tflite")
	dir := t.TempDir()
	list := filepath.Join(dir, "list.csv")
	require.NoError(t, os.WriteFile(list, []byte("id,lower,upper,size\nt0_0,1,3,800\n"), 0o644))
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"both", []string{"plan", in, "--no-scratch", "--scratch", list}, "contradict"},
		{"not a model", []string{"plan", "../../examples/tiny-cnn.csv", "--no-scratch"}, "--no-scratch applies to .tflite models"},
		{"another model's list", []string{"plan", in, "--scratch", list}, list + ":2: tensor t0_0"},
		{"missing list", []string{"plan", in, "--scratch", filepath.Join(dir, "none.csv")}, "cannot open"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(dir, tc.name+".csv")
			code, _, stderr := cli(t, "", append(tc.args, "-o", out)...)
			assert.Equal(t, 2, code, stderr)
			assert.Contains(t, stderr, tc.want)
			assert.NoFileExists(t, out)
		})
	}
}

// TestVerifyRejectsCorruptedCarriedPlans: TFLite Micro checks nothing in an
// offline plan, so verify must catch each way a carried plan can be wrong.
func TestVerifyRejectsCorruptedCarriedPlans(t *testing.T) {
	in := needTFLite(t, "person_detect.tflite")
	dir := t.TempDir()
	good := filepath.Join(dir, "good.tflite")
	code, _, stderr := cli(t, "", "plan", in, "-o", good, "--time-limit", "5s")
	require.Equal(t, 0, code, stderr)
	data, err := os.ReadFile(good)
	require.NoError(t, err)
	m, err := tflite.Decode(data, good)
	require.NoError(t, err)
	require.NotNil(t, m.Offline)
	enc := m.Offline.Encode()
	at := bytes.Index(data, enc)
	require.GreaterOrEqual(t, at, 0)
	require.Equal(t, -1, bytes.Index(data[at+1:], enc), "the plan's bytes are not unique in the file")
	// Two tensors live together: the model's input and the first
	// operator's output.
	first, second := m.Inputs[0], -1
	for i := range m.Tensors {
		tt := &m.Tensors[i]
		if i != first && tt.Planned() && tt.Bytes > 0 && tt.First <= m.Tensors[first].Last && m.Tensors[first].First <= tt.Last {
			second = i
			break
		}
	}
	require.GreaterOrEqual(t, second, 0)
	word := func(k int) int { return at + 4*k }
	put := func(b []byte, k int, v int32) { binary.LittleEndian.PutUint32(b[word(k):], uint32(v)) }
	tests := []struct {
		name  string
		patch func(b []byte)
		code  int
		want  string
	}{
		{"overlap", func(b []byte) { put(b, 3+second, m.Offline.Offsets[first]) }, 1, "overlap"},
		{"misaligned", func(b []byte) { put(b, 3+first, m.Offline.Offsets[first]+8) }, 1, "align"},
		{"negative", func(b []byte) { put(b, 3+first, -16) }, 2, "has offset -16"},
		{"wrong count", func(b []byte) { put(b, 2, int32(len(m.Tensors)-1)) }, 2, "says"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := bytes.Clone(data)
			tc.patch(b)
			bad := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".tflite")
			require.NoError(t, os.WriteFile(bad, b, 0o644))
			code, stdout, stderr := cli(t, "", "verify", bad)
			assert.Equal(t, tc.code, code, stdout+stderr)
			assert.Contains(t, stdout+stderr, tc.want)
		})
	}
}

// TestExplainModelFiles: --explain on a model file says what its arena is
// made of — tensors and scratch, what is live at the peak, what dominates
// — instead of "no model report".
func TestExplainModelFiles(t *testing.T) {
	in := needTFLite(t, "keyword_scrambled_8bit.tflite")
	code, stdout, stderr := cli(t, "", "plan", in, "--explain", "--time-limit", "5s")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "30 arena buffers: 16 tensors and 14 kernel scratch buffers (reference kernels")
	assert.Contains(t, stdout, "at the peak (672 bytes)")
	assert.Contains(t, stdout, "largest live buffer: s")
	assert.Contains(t, stdout, "a kernel's scratch buffer, 256 bytes")
	assert.NotContains(t, stdout, "no aliases or model report")

	if _, err := os.Stat(sileroPath); err != nil {
		t.Skip("the shared ONNX model is absent")
	}
	code, stdout, stderr = cli(t, "", "plan", sileroPath, "--dim", "input:0=1", "--dim", "input:1=576", "--dim", "state:1=1", "--dim", "sr=16000", "--explain", "--time-limit", "5s")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "planned in place inside another one")
	assert.Contains(t, stdout, "at the peak (10497 bytes)")
	assert.Contains(t, stdout, "largest live buffer: If_0_then_branch")
}

// TestMultiSubgraphPlanWarns: a plan for a model with several subgraphs
// says which TFLite Micro releases misread it; zero warnings for one.
func TestMultiSubgraphPlanWarns(t *testing.T) {
	dir := t.TempDir()
	code, _, stderr := cli(t, "", "plan", "testdata/if_branches.tflite", "-o", filepath.Join(dir, "if.tflite"))
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "the model has 3 subgraphs: TFLite Micro releases before 2023-03-29 (tflite-micro PR #1195)")
	in := needTFLite(t, "hello_world_int8.tflite")
	code, _, stderr = cli(t, "", "plan", in, "-o", filepath.Join(dir, "hello.tflite"))
	require.Equal(t, 0, code, stderr)
	assert.NotContains(t, stderr, "warning")
}

// TestFallbackOnARealModel: the free-list planner's joint plan of the
// keyword model puts its tensors where TFLite Micro, placing the SVDF
// scratch around them, needs 800 bytes; compare shows that device arena for
// the method, and plan keeps TFLite Micro's own layout instead (672), says
// so, and the runtime agrees.
func TestFallbackOnARealModel(t *testing.T) {
	in := needTFLite(t, "keyword_scrambled_8bit.tflite")
	code, stdout, stderr := cli(t, "", "compare", in, "--methods", "freelist,auto", "--format", "csv")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, ",672,800,", "freelist's column is not the device's arena")
	out := filepath.Join(t.TempDir(), "planned.tflite")
	code, _, stderr = cli(t, "", "plan", in, "--method", "freelist", "-o", out)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, int64(672), statedPeak(t, stderr))
	assert.Contains(t, stderr, "TFLite Micro's own tensor offsets are kept")
	if _, err := os.Stat(tflmRun); err == nil {
		r := runTFLM(t, out)
		require.True(t, r.OK, r.Text)
		assert.Equal(t, int64(672), r.Head)
	}
}

// tflmCortexM is TFLite Micro built for emulated Cortex-M CPUs with the
// kernels products ship (../shared/tflm-cortexm).
const tflmCortexM = "../../../shared/tflm-cortexm"

// TestPlannedModelsOnCortexM plans every shared model for each emulated
// Cortex-M device (--target, CMSIS-NN kernels), default method and an
// explicit one, writes it and runs it there: outputs identical to the
// model alone, every offline offset honoured, the device's head exactly
// the peak stated and never above TFLite Micro's own planner on that
// device — which the summary's tflm: line states.
func TestPlannedModelsOnCortexM(t *testing.T) {
	devs, why := tflmrun.Devices(tflmCortexM)
	if len(devs) == 0 {
		t.Skip(why)
	}
	shared, _ := filepath.Glob(filepath.Join(sharedTFLite, "*.tflite"))
	require.NotEmpty(t, shared, "no shared models")
	for _, d := range devs {
		if d.Kernels != "cmsis-nn" {
			continue
		}
		t.Run(d.Target, func(t *testing.T) {
			ran := 0
			for _, in := range shared {
				orig, err := tflmrun.Run(d.Bin, in)
				require.NoError(t, err)
				if !orig.OK {
					continue // the device has no kernel for it (an NPU operator)
				}
				ran++
				for _, method := range []string{"auto", "freelist"} {
					t.Run(filepath.Base(in)+"/"+method, func(t *testing.T) {
						out := filepath.Join(t.TempDir(), "planned.tflite")
						code, _, stderr := cli(t, "", "plan", in, "--target", d.Target, "--method", method, "-o", out, "--time-limit", "5s")
						require.Equal(t, 0, code, stderr)
						assert.Contains(t, stderr, "target="+d.Target+" kernels=cmsis-nn")
						assert.Contains(t, stderr, fmt.Sprintf("TFLite Micro's own planner: %d", orig.Head))
						run, err := tflmrun.Run(d.Bin, out)
						require.NoError(t, err)
						require.True(t, run.OK, run.Text)
						assert.Equal(t, orig.Outputs, run.Outputs, "outputs differ")
						assert.Equal(t, 0, run.Mismatched, "offline offsets not honoured")
						assert.Equal(t, run.Head, statedPeak(t, stderr), "stated peak is not the device's head")
						assert.LessOrEqual(t, run.Head, orig.Head, "above TFLite Micro's own planner on the device")
					})
				}
			}
			assert.NotZero(t, ran)
		})
	}
}

// TestTargetFlags: --target and --kernels name what a figure is for in the
// summary and in --json, and a wrong name is one usage line, exit 2.
func TestTargetFlags(t *testing.T) {
	in := needTFLite(t, "trained_lstm_int8.tflite")
	tests := []struct {
		args             []string
		summary, jsonOut string
	}{
		{nil, "target=host kernels=reference", `"target": "host"`},
		{[]string{"--target", "cortex-m4"}, "target=cortex-m4 kernels=cmsis-nn", `"code_path": "DSP"`},
		{[]string{"--target", "m55"}, "target=cortex-m55 kernels=cmsis-nn", `"code_path": "MVE"`},
		{[]string{"--target", "cortex-m0"}, "target=cortex-m0 kernels=cmsis-nn", `"code_path": "plain C"`},
		{[]string{"--target", "cortex-m4", "--kernels", "reference"}, "target=cortex-m4 kernels=reference", `"kernels": "reference"`},
		{[]string{"--target", "cortex-m7", "--no-scratch"}, "target=cortex-m7 kernels=none", `"kernels": ""`},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, stdout, stderr := cli(t, "", append([]string{"plan", in, "--json", "--time-limit", "2s"}, tc.args...)...)
			require.Equal(t, 0, code, stderr)
			assert.Contains(t, stderr, tc.summary)
			assert.Contains(t, stdout, tc.jsonOut)
			assert.Contains(t, stdout, `"tflm_own_head"`)
		})
	}
	// The CMSIS-NN LSTM asks for 3 gate buffers, the reference one for 4.
	_, _, ref := cli(t, "", "plan", in, "--target", "cortex-m4", "--kernels", "reference", "--explain")
	assert.Contains(t, ref, "scratch=4 ")
	_, stdout, cm := cli(t, "", "plan", in, "--target", "cortex-m4", "--explain")
	assert.Contains(t, cm, "scratch=3 ")
	assert.Contains(t, stdout, "(cmsis-nn kernels, DSP path on cortex-m4;")

	for _, bad := range [][]string{
		{"plan", in, "--target", "cortex-m99"},
		{"plan", in, "--kernels", "xtensa"},
		{"plan", "../../examples/tiny-cnn.csv", "--target", "cortex-m4"},
	} {
		out := filepath.Join(t.TempDir(), "plan.csv")
		code, _, stderr := cli(t, "", append(bad, "-o", out)...)
		assert.Equal(t, 2, code, stderr)
		assert.Equal(t, 1, strings.Count(strings.TrimSpace(stderr), "\n")+1, stderr)
		assert.NoFileExists(t, out)
	}
}
