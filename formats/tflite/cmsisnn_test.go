package tflite

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/formats/tflite/internal/schema"
	"github.com/optalloc/optalloc/internal/tflmrun"
)

// tflmCortexM is TFLite Micro built for emulated Cortex-M CPUs
// (../shared/tflm-cortexm): the ground truth for the scratch the kernels
// that ship request.
const tflmCortexM = "../../../shared/tflm-cortexm"

func cortexMDevices(t *testing.T) []tflmrun.Device {
	t.Helper()
	devs, why := tflmrun.Devices(tflmCortexM)
	if len(devs) == 0 {
		t.Skip(why)
	}
	return devs
}

// deviceModels lists the shared and example models and the built kernel
// models, as files; built marks the latter.
func deviceModels(t *testing.T) (files []string, built map[string]bool) {
	t.Helper()
	files, _ = filepath.Glob(filepath.Join(sharedModels, "*.tflite"))
	ex, _ := filepath.Glob("../../examples/*.tflite")
	files = append(files, ex...)
	dir := t.TempDir()
	built = map[string]bool{}
	for name, g := range kernelModels() {
		p := filepath.Join(dir, name+".tflite")
		require.NoError(t, os.WriteFile(p, buildModel(g...), 0o644))
		files = append(files, p)
		built[p] = true
	}
	for name, g := range cmsisModels() {
		p := filepath.Join(dir, "cmsis_"+name+".tflite")
		require.NoError(t, os.WriteFile(p, buildModel(g...), 0o644))
		files = append(files, p)
		built[p] = true
	}
	return files, built
}

// TestScratchMatchesDevices: on every emulated device, for every model
// the device allocates, the scratch requests optalloc computes for that
// target equal the buffer list TFLite Micro's planner got there —
// count, order, size and lifetime.
func TestScratchMatchesDevices(t *testing.T) {
	devs := cortexMDevices(t)
	models, built := deviceModels(t)
	// A model that allocates and then halts in a kernel (fc_s8_3d's 1×1
	// convolution does, with its zero weights, under QEMU) is stopped.
	t.Setenv("QEMU_TIMEOUT", "8")
	for _, d := range devs {
		target, err := NewTarget(d.Target, d.Kernels)
		require.NoError(t, err)
		t.Run(d.Target+"-"+d.Kernels, func(t *testing.T) {
			ran := 0
			for _, path := range models {
				list := filepath.Join(t.TempDir(), "buffers.csv")
				_, err := tflmrun.Run(d.Bin, path, "--dump-buffers", list)
				require.NoError(t, err)
				if _, err := os.Stat(list); err != nil {
					// The device cannot allocate this model: only the shared
					// ones may be such (person_detect_vela's NPU operator).
					require.False(t, built[path], "a built model does not allocate on %s", d.Bin)
					continue
				}
				ran++
				t.Run(filepath.Base(path), func(t *testing.T) {
					m, err := ReadFile(path)
					require.NoError(t, err)
					reqs, skipped, _, err := m.Scratch(target)
					require.NoError(t, err)
					assert.Empty(t, skipped)
					rec, err := ReadBufferList(list, m)
					require.NoError(t, err)
					require.Len(t, reqs, len(rec), "scratch requests")
					for k := range rec {
						assert.Equal(t, rec[k].Bytes, alignUp(reqs[k].Bytes), "s%d (%s) bytes", k, reqs[k].Op)
						assert.Equal(t, rec[k].First, reqs[k].First, "s%d first", k)
						assert.Equal(t, rec[k].Last, reqs[k].Last, "s%d last", k)
					}
				})
			}
			assert.NotZero(t, ran, "no model runs on %s", d.Bin)
		})
	}
}

