package tflite

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/device"
	"github.com/optalloc/optalloc/formats/tflite/internal/schema"
	"github.com/optalloc/optalloc/internal/tflmrun"
	"github.com/optalloc/optalloc/solve"
)

func f32(name string, shape ...int32) tspec {
	return tspec{name: name, shape: shape, typ: schema.TensorTypeFLOAT32}
}

func typed(typ schema.TensorType, name string, shape ...int32) tspec {
	return tspec{name: name, shape: shape, typ: typ}
}

// rfftOptions is the FlexBuffers map {"T": typ, "fft_length": n} of a
// SignalRfft operator (one-byte widths, as flexbuffers' Builder writes
// small maps).
func rfftOptions(typ schema.TensorType, n byte) []byte {
	return []byte{
		'T', 0, // key 0 at 0
		'f', 'f', 't', '_', 'l', 'e', 'n', 'g', 't', 'h', 0, // key 1 at 2
		2, 14, 13, // keys vector: length, then offsets back to each key (at 14, 15)
		2, 1, 2, // map: offset back to the keys vector (at 16), key width, length
		byte(typ), n, // values at 19, 20
		1 << 2, 1 << 2, // their types: INT, width 1
		4, 9 << 2, 1, // root: offset back to the values (at 23), type MAP, root width 1
	}
}

func reduceOp(code schema.BuiltinOperator, in, axis, out int32) ospec {
	return ospec{code: code, in: []int32{in, axis}, out: []int32{out},
		options: &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsReducerOptions, Value: &schema.ReducerOptionsT{}}}
}

// kernelModels are one-operator (and a few several-operator) models of the
// kernels that request scratch, small enough for TFLite Micro's reference
// kernels to prepare and run with zero weights.
func kernelModels() map[string][]gspec {
	axis := tspec{name: "axis", shape: []int32{1}, typ: schema.TensorTypeINT32, constant: true}
	reduce := func(code schema.BuiltinOperator) []gspec {
		return []gspec{{tensors: []tspec{f32("x", 2, 3), axis, f32("y", 3)}, ops: []ospec{reduceOp(code, 0, 1, 2)}, in: []int32{0}, out: []int32{2}}}
	}
	rfft := func(typ schema.TensorType) []gspec {
		return []gspec{{tensors: []tspec{typed(typ, "frame", 8), typed(typ, "spectrum", 10)},
			ops: []ospec{{code: schema.BuiltinOperatorCUSTOM, custom: "SignalRfft", in: []int32{0}, out: []int32{1}, flex: rfftOptions(typ, 8)}},
			in:  []int32{0}, out: []int32{1}}}
	}
	return map[string][]gspec{
		"reduce_max": reduce(schema.BuiltinOperatorREDUCE_MAX),
		"reduce_min": reduce(schema.BuiltinOperatorREDUCE_MIN),
		"sum":        reduce(schema.BuiltinOperatorSUM),
		"mean":       reduce(schema.BuiltinOperatorMEAN),
		"mirror_pad": {{tensors: []tspec{f32("x", 1, 4, 4, 1), {name: "pad", shape: []int32{4, 2}, typ: schema.TensorTypeINT32, constant: true}, f32("y", 1, 4, 4, 1)},
			ops: []ospec{{code: schema.BuiltinOperatorMIRROR_PAD, in: []int32{0, 1}, out: []int32{2},
				options: &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsMirrorPadOptions, Value: &schema.MirrorPadOptionsT{}}}},
			in: []int32{0}, out: []int32{2}}},
		"add_n": {{tensors: []tspec{f32("a", 4), f32("b", 4), f32("c", 4), f32("sum", 4)},
			ops: []ospec{{code: schema.BuiltinOperatorADD_N, in: []int32{0, 1, 2}, out: []int32{3},
				options: &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsAddNOptions, Value: &schema.AddNOptionsT{}}}},
			in: []int32{0, 1, 2}, out: []int32{3}}},
		"svdf_float": {{tensors: []tspec{f32("x", 1, 3), {name: "wf", shape: []int32{4, 3}, typ: schema.TensorTypeFLOAT32, constant: true},
			{name: "wt", shape: []int32{4, 2}, typ: schema.TensorTypeFLOAT32, constant: true}, {name: "bias", shape: []int32{4}, typ: schema.TensorTypeFLOAT32, constant: true},
			{name: "state", shape: []int32{1, 8}, typ: schema.TensorTypeFLOAT32, variable: true}, f32("y", 1, 4)},
			ops: []ospec{{code: schema.BuiltinOperatorSVDF, in: []int32{0, 1, 2, 3, 4}, out: []int32{5},
				options: &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsSVDFOptions, Value: &schema.SVDFOptionsT{Rank: 1}}}},
			in: []int32{0}, out: []int32{5}}},
		"rfft_int16":   rfft(schema.TensorTypeINT16),
		"rfft_int32":   rfft(schema.TensorTypeINT32),
		"rfft_float32": rfft(schema.TensorTypeFLOAT32),
		// IF calls a subgraph per branch; the scratch of their operators
		// lives in the branches' scopes, inside the IF's.
		"if_branches": {
			{tensors: []tspec{typed(schema.TensorTypeBOOL, "cond", 1), f32("x", 2, 3), f32("y", 3)},
				ops: []ospec{{code: schema.BuiltinOperatorIF, in: []int32{0, 1}, out: []int32{2}, callees: []int32{1, 2}}},
				in:  []int32{0, 1}, out: []int32{2}},
			{tensors: []tspec{f32("x", 2, 3), axis, f32("y", 3)}, ops: []ospec{reduceOp(schema.BuiltinOperatorREDUCE_MAX, 0, 1, 2)}, in: []int32{0}, out: []int32{2}},
			{tensors: []tspec{f32("x", 2, 3), axis, f32("y", 3)}, ops: []ospec{reduceOp(schema.BuiltinOperatorSUM, 0, 1, 2)}, in: []int32{0}, out: []int32{2}},
		},
		// A chain: the scratch of each operator lives in its own scope,
		// among tensors of several lifetimes.
		"chain": {{tensors: []tspec{f32("x", 1, 4, 4, 1), {name: "pad", shape: []int32{4, 2}, typ: schema.TensorTypeINT32, constant: true}, f32("p", 1, 4, 4, 1),
			{name: "axis", shape: []int32{1}, typ: schema.TensorTypeINT32, constant: true}, f32("s", 4, 4, 1), f32("m", 4, 4, 1), f32("n", 4, 4, 1)},
			ops: []ospec{
				{code: schema.BuiltinOperatorMIRROR_PAD, in: []int32{0, 1}, out: []int32{2},
					options: &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsMirrorPadOptions, Value: &schema.MirrorPadOptionsT{}}},
				reduceOp(schema.BuiltinOperatorSUM, 2, 3, 4),
				reduceOp(schema.BuiltinOperatorREDUCE_MAX, 2, 3, 5),
				{code: schema.BuiltinOperatorADD_N, in: []int32{4, 5, 4}, out: []int32{6},
					options: &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsAddNOptions, Value: &schema.AddNOptionsT{}}},
			},
			in: []int32{0}, out: []int32{6}}},
	}
}

