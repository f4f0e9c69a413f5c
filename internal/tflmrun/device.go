package tflmrun

import (
	"os/exec"
	"path/filepath"
)

// Device is a build of TFLite Micro for a Cortex-M target, emulated by
// qemu-system-arm (../shared/tflm-cortexm beside the repository; see its
// README): tflm_cm prints tflm_run's lines.
type Device struct {
	// Target is the optalloc target the build runs ("cortex-m4", ...)
	// and Kernels its kernel set ("cmsis-nn", "reference").
	Target, Kernels string
	// Bin is the path of its tflm_cm script.
	Bin string
}

// devices are the builds ../shared/tflm-cortexm holds: folder, target,
// kernel set.
var devices = []Device{
	{"cortex-m4", "cmsis-nn", "cortex-m4-cmsis_nn"},
	{"cortex-m55", "cmsis-nn", "cortex-m55-cmsis_nn"},
	{"cortex-m4", "reference", "cortex-m4-reference"},
}

// Devices returns the emulated builds found under dir (the
// tflm-cortexm folder), and why there are none: the folder is absent or
// qemu-system-arm is not installed.
func Devices(dir string) ([]Device, string) {
	if _, err := exec.LookPath("qemu-system-arm"); err != nil {
		return nil, "qemu-system-arm is not installed (apt-get install qemu-system-arm): the emulated Cortex-M checks are skipped"
	}
	var out []Device
	for _, d := range devices {
		if bin, ok := Find(filepath.Join(dir, d.Bin, "tflm_cm")); ok {
			out = append(out, Device{Target: d.Target, Kernels: d.Kernels, Bin: bin})
		}
	}
	if len(out) == 0 {
		return nil, "no tflm_cm under " + dir + " (../shared/tflm-cortexm beside the repository): the emulated Cortex-M checks are skipped"
	}
	return out, ""
}