// TestCMSISScratchRecorded: the built models' requests, rounded to the
// arena's alignment, as tflm_cm recorded them (2026-11-28, --dump-buffers
// on the Cortex-M4 and M55 builds): a check that runs without QEMU.
func TestCMSISScratchRecorded(t *testing.T) {
	tests := []struct {
		model   string
		m4, m55 []int64
	}{
		{"avgpool_s8", []int64{32}, nil},
		{"avgpool_s16", []int64{32}, nil},
		{"batch_matmul_s8", nil, []int64{32}},
		{"conv_s16", []int64{112}, []int64{256}},
		{"conv_s8_1x1", nil, nil},
		{"conv_s8_1x1_stride", nil, nil},
		{"conv_s8_1xn", []int64{48}, []int64{16}},
		{"conv_s8_1xn_asym", []int64{64}, []int64{32}},
		{"conv_s8_3x3", []int64{144}, []int64{192}},
		{"conv_s8_dilated", []int64{112}, []int64{128}},
		{"conv_s8_int4", []int64{144}, []int64{192}},
		{"dw_s16", nil, nil},
		{"dw_s8_3x3", nil, []int64{4464}},
		{"dw_s8_5x5", []int64{208}, []int64{12400}},
		{"dw_s8_dilated", nil, nil},
		{"dw_s8_int4", []int64{208}, []int64{12400}},
		{"dw_s8_mult2", nil, nil},
		{"dw_s8_one_channel", nil, []int64{144}},
		{"fc_s16", nil, nil},
		{"fc_s8_3d", []int64{64}, []int64{64}},
		{"fc_s8_3d_channel", nil, nil},
		{"fc_s8_3d_odd", nil, nil},
		{"fc_s8_const", nil, nil},
		{"fc_s8_variable", nil, []int64{32}},
		{"transpose_conv_s8", []int64{336, 0}, []int64{336, 0}},
		{"transpose_conv_s8_reverse", []int64{720, 544}, []int64{768, 544}},
	}
	models := cmsisModels()
	m4, err := NewTarget("cortex-m4", "")
	require.NoError(t, err)
	m55, err := NewTarget("cortex-m55", "")
	require.NoError(t, err)
	for _, tc := range tests {
		t.Run(tc.model, func(t *testing.T) {
			g, ok := models[tc.model]
			require.True(t, ok)
			m, err := Decode(buildModel(g...), tc.model)
			require.NoError(t, err)
			for _, c := range []struct {
				target Target
				want   []int64
			}{{m4, tc.m4}, {m55, tc.m55}} {
				reqs, skipped, unknown, err := m.Scratch(c.target)
				require.NoError(t, err)
				assert.Empty(t, skipped)
				assert.Empty(t, unknown)
				var got []int64
				for _, r := range reqs {
					got = append(got, alignUp(r.Bytes))
				}
				assert.Equal(t, c.want, got, "%s", c.target)
			}
		})
	}
}

func TestNewTarget(t *testing.T) {
	tests := []struct {
		name, kernels, want string
		ptr                 int64
	}{
		{"", "", "host, reference kernels", 8},
		{"host", "cmsis-nn", "host, cmsis-nn kernels (plain C)", 8},
		{"cortex-m0", "", "cortex-m0, cmsis-nn kernels (plain C)", 4},
		{"m3", "", "cortex-m3, cmsis-nn kernels (plain C)", 4},
		{"Cortex-M4", "", "cortex-m4, cmsis-nn kernels (DSP)", 4},
		{"cortex-m33", "", "cortex-m33, cmsis-nn kernels (DSP)", 4},
		{"cortex-m85", "", "cortex-m85, cmsis-nn kernels (MVE)", 4},
		{"cortex-m55", "reference", "cortex-m55, reference kernels", 4},
	}
	for _, tc := range tests {
		tg, err := NewTarget(tc.name, tc.kernels)
		require.NoError(t, err)
		assert.Equal(t, tc.want, tg.String())
		assert.Equal(t, tc.ptr, tg.PointerBytes())
	}
	assert.Equal(t, "host, reference kernels", Target{}.String())
	_, err := NewTarget("cortex-a53", "")
	assert.ErrorContains(t, err, "want one of host, cortex-m0")
	_, err = NewTarget("", "esp-nn")
	assert.ErrorContains(t, err, "unknown kernel set")
}

