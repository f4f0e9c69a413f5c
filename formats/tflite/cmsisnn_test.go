package tflite

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
// models, as files.
func deviceModels(t *testing.T) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(sharedModels, "*.tflite"))
	ex, _ := filepath.Glob("../../examples/*.tflite")
	files = append(files, ex...)
	dir := t.TempDir()
	for name, g := range kernelModels() {
		p := filepath.Join(dir, name+".tflite")
		require.NoError(t, os.WriteFile(p, buildModel(g...), 0o644))
		files = append(files, p)
	}
	for name, g := range cmsisModels() {
		p := filepath.Join(dir, "cmsis_"+name+".tflite")
		require.NoError(t, os.WriteFile(p, buildModel(g...), 0o644))
		files = append(files, p)
	}
	return files
}

// TestScratchMatchesDevices: on every emulated device, for every model
// the device allocates, the scratch requests optalloc computes for that
// target equal the buffer list TFLite Micro's planner got there —
// count, order, size and lifetime.
func TestScratchMatchesDevices(t *testing.T) {
	devs := cortexMDevices(t)
	models := deviceModels(t)
	for _, d := range devs {
		target, err := NewTarget(d.Target, d.Kernels)
		require.NoError(t, err)
		t.Run(d.Target+"-"+d.Kernels, func(t *testing.T) {
			ran := 0
			for _, path := range models {
				list := filepath.Join(t.TempDir(), "buffers.csv")
				r, err := tflmrun.Run(d.Bin, path, "--dump-buffers", list)
				require.NoError(t, err)
				if !r.OK {
					continue // the device cannot allocate this model
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