// TestKernelScratchMatchesTFLM builds a model per requesting kernel and
// checks the requests computed from the kernel's Prepare against the
// buffer list the real runtime's planner got (tflm_run --dump-buffers):
// count, order, size and lifetime, op by op.
func TestKernelScratchMatchesTFLM(t *testing.T) {
	if _, err := os.Stat(tflmRun); err != nil {
		t.Skipf("%s is absent: the TFLite Micro runtime checks are skipped", tflmRun)
	}
	for name, g := range kernelModels() {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), name+".tflite")
			require.NoError(t, os.WriteFile(path, buildModel(g...), 0o644))
			m, err := ReadFile(path)
			require.NoError(t, err)
			reqs, skipped, err := m.ReferenceScratch(8)
			require.NoError(t, err)
			require.Empty(t, skipped)
			require.NotEmpty(t, reqs, "the model exercises no scratch request")
			list := filepath.Join(t.TempDir(), "buffers.csv")
			out, err := exec.Command(tflmRun, path, "--dump-buffers", list).CombinedOutput()
			require.NoError(t, err, "tflm_run refuses the test model: %s", out)
			rec, err := ReadBufferList(list, m)
			require.NoError(t, err)
			require.Len(t, reqs, len(rec))
			for k := range rec {
				assert.Equal(t, rec[k].Bytes, alignUp(reqs[k].Bytes), "s%d (%s) bytes", k, reqs[k].Op)
				assert.Equal(t, rec[k].First, reqs[k].First, "s%d first", k)
				assert.Equal(t, rec[k].Last, reqs[k].Last, "s%d last", k)
			}
		})
	}
}

