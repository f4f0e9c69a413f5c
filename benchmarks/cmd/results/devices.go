package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/optalloc/optalloc"
	"github.com/optalloc/optalloc/corpus"
	"github.com/optalloc/optalloc/formats/tflite"
	"github.com/optalloc/optalloc/internal/report"
	"github.com/optalloc/optalloc/internal/tflmrun"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/solve"
)

// The markers of the devices table.
const (
	devicesBegin = "<!-- devices:begin -->"
	devicesEnd   = "<!-- devices:end -->"
)

// devicesTable plans every TFLite model for each device — the host's
// reference build (tflm_run) and the emulated Cortex-M builds with CMSIS-NN
// (tflm_cm) — runs the planned model there and writes the table: per
// device the head optalloc states (which must be the head the device
// reports, with outputs identical and every offset honoured) and TFLite
// Micro's own head there; then what the host's plan states and gives on
// each Cortex-M (the figure a user got before --target).
func devicesTable(ctx context.Context, dir string, extra []string, tflm, cortexM string, limit time.Duration, out, readme string, meta corpus.Meta) error {
	paths, err := findModels(dir, extra)
	if err != nil {
		return err
	}
	paths = slices.DeleteFunc(paths, func(p string) bool { return !strings.HasSuffix(p, ".tflite") })
	devs, why := tflmrun.Devices(cortexM)
	if len(devs) == 0 {
		return fmt.Errorf("-devices: %s", why)
	}
	devs = slices.DeleteFunc(devs, func(d tflmrun.Device) bool { return d.Kernels != tflite.CMSISNNKernels })
	host, ok := tflmrun.Find(tflm)
	if !ok {
		return fmt.Errorf("-devices: no tflm_run at %s", tflm)
	}
	devs = append([]tflmrun.Device{{Target: tflite.HostTarget, Kernels: tflite.ReferenceKernels, Bin: host}}, devs...)

	var b bytes.Buffer
	fmt.Fprintf(&b, "Measured %s on %s, %s, optalloc %s; time limit %s.",
		meta.Date.UTC().Format("2006-01-02 15:04 MST"), meta.Machine, meta.GoVersion, meta.Revision, meta.TimeLimit)
	fmt.Fprintf(&b, "\nRegenerate with `%s`.\n", meta.Command)
	b.WriteString("Each model planned with `--target` for the device, written, and run there: host = `tflm_run` (reference kernels); " +
		"Cortex-M = `tflm_cm` under QEMU (CMSIS-NN kernels). A cell is optalloc's stated arena, which the device reported as its " +
		"`arena_head` (outputs identical, every offline offset honoured), / TFLite Micro's own head on that device; – where the device " +
		"has no kernel for the model. The last columns are the host plan (no `--target`) on each Cortex-M: stated → reported.\n\n")
	b.WriteString("| model | scratch buffers (host / M4 / M55) |")
	for _, d := range devs {
		fmt.Fprintf(&b, " %s |", d.Target)
	}
	for _, d := range devs[1:] {
		fmt.Fprintf(&b, " host plan on %s |", d.Target)
	}
	b.WriteString("\n|---|--:|" + strings.Repeat("--:|", 2*len(devs)-1) + "\n")
	for _, path := range paths {
		var scratch []string
		var cells, before []string
		var hostPlan []byte
		var hostPeak int64
		for i, d := range devs {
			t, err := tflite.NewTarget(d.Target, d.Kernels)
			if err != nil {
				return err
			}
			in, err := optalloc.Load(path, optalloc.LoadOptions{TFLite: tflite.ArenaOptions{Target: t}})
			if err != nil {
				return err
			}
			if _, a := in.TFLite(); a != nil {
				scratch = append(scratch, fmt.Sprint(len(a.Scratch)))
			}
			res, err := optalloc.Plan(ctx, in, optalloc.Options{Options: solve.Options{TimeLimit: limit, Threads: 1}})
			if err != nil || res.Plan == nil {
				return fmt.Errorf("%s on %s: no plan (%v)", path, d.Target, err)
			}
			data, err := withPlan(in, path, res.Plan)
			if err != nil {
				return err
			}
			if i == 0 {
				hostPlan, hostPeak = data, res.Peak
			}
			own, err := tflmrun.Run(d.Bin, path)
			if err != nil {
				return err
			}
			if !own.OK {
				cells = append(cells, "–")
				if i > 0 {
					before = append(before, "–")
				}
				continue
			}
			run, err := runPlanned(d.Bin, path, data, own)
			if err != nil {
				return err
			}
			if run.Head != res.Peak {
				return fmt.Errorf("%s on %s: optalloc states %d but the device's head is %d", path, d.Target, res.Peak, run.Head)
			}
			if run.Head > own.Head {
				return fmt.Errorf("%s on %s: head %d above TFLite Micro's own %d", path, d.Target, run.Head, own.Head)
			}
			fmt.Fprintf(os.Stderr, "%-50s %-11s stated=head=%d own=%d\n", path, d.Target, run.Head, own.Head)
			cells = append(cells, fmt.Sprintf("**%d** / %d", run.Head, own.Head))
			if i > 0 {
				old, err := runPlanned(d.Bin, path, hostPlan, own)
				if err != nil {
					return err
				}
				c := fmt.Sprintf("%d → %d", hostPeak, old.Head)
				if old.Head != hostPeak {
					c = fmt.Sprintf("%d → **%d** (wrong)", hostPeak, old.Head)
				}
				if old.Head > own.Head {
					c += fmt.Sprintf(", above TFLM's %d", own.Head)
				}
				before = append(before, c)
			}
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", modelName(path), strings.Join(scratch, " / "), strings.Join(cells, " | "), strings.Join(before, " | "))
	}
	return report.Write(b.Bytes(), out, readme, devicesBegin, devicesEnd)
}

// withPlan is the model in with the plan's tensor offsets as its offline
// plan: what optalloc plan -o writes (the door's write-back, read back and
// checked), named as path.
func withPlan(in *optalloc.Input, path string, plan *model.Plan) ([]byte, error) {
	enc, err := in.Encode(path, plan)
	if err != nil {
		return nil, err
	}
	return enc.Data, nil
}

// runPlanned runs a planned model on a device and checks it against the
// model's own run: it runs, honours every offset, computes the same
// outputs.
func runPlanned(bin, path string, data []byte, own tflmrun.Report) (tflmrun.Report, error) {
	run, err := runBytes(bin, path, data)
	switch {
	case err != nil:
		return run, err
	case !run.OK:
		return run, fmt.Errorf("%s: TFLite Micro fails on the plan:\n%s", path, run.Text)
	case run.Mismatched != 0:
		return run, fmt.Errorf("%s: %d offline offsets not honoured", path, run.Mismatched)
	case !slices.Equal(run.Outputs, own.Outputs):
		return run, fmt.Errorf("%s: outputs differ from the model's own run", path)
	}
	return run, nil
}

// runBytes runs a model held in memory (named as path) on a device, from a
// file in a temporary folder of its own.
func runBytes(bin, path string, data []byte) (tflmrun.Report, error) {
	dir, err := os.MkdirTemp("", "optalloc-results-")
	if err != nil {
		return tflmrun.Report{}, err
	}
	defer os.RemoveAll(dir)
	planned := filepath.Join(dir, filepath.Base(path))
	if err := os.WriteFile(planned, data, 0o644); err != nil {
		return tflmrun.Report{}, err
	}
	return tflmrun.Run(bin, planned)
}
