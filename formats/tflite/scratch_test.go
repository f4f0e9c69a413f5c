package tflite

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/model"
)

// tflmRun is TFLite Micro's real runtime on the host (../shared/tflm).
const tflmRun = "../../../shared/tflm/tflm_run"

// runnableModels lists the shared and example .tflite models that
// tflm_run allocates with the reference kernels (not person_detect_vela,
// whose NPU operator has no reference kernel, nor cellnet, whose weights
// are stubs), skipping when tflm_run is absent.
func runnableModels(t *testing.T) []string {
	t.Helper()
	if _, err := os.Stat(tflmRun); err != nil {
		t.Skipf("%s is absent: the TFLite Micro runtime checks are skipped", tflmRun)
	}
	files := sharedFiles(t)
	ex, _ := filepath.Glob("../../examples/*.tflite")
	var out []string
	for _, f := range append(files, ex...) {
		if exec.Command(tflmRun, f, "--no-tensors").Run() == nil {
			out = append(out, f)
		}
	}
	return out
}

// dumpBuffers runs tflm_run --dump-buffers on a model and returns the CSV's path.
func dumpBuffers(t *testing.T, path string) string {
	t.Helper()
	csvPath := filepath.Join(t.TempDir(), "buffers.csv")
	out, err := exec.Command(tflmRun, path, "--dump-buffers", csvPath).CombinedOutput()
	require.NoError(t, err, "tflm_run %s: %s", path, out)
	return csvPath
}

// TestReferenceScratchMatchesTFLM: the scratch requests computed from the
// reference kernels' Prepare, and every tensor's lifetime and size, equal
// the buffer list TFLite Micro's planner really got, model by model.
func TestReferenceScratchMatchesTFLM(t *testing.T) {
	for _, path := range runnableModels(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			m, err := ReadFile(path)
			require.NoError(t, err)
			a, err := m.Arena()
			require.NoError(t, err)
			// The recorded list checks every tensor row against the model
			// and returns TFLite Micro's scratch rows.
			rec, err := ReadBufferList(dumpBuffers(t, path), m)
			require.NoError(t, err)
			require.Len(t, a.Scratch, len(rec), "scratch requests")
			for k := range rec {
				assert.Equal(t, alignUp(rec[k].Bytes), alignUp(a.Scratch[k].Bytes), "s%d bytes", k)
				assert.Equal(t, rec[k].First, a.Scratch[k].First, "s%d first", k)
				assert.Equal(t, rec[k].Last, a.Scratch[k].Last, "s%d last", k)
			}
		})
	}
}

// TestScratchOfSharedModels names the requests of the two shared models
// whose kernels ask for scratch: SVDF (two int32 arrays per int8 op) and
// the LSTM (four int16 state arrays).
func TestScratchOfSharedModels(t *testing.T) {
	tests := []struct {
		file  string
		ops   []string
		bytes []int64
	}{
		{"keyword_scrambled_8bit.tflite", []string{"SVDF"}, []int64{256, 256, 256, 256, 256, 256, 256, 256, 128, 128, 128, 128, 128, 128}},
		{"trained_lstm_int8.tflite", []string{"UNIDIRECTIONAL_SEQUENCE_LSTM"}, []int64{40, 40, 40, 40}},
		{"person_detect.tflite", nil, nil},
	}
	sharedFiles(t)
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			m, err := ReadFile(filepath.Join(sharedModels, tc.file))
			require.NoError(t, err)
			reqs, skipped, err := m.ReferenceScratch(8)
			require.NoError(t, err)
			assert.Empty(t, skipped)
			var ops []string
			var bytes []int64
			for _, r := range reqs {
				if len(ops) == 0 || ops[len(ops)-1] != r.Op {
					ops = append(ops, r.Op)
				}
				bytes = append(bytes, r.Bytes)
				assert.Equal(t, r.First, r.Last, "a plain operator's scratch lives in its own scope")
			}
			assert.Equal(t, tc.ops, ops)
			assert.Equal(t, tc.bytes, bytes)
			a, err := m.ArenaWith(ArenaOptions{NoScratch: true})
			require.NoError(t, err)
			assert.Empty(t, a.Scratch)
			assert.Empty(t, a.Kernels)
			assert.Len(t, a.Problem.Buffers, len(a.Tensors))
		})
	}
}

