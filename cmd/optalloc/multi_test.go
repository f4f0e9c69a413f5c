package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/internal/tflmrun"
)

func sharedModel(t *testing.T, name string) string {
	t.Helper()
	p := filepath.Join(sharedTFLite, name+".tflite")
	if _, err := os.Stat(p); err != nil {
		t.Skipf("%s is absent (the shared models sit beside the repository)", p)
	}
	return p
}

// TestPlanSeveralModels: the summary of several models planned on one
// TFLite Micro arena, and the files written.
func TestPlanSeveralModels(t *testing.T) {
	kws, speech, person := sharedModel(t, "keyword_scrambled_8bit"), sharedModel(t, "micro_speech_quantized"), sharedModel(t, "person_detect")
	dir := t.TempDir()
	sched := filepath.Join(dir, "sched.txt")
	require.NoError(t, os.WriteFile(sched, []byte("# the speech models together, then the camera\nkeyword_scrambled_8bit, micro_speech_quantized\nperson_detect\n"), 0o666))
	for _, tc := range []struct {
		name   string
		args   []string
		peak   int64
		layout string
	}{
		// Serial: the largest model's head (TFLite Micro reserves it once).
		{"serial", []string{kws, speech, person}, 55296, "schedule=serial"},
		// Concurrent: the scratch-using keyword model lowest, the other above.
		{"concurrent", []string{kws, speech, "--schedule", "concurrent"}, 672 + 5968, "schedule=concurrent"},
		{"file", []string{kws, speech, person, "--schedule", sched}, 55296, "schedule=" + sched},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "planned") + "/"
			args := append([]string{"plan", "-o", out, "--explain"}, tc.args...)
			code, stdout, stderr := cli(t, "", args...)
			require.Equal(t, 0, code, stderr)
			assert.Equal(t, tc.peak, statedPeak(t, stderr))
			assert.Contains(t, stderr, "status=optimal")
			assert.Contains(t, stderr, tc.layout)
			assert.Contains(t, stdout, "a TFLite Micro arena never holds weights")
			files, _ := filepath.Glob(out + "*.tflite")
			assert.Len(t, files, len(tc.args)-strings.Count(strings.Join(tc.args, " "), "--schedule")*2)
		})
	}
}

// TestPlanSeveralModelsRefuses: bad input is one line, exit 2 (exit 1
// when no layout exists), and nothing is written.
func TestPlanSeveralModelsRefuses(t *testing.T) {
	kws, speech, hello := sharedModel(t, "keyword_scrambled_8bit"), sharedModel(t, "micro_speech_quantized"), sharedModel(t, "hello_world_int8")
	dir := t.TempDir()
	badSched := filepath.Join(dir, "bad.txt")
	require.NoError(t, os.WriteFile(badSched, []byte("keyword_scrambled_8bit\nmicro_speech\n"), 0o666))
	file := filepath.Join(dir, "file.tflite")
	require.NoError(t, os.WriteFile(file, []byte("x"), 0o666))
	for _, tc := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"schedule file", []string{kws, speech, "--schedule", badSched}, 2, badSched + `:2: unknown model "micro_speech"`},
		{"schedule word", []string{kws, speech, "--schedule", "sequential"}, 2, "want serial, concurrent or a schedule file"},
		{"handoff sizes", []string{hello, speech, "--handoff", "hello_world_int8:output0=micro_speech_quantized:input0"}, 2, `handoff hello_world_int8:output0 (tensor "StatefulPartitionedCall:0", INT8, 1 bytes) = micro_speech_quantized:input0`},
		{"handoff model", []string{hello, speech, "--handoff", "hello:output0=micro_speech_quantized:input0"}, 2, `unknown model "hello"`},
		{"output is a file", []string{kws, speech, "-o", file}, 2, "-o names a folder"},
		{"output is an input", []string{kws, speech, "-o", sharedTFLite}, 2, "is the input"},
		{"not tflite", []string{kws, "../../examples/unet.graph.json"}, 2, "is not a .tflite model"},
		{"two scratch models at once", []string{kws, kws, "--schedule", "concurrent"}, 1, "kernel scratch"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out") + "/"
			args := append([]string{"plan"}, tc.args...)
			if !strings.Contains(strings.Join(tc.args, " "), "-o ") {
				args = append(args, "-o", out)
			}
			code, stdout, stderr := cli(t, "", args...)
			assert.Equal(t, tc.code, code, stderr)
			assert.Contains(t, stderr, tc.msg)
			assert.Equal(t, 1, strings.Count(stderr, "\n"), stderr)
			assert.Empty(t, stdout)
			_, err := os.Stat(out)
			assert.True(t, os.IsNotExist(err), "something was written")
		})
	}
}

