package tflite

import (
	"fmt"
	"slices"
	"strings"

	"github.com/optalloc/optalloc/formats/tflite/internal/cmsisnn"
)

// CMSISNNKernels names the kernel set of TFLite Micro built with
// OPTIMIZED_KERNEL_DIR=cmsis_nn: Arm's CMSIS-NN kernels for Cortex-M.
const CMSISNNKernels = "cmsis-nn"

// HostTarget names the default target: TFLite Micro's reference kernels on
// a 64-bit host, as ../shared/tflm/tflm_run builds them.
const HostTarget = "host"

// Target is the device a model's arena is planned for: the kernel set
// whose scratch requests the arena holds, the code path CMSIS-NN takes on
// its CPU, and its pointer width. The zero Target is the host's.
type Target struct {
	name    string
	kernels string
	path    cmsisnn.Path
	ptr     int64
}

// cpu is a Cortex-M CPU: the CMSIS-NN code path GCC's -mcpu selects
// (__ARM_FEATURE_DSP, __ARM_FEATURE_MVE, each CPU's default extensions).
type cpu struct {
	name string
	path cmsisnn.Path
}

var cpus = []cpu{
	{"cortex-m0", cmsisnn.C}, {"cortex-m0plus", cmsisnn.C}, {"cortex-m3", cmsisnn.C},
	{"cortex-m4", cmsisnn.DSP}, {"cortex-m7", cmsisnn.DSP}, {"cortex-m33", cmsisnn.DSP}, {"cortex-m35p", cmsisnn.DSP},
	{"cortex-m55", cmsisnn.MVE}, {"cortex-m85", cmsisnn.MVE},
}

// TargetNames lists the names NewTarget takes.
func TargetNames() []string {
	names := []string{HostTarget}
	for _, c := range cpus {
		names = append(names, c.name)
	}
	return names
}

// NewTarget returns the target of a name (TargetNames; "" is the host)
// with its default kernel set — the reference kernels on the host,
// CMSIS-NN on a Cortex-M — or the kernel set given (ReferenceKernels,
// CMSISNNKernels; "" for the default). CMSIS-NN on the host takes its
// plain C path.
func NewTarget(name, kernels string) (Target, error) {
	t := Target{name: HostTarget, kernels: ReferenceKernels, path: cmsisnn.C, ptr: 8}
	if name != "" && name != HostTarget {
		n := strings.ToLower(name)
		if !strings.HasPrefix(n, "cortex-") {
			n = "cortex-" + n
		}
		i := slices.IndexFunc(cpus, func(c cpu) bool { return c.name == n })
		if i < 0 {
			return Target{}, fmt.Errorf("unknown target %q (want one of %s)", name, strings.Join(TargetNames(), ", "))
		}
		t = Target{name: cpus[i].name, kernels: CMSISNNKernels, path: cpus[i].path, ptr: 4}
	}
	switch strings.ToLower(kernels) {
	case "":
	case ReferenceKernels:
		t.kernels = ReferenceKernels
	case CMSISNNKernels, "cmsis_nn", "cmsisnn":
		t.kernels = CMSISNNKernels
	default:
		return Target{}, fmt.Errorf("unknown kernel set %q (want %s or %s)", kernels, ReferenceKernels, CMSISNNKernels)
	}
	return t, nil
}

func (t Target) orHost() Target {
	if t.name == "" {
		t, _ = NewTarget("", "")
	}
	return t
}

// Name is the target's name ("host", "cortex-m4", ...).
func (t Target) Name() string { return t.orHost().name }

// Kernels is the kernel set: ReferenceKernels or CMSISNNKernels.
func (t Target) Kernels() string { return t.orHost().kernels }

// PointerBytes is the target's pointer width: 8 on the host, 4 on a
// Cortex-M.
func (t Target) PointerBytes() int64 { return t.orHost().ptr }

// CodePath names the code path CMSIS-NN takes on the target ("plain C",
// "DSP", "MVE"); "" for the reference kernels.
func (t Target) CodePath() string {
	if t.Kernels() != CMSISNNKernels {
		return ""
	}
	return t.orHost().path.String()
}

// String names the target and its kernel set: "host, reference kernels",
// "cortex-m4, cmsis-nn kernels (DSP)".
func (t Target) String() string {
	s := t.Name() + ", " + t.Kernels() + " kernels"
	if p := t.CodePath(); p != "" {
		s += " (" + p + ")"
	}
	return s
}