func TestFlexMap(t *testing.T) {
	b := rfftOptions(schema.TensorTypeINT32, 64)
	m, err := parseFlexMap(b)
	require.NoError(t, err)
	n, err := m.Int("fft_length")
	require.NoError(t, err)
	assert.Equal(t, int64(64), n)
	typ, err := m.Int("T")
	require.NoError(t, err)
	assert.Equal(t, int64(schema.TensorTypeINT32), typ)
	raw, err := m.RawInt(1)
	require.NoError(t, err)
	assert.Equal(t, int64(64), raw)
	missing, err := m.Int("num_classes")
	require.NoError(t, err)
	assert.Zero(t, missing, "a missing key reads as null: 0")
	_, err = m.RawInt(2)
	assert.Error(t, err)
	for cut := range len(b) {
		_, err := parseFlexMap(b[:cut])
		assert.Error(t, err, "truncated to %d bytes", cut)
	}
}

func FuzzFlexMap(f *testing.F) {
	f.Add(rfftOptions(schema.TensorTypeINT16, 8))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := parseFlexMap(b)
		if err != nil {
			return
		}
		for i := range m.n {
			_, _ = m.key(i)
			_, _ = m.element(i)
			_, _ = m.RawInt(i)
		}
		_, _ = m.Int("fft_length")
	})
}

// TestKernelModelsOnTheDevice plans each kernel model's device arena
// (device.SolveTFLM), writes the tensors' offsets into the model and runs
// it: TFLite Micro honours every offset, computes the same outputs, and
// reports exactly the head stated, never more than with its own planner.
// The IF model also checks the offline plan of several subgraphs.
func TestKernelModelsOnTheDevice(t *testing.T) {
	if _, err := os.Stat(tflmRun); err != nil {
		t.Skipf("%s is absent: the TFLite Micro runtime checks are skipped", tflmRun)
	}
	for name, g := range kernelModels() {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, name+".tflite")
			require.NoError(t, os.WriteFile(path, buildModel(g...), 0o644))
			m, err := ReadFile(path)
			require.NoError(t, err)
			a, err := m.Arena()
			require.NoError(t, err)
			res, out, err := device.SolveTFLM(context.Background(), a.Problem, a.Online(), solve.Options{TimeLimit: 5 * time.Second, Threads: 1})
			require.NoError(t, err)
			require.NotNil(t, res.Plan)
			off, err := a.OfflinePlan(m, res.Plan)
			require.NoError(t, err)
			data, err := m.WithOfflinePlan(off)
			require.NoError(t, err)
			planned := filepath.Join(dir, "planned.tflite")
			require.NoError(t, os.WriteFile(planned, data, 0o644))
			orig, err := tflmrun.Run(tflmRun, path)
			require.NoError(t, err)
			require.True(t, orig.OK, orig.Text)
			run, err := tflmrun.Run(tflmRun, planned)
			require.NoError(t, err)
			require.True(t, run.OK, run.Text)
			assert.True(t, run.Verified, "the written model fails TFLite's flatbuffer verifier")
			assert.Equal(t, 0, run.Mismatched)
			assert.Equal(t, orig.Outputs, run.Outputs)
			assert.Equal(t, res.Peak, run.Head, "stated peak is not the device's head")
			assert.Equal(t, orig.Head, out.TFLMHead, "the replica of TFLite Micro's planner")
			assert.LessOrEqual(t, run.Head, orig.Head)
		})
	}
}

// ifModelTestdata is the IF model of kernelModels, kept for the CLI's
// tests (which cannot build models: the schema is internal here).
const ifModelTestdata = "../../cmd/optalloc/testdata/if_branches.tflite"

// TestIfModelTestdataUpToDate: the CLI's IF model is buildModel's output;
// OPTALLOC_UPDATE_TESTDATA=1 rewrites it.
func TestIfModelTestdataUpToDate(t *testing.T) {
	data := buildModel(kernelModels()["if_branches"]...)
	if os.Getenv("OPTALLOC_UPDATE_TESTDATA") == "1" {
		require.NoError(t, os.WriteFile(ifModelTestdata, data, 0o644))
	}
	have, err := os.ReadFile(ifModelTestdata)
	require.NoError(t, err)
	assert.Equal(t, data, have, "%s is stale: rerun with OPTALLOC_UPDATE_TESTDATA=1", ifModelTestdata)
}