// tflmMulti is tools/tflm_multi's binary: $TFLM_MULTI, else where
// tools/tflm_multi/build.sh puts it by default.
func tflmMulti(t *testing.T) string {
	t.Helper()
	bin, ok := tflmrun.Find(os.Getenv("TFLM_MULTI"), "../../tools/tflm_multi/out/bin/tflm_multi")
	if !ok {
		t.Skip("tflm_multi is absent: build it with tools/tflm_multi/build.sh (about 7 minutes, so CI does not), or set TFLM_MULTI; the several-models runtime checks are skipped")
	}
	return bin
}

// TestSeveralModelsOnTheRealRuntime plans the shared models together,
// writes them and runs them on one MicroAllocator with tools/tflm_multi:
// every output is identical to the original model run alone, models run
// at the same time share no byte, the shared head TFLite Micro reserves is
// exactly the peak stated, and, run serially, it is never above TFLite
// Micro's own planner's on one allocator.
func TestSeveralModelsOnTheRealRuntime(t *testing.T) {
	bin := tflmMulti(t)
	kws, speech, person, hello := sharedModel(t, "keyword_scrambled_8bit"), sharedModel(t, "micro_speech_quantized"), sharedModel(t, "person_detect"), sharedModel(t, "hello_world_int8")
	for _, tc := range []struct {
		name     string
		models   []string
		schedule string
		// handoff: plan's --handoff and tflm_multi's (model indices)
		handoff, driver string
	}{
		{"serial", []string{kws, speech, person}, "serial", "", ""},
		{"serial reversed", []string{person, speech, kws}, "serial", "", ""},
		{"concurrent", []string{kws, speech}, "concurrent", "", ""},
		{"concurrent three", []string{speech, hello, kws}, "concurrent", "", ""},
		// The second model reads the first one's output where it lies.
		{"handoff", []string{hello, kws, hello}, "serial", "hello_world_int8:output0=hello_world_int8_2:input0", "0:0=2:0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := t.TempDir() + "/"
			args := append([]string{"plan", "-o", out, "--schedule", tc.schedule}, tc.models...)
			var extra []string
			if tc.handoff != "" {
				args = append(args, "--handoff", tc.handoff)
				extra = []string{"--handoff", tc.driver}
			}
			code, _, stderr := cli(t, "", args...)
			require.Equal(t, 0, code, stderr)
			stage := func(paths []string) []string {
				if tc.schedule == "concurrent" {
					return []string{strings.Join(paths, ",")}
				}
				return paths
			}
			var planned []string
			used := map[string]bool{}
			for _, m := range tc.models {
				planned = append(planned, filepath.Join(out, modelName(m, used)+".tflite"))
			}
			orig, err := tflmrun.RunMulti(bin, append(extra, stage(tc.models)...)...)
			require.NoError(t, err)
			got, err := tflmrun.RunMulti(bin, append(extra, stage(planned)...)...)
			require.NoError(t, err)
			require.True(t, got.OK, got.Text)
			assert.Equal(t, orig.AloneOutputs, got.SharedOutputs, "outputs differ from each original model alone")
			assert.Equal(t, statedPeak(t, stderr), got.Head, "the stated shared arena is not the runtime's head")
			switch {
			case tc.handoff != "":
				// TFLite Micro's own offsets do not put the two tensors at
				// one offset: the second model reads no handoff.
				assert.False(t, orig.OK, orig.Text)
			case tc.schedule == "serial":
				require.True(t, orig.OK, orig.Text)
				assert.LessOrEqual(t, got.Head, orig.Head, "above TFLite Micro's own planner on one allocator")
			default:
				assert.Equal(t, "ok", got.Concurrent)
			}
		})
	}
}

// TestPlanSeveralONNXModels: two Silero VAD models, serially (the one
// model's arena) and together (never above the two stacked), each plan
// written relative to the shared arena.
func TestPlanSeveralONNXModels(t *testing.T) {
	if _, err := os.Stat(sileroPath); err != nil {
		t.Skipf("shared ONNX model not found at %s", sileroPath)
	}
	code, _, stderr := cli(t, "", append([]string{"plan", sileroPath, "--time-limit", "5s"}, sileroDims...)...)
	require.Equal(t, 0, code, stderr)
	one := statedPeak(t, stderr)
	for _, tc := range []struct {
		schedule string
		max      int64
	}{{"serial", one}, {"concurrent", (one+63)/64*64 + one}} {
		t.Run(tc.schedule, func(t *testing.T) {
			out := t.TempDir() + "/"
			code, _, stderr := cli(t, "", append([]string{"plan", sileroPath, sileroPath, "--schedule", tc.schedule, "-o", out, "--time-limit", "5s"}, sileroDims...)...)
			require.Equal(t, 0, code, stderr)
			assert.LessOrEqual(t, statedPeak(t, stderr), tc.max)
			assert.GreaterOrEqual(t, statedPeak(t, stderr), one)
			for _, name := range []string{"silero_vad_v5", "silero_vad_v5_2"} {
				code, stdout, stderr := cli(t, "", append([]string{"verify", sileroPath, filepath.Join(out, name+".plan.json")}, sileroDims...)...)
				assert.Equal(t, 0, code, stderr)
				assert.Contains(t, stdout, "valid")
			}
		})
	}
}