func TestDecodeBufferListErrors(t *testing.T) {
	sharedFiles(t)
	m, err := ReadFile(filepath.Join(sharedModels, "trained_lstm_int8.tflite"))
	require.NoError(t, err)
	good := "id,lower,upper,size\nt0_0,1,3,784\nt0_23,2,4,560\nt0_24,3,5,560\nt0_25,4,6,16\nt0_26,5,6,16\n"
	tests := []struct {
		name, csv, err string
	}{
		{"empty", "", "empty"},
		{"no size column", "id,lower,upper\n", `no "size" column`},
		{"a tensor of another model", strings.Replace(good, "t0_0,1,3,784", "t0_0,1,3,800", 1), "recorded from another model"},
		{"a tensor missing", strings.Replace(good, "t0_26,5,6,16\n", "", 1), "4 rows, the model has 5"},
		{"a tensor of another index", strings.Replace(good, "t0_23,", "t0_22,", 1), `row "t0_22" where tensor t0_23`},
		{"a tensor too many", good + "t0_27,5,6,16\n", "this is one more"},
		{"scratch out of order", good + "s1,2,3,48\n", "want s0"},
		{"negative size", good + "s0,2,3,-48\n", "not a non-negative integer"},
		{"lifetime past the model", good + "s0,2,99,48\n", "does not fit"},
		{"empty lifetime", good + "s0,3,3,16\n", ":7: lifetime [3, 3) is empty"},
		{"size past any arena", good + "s0,3,4,9223372036854775807\n", ":7: size 9223372036854775807 is more than any arena holds"},
		{"tensor after scratch", good + "s0,2,3,48\nt0_0,1,3,784\n", "this is one more"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeBufferList(strings.NewReader(tc.csv), "list.csv", m)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.err)
			assert.True(t, strings.HasPrefix(err.Error(), "list.csv"), err.Error())
		})
	}
	reqs, err := DecodeBufferList(strings.NewReader(good+"s0,2,3,48\n"), "list.csv", m)
	require.NoError(t, err)
	assert.Equal(t, []ScratchRequest{{Bytes: 48, Node: -1, Subgraph: -1, Op: "recorded", First: 1, Last: 1}}, reqs)
	// A device's recording names rows by position (docs/tflite.md).
	device := "id,lower,upper,size\nb0,1,3,784\nb1,2,4,560\nb2,3,5,560\nb3,4,6,16\nb4,5,6,16\nb5,2,3,48\n"
	reqs, err = DecodeBufferList(strings.NewReader(device), "device.csv", m)
	require.NoError(t, err)
	assert.Len(t, reqs, 1)
}

// FuzzDecodeBufferList: any bytes give scratch requests or an InputError.
func FuzzDecodeBufferList(f *testing.F) {
	data, err := os.ReadFile(filepath.Join(sharedModels, "trained_lstm_int8.tflite"))
	if err != nil {
		f.Skip("the shared models are absent")
	}
	m, err := Decode(data, "lstm.tflite")
	if err != nil {
		f.Fatal(err)
	}
	f.Add([]byte("id,lower,upper,size\nt0_0,1,3,784\nt0_23,2,4,560\nt0_24,3,5,560\nt0_25,4,6,16\nt0_26,5,6,16\ns0,2,3,48\n"))
	f.Add([]byte("id,lower,upper,size\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		reqs, err := DecodeBufferList(bytes.NewReader(b), "list.csv", m)
		if err != nil {
			var ie *model.InputError
			require.ErrorAs(t, err, &ie)
			return
		}
		for _, r := range reqs {
			require.GreaterOrEqual(t, r.Bytes, int64(0))
			require.LessOrEqual(t, r.First, r.Last+1)
		}
	})
}

// TestScratchSizeOverflows: scratch sizes past 64 bits are refused with the
// operator named (../shared/hostile/r4/scratch: a MEAN whose STRING axis
// has 2^62 elements wrapped its scratch to 0 bytes, exit 0; 5·2^59 and an
// INT4 filter of 2^63−1 elements gave "size -N is negative").
func TestScratchSizeOverflows(t *testing.T) {
	dir := filepath.Join(sharedModels, "..", "..", "hostile", "r4", "scratch")
	for name, want := range map[string]string{
		"mean_axis_wrap.tflite": "operator 0 (MEAN) of subgraph 0: its scratch size overflows 64 bits",
		"mean_axis_neg.tflite":  "operator 0 (MEAN) of subgraph 0: its scratch size overflows 64 bits",
		"conv_int4_max.tflite":  "operator 0 (CONV_2D) of subgraph 0: its scratch size overflows 64 bits",
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name)
			if _, err := os.Stat(path); err != nil {
				t.Skip("the shared hostile files are absent")
			}
			m, err := ReadFile(path)
			require.NoError(t, err)
			_, _, err = m.ReferenceScratch(8)
			require.Error(t, err)
			assert.Contains(t, err.Error(), want)
			var ie *model.InputError
			assert.ErrorAs(t, err, &ie)
		})
	}
}