// TestUnknownScratchIsReported: a custom operator optalloc has no model
// of is named, never silently counted as no scratch.
func TestUnknownScratchIsReported(t *testing.T) {
	g := gspec{tensors: []tspec{f32("x", 4), f32("y", 4)},
		ops: []ospec{{code: schema.BuiltinOperatorCUSTOM, custom: "MyVendorOp", in: []int32{0}, out: []int32{1}}},
		in:  []int32{0}, out: []int32{1}}
	m, err := Decode(buildModel(g), "custom.tflite")
	require.NoError(t, err)
	for _, name := range []string{"host", "cortex-m4"} {
		tg, err := NewTarget(name, "")
		require.NoError(t, err)
		a, err := m.ArenaWith(ArenaOptions{Target: tg})
		require.NoError(t, err)
		require.Len(t, a.Unknown, 1)
		assert.Contains(t, a.Unknown[0], `custom operator "MyVendorOp" (1 in the model)`)
	}
}

// randomConvModels are n convolutions and depthwise convolutions of random
// shapes, strides, dilations, paddings and types (a fixed seed).
func randomConvModels(n int, seed uint64) map[string][]gspec {
	r := rand.New(rand.NewPCG(seed, 0))
	pick := func(v ...int32) int32 { return v[r.IntN(len(v))] }
	out := map[string][]gspec{}
	for len(out) < n {
		c := convSpec{act: schema.TensorTypeINT8, depthwise: r.IntN(2) == 0,
			stride: [2]int32{pick(1, 1, 2, 3), pick(1, 1, 2)}, dilation: [2]int32{pick(1, 1, 1, 2), pick(1, 1, 2)}}
		if r.IntN(4) == 0 {
			c.act = schema.TensorTypeINT16
		} else if r.IntN(4) == 0 {
			c.filterType = schema.TensorTypeINT4
		}
		h, w := pick(1, 1, 3, 5, 8), pick(4, 7, 9, 16)
		ic := pick(1, 2, 3, 4, 8, 20)
		fh, fw := pick(1, 1, 2, 3, 5), pick(1, 2, 3, 4, 5)
		if h == 1 {
			fh, c.dilation[1] = 1, 1
		}
		c.pad = schema.PaddingSAME
		if r.IntN(2) == 0 {
			c.pad = schema.PaddingVALID
		}
		size := func(in, f, s, d int32) int32 {
			if c.pad == schema.PaddingSAME {
				return (in + s - 1) / s
			}
			return (in + s - ((f-1)*d + 1)) / s
		}
		oh, ow := size(h, fh, c.stride[1], c.dilation[1]), size(w, fw, c.stride[0], c.dilation[0])
		if oh <= 0 || ow <= 0 {
			continue
		}
		oc := pick(1, 3, 4, 8, 16)
		c.in = []int32{1, h, w, ic}
		if c.depthwise {
			oc = ic * pick(1, 1, 2, 8)
			c.filter = []int32{1, fh, fw, oc}
		} else {
			c.filter = []int32{oc, fh, fw, ic}
		}
		c.out = []int32{1, oh, ow, oc}
		out[fmt.Sprintf("random%02d", len(out))] = convModel(c)
	}
	return out
}

// TestRandomConvScratchMatchesDevices: random convolutions, each run on
// every emulated device: the requests optalloc computes equal the list
// the device's planner got.
func TestRandomConvScratchMatchesDevices(t *testing.T) {
	devs := cortexMDevices(t)
	dir := t.TempDir()
	models := randomConvModels(24, 40)
	for _, name := range slices.Sorted(maps.Keys(models)) {
		path := filepath.Join(dir, name+".tflite")
		require.NoError(t, os.WriteFile(path, buildModel(models[name]...), 0o644))
		m, err := ReadFile(path)
		require.NoError(t, err)
		for _, d := range devs {
			target, err := NewTarget(d.Target, d.Kernels)
			require.NoError(t, err)
			list := filepath.Join(dir, "buffers.csv")
			_ = os.Remove(list)
			r, err := tflmrun.Run(d.Bin, path, "--dump-buffers", list)
			require.NoError(t, err)
			rec, err := ReadBufferList(list, m)
			require.NoError(t, err, "%s on %s:\n%s", name, d.Bin, r.Text)
			reqs, skipped, _, err := m.Scratch(target)
			require.NoError(t, err)
			require.Empty(t, skipped)
			require.Len(t, reqs, len(rec), "%s on %s", name, d.Target)
			for k := range rec {
				assert.Equal(t, rec[k].Bytes, alignUp(reqs[k].Bytes), "%s on %s %s: s%d", name, d.Target, d.Kernels, k)
			}
		}
	}
}
