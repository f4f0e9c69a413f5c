package optalloc

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/optalloc/optalloc/device"
	etdevice "github.com/optalloc/optalloc/device/executorch"
	"github.com/optalloc/optalloc/device/tflm"
	"github.com/optalloc/optalloc/formats"
	etfmt "github.com/optalloc/optalloc/formats/executorch"
	"github.com/optalloc/optalloc/formats/onnx"
	"github.com/optalloc/optalloc/formats/tflite"
	"github.com/optalloc/optalloc/model"

	// The model-file front ends register their suffixes with formats.Load.
	_ "github.com/optalloc/optalloc/formats/events"
	_ "github.com/optalloc/optalloc/formats/graph"
)

// LoadOptions say how Load reads an input. The zero value reads every
// format with its defaults.
type LoadOptions struct {
	// TFLite is passed to tflite.Model.ArenaWith for a .tflite model (the
	// CLI's --no-scratch, and the target's kernels).
	TFLite tflite.ArenaOptions
	// ScratchList, when not "", names the kernels' scratch requests
	// recorded on the target (the CLI's --scratch: CSV as 'tflm_run
	// --dump-buffers' writes it), read with tflite.ReadBufferList into
	// TFLite.Recorded. It is an input: Write never writes onto it.
	ScratchList string
	// Dims fixes symbolic dimensions of an ONNX model (the CLI's --dim).
	Dims map[string]int64
	// Stdin is what the path "-" reads; nil means os.Stdin.
	Stdin io.Reader
}

// Input is a loaded input: the problem to plan and its runtime back end.
type Input struct {
	// Name is the path given to Load ("-" for standard input) or the name
	// given to LoadBytes.
	Name string
	// Problem is the problem Plan plans. A caller may replace it by a
	// changed copy (pools added, say) before planning: the runtime's
	// buffers are then those of the copy when it still has them all.
	Problem *model.Problem
	// Warnings are lines about the input that do not stop planning (an
	// ONNX If planned both ways, operators whose scratch is unknown).
	Warnings []string

	files []string       // files read: never written
	rt    device.Runtime // the runtime back end; nil for a problem alone
}

// NewInput makes an input of a problem built in memory. online, when not
// nil, marks the buffers a TFLite-Micro-like runtime places itself around
// the plan (its greedy planner, online): Plan then plans the device's arena.
func NewInput(name string, p *model.Problem, online []bool) *Input {
	in := &Input{Name: name, Problem: p}
	if online != nil {
		in.rt = device.Greedy{Flags: online}
	}
	return in
}

// WithProblem returns a copy of in that plans p, a changed copy of
// in.Problem (the same buffers, in the same order, for the runtime's to
// stay known).
func (in *Input) WithProblem(p *model.Problem) *Input {
	c := *in
	c.Problem = p
	return &c
}

// Protect adds files that Write must never write onto (a baseline, a
// second input).
func (in *Input) Protect(paths ...string) {
	for _, p := range paths {
		if p != "" && p != "-" {
			in.files = append(in.files, p)
		}
	}
}

// TFLite returns the TFLite model read and its arena (nil, nil for other
// inputs).
func (in *Input) TFLite() (*tflite.Model, *tflite.Arena) {
	if t, ok := in.rt.(*tflm.Runtime); ok {
		return t.Model, t.Arena
	}
	return nil, nil
}

// Runtime is the input's runtime back end (tflm.Runtime for a TFLite model),
// nil for a problem alone.
func (in *Input) Runtime() device.Runtime { return in.rt }

// Online marks the buffers of in.Problem the runtime places itself (TFLite
// Micro's kernel scratch buffers); nil when there are none, or when the
// problem was changed so that they are no longer the runtime's (other
// buffers, several pools).
func (in *Input) Online() []bool {
	if in.rt == nil {
		return nil
	}
	return in.rt.Online(in.Problem)
}

// isSuffix reports whether path ends in suffix, ignoring case.
func isSuffix(path, suffix string) bool { return strings.HasSuffix(strings.ToLower(path), suffix) }

// Load reads the input at path, its format chosen by its suffix as the CLI
// chooses it; "-" reads opt.Stdin and sniffs the format. A device
// (/dev/zero) is refused without being opened, unless it is this process's
// own standard input. Bad input is a *model.InputError.
func Load(path string, opt LoadOptions) (in *Input, err error) {
	if path == "-" {
		r := opt.Stdin
		if r == nil {
			r = os.Stdin
		}
		data, err := io.ReadAll(r)
		if err != nil {
			return nil, &model.InputError{File: "<stdin>", Msg: err.Error()}
		}
		in, err := LoadBytes("<stdin>", data, opt)
		if in != nil {
			in.Name = "-"
		}
		return in, err
	}
	defer recoverReader(path, &err)
	if err := CheckInputFile(path); err != nil {
		return nil, err
	}
	in = &Input{Name: path, files: []string{path}}
	switch {
	case isSuffix(path, ".onnx"):
		if err := opt.onlyTFLite(path); err != nil {
			return nil, err
		}
		a, err := onnx.LoadFile(path, onnx.Options{Dims: opt.Dims})
		if err != nil {
			return nil, err
		}
		in.Problem, in.Warnings = a.Problem, OpenConditions(path, a)
	case isSuffix(path, ".tflite"):
		m, err := tflite.ReadFile(path)
		if err != nil {
			return nil, err
		}
		if err := in.useTFLite(m, opt); err != nil {
			return nil, err
		}
	case isSuffix(path, ".json") && etfmt.SniffFile(path):
		if err := opt.onlyTFLite(path); err != nil {
			return nil, err
		}
		f, err := etfmt.ReadFile(path)
		if err != nil {
			return nil, err
		}
		in.useExecuTorch(f)
	default:
		if err := opt.onlyTFLite(path); err != nil {
			return nil, err
		}
		if in.Problem, err = formats.Load(path); err != nil {
			return nil, err
		}
	}
	return in, nil
}

// LoadBytes reads an input held in memory, its format sniffed as for
// standard input; name is used in messages.
func LoadBytes(name string, data []byte, opt LoadOptions) (in *Input, err error) {
	defer recoverReader(name, &err)
	in = &Input{Name: name}
	switch {
	case onnx.Sniff(data):
		if err := opt.onlyTFLite(name); err != nil {
			return nil, err
		}
		m, err := onnx.Decode(data, name)
		if err != nil {
			return nil, err
		}
		a, err := m.Arena(onnx.Options{Dims: opt.Dims})
		if err != nil {
			return nil, err
		}
		in.Problem, in.Warnings = a.Problem, OpenConditions(name, a)
	case tflite.Sniff(data):
		m, err := tflite.Decode(data, name)
		if err != nil {
			return nil, err
		}
		if err := in.useTFLite(m, opt); err != nil {
			return nil, err
		}
	case etfmt.Sniff(data):
		if err := opt.onlyTFLite(name); err != nil {
			return nil, err
		}
		f, err := etfmt.Read(bytes.NewReader(data), name)
		if err != nil {
			return nil, err
		}
		in.useExecuTorch(f)
	default:
		if err := opt.onlyTFLite(name); err != nil {
			return nil, err
		}
		if in.Problem, err = formats.LoadBytes(data, name); err != nil {
			return nil, err
		}
	}
	return in, nil
}

// onlyTFLite refuses the TFLite options on an input that is not a TFLite
// model.
func (opt LoadOptions) onlyTFLite(name string) error {
	if opt.ScratchList != "" {
		return &model.InputError{File: name, Msg: "is not a TFLite model: a scratch list (" + opt.ScratchList + ") applies to .tflite models"}
	}
	return nil
}

// recoverReader turns a reader's panic (a bug) into one line.
func recoverReader(name string, err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("reading %s failed: %v (a bug in optalloc; please report it with the file)", name, r)
	}
}

// useTFLite builds the arena of a TFLite model with opt.
func (in *Input) useTFLite(m *tflite.Model, opt LoadOptions) error {
	ao := opt.TFLite
	if list := opt.ScratchList; list != "" {
		if ao.NoScratch {
			return &model.InputError{File: list, Msg: "a recorded scratch list and no scratch contradict each other; give one"}
		}
		if err := CheckInputFile(list); err != nil {
			return err
		}
		reqs, err := tflite.ReadBufferList(list, m)
		if err != nil {
			return err
		}
		ao.Recorded, ao.RecordedFrom = reqs, list
		in.files = append(in.files, list)
	}
	a, err := m.ArenaWith(ao)
	if err != nil {
		return err
	}
	if len(a.ScratchSkipped) > 0 {
		w := m.Name + ": " + a.ScratchSkipped[0]
		if n := len(a.ScratchSkipped) - 1; n > 0 {
			w += fmt.Sprintf(" (and %d more operators)", n)
		}
		in.Warnings = append(in.Warnings, w)
	}
	if len(a.Unknown) > 0 && a.Kernels != "" && ao.Recorded == nil {
		in.Warnings = append(in.Warnings, fmt.Sprintf("%s: %s; the arena stated for %s may be smaller than the device's: record the device's buffer list and give it with --scratch (docs/tflite.md)",
			m.Name, strings.Join(a.Unknown, "; "), a.Target))
	}
	in.Problem, in.rt = a.Problem, &tflm.Runtime{Model: m, Arena: a}
	return nil
}

// useExecuTorch makes in the specs file's problem, with ExecuTorch's
// planning rules as its runtime.
func (in *Input) useExecuTorch(f *etfmt.File) {
	rt := etdevice.New(f)
	in.Problem, in.rt = rt.Arena.Problem, rt
}

// OpenConditions is the warning about an ONNX model's If nodes whose
// condition was left open (both branches planned: a larger arena than the
// device's, which runs one).
func OpenConditions(name string, a *onnx.Arena) []string {
	if len(a.OpenConditions) == 0 {
		return nil
	}
	w := name + ": " + a.OpenConditions[0]
	if n := len(a.OpenConditions) - 1; n > 0 {
		w += fmt.Sprintf(" (and %d more If nodes)", n)
	}
	return []string{w}
}

// CheckInputFile refuses an input that is a device (/dev/zero would be read
// without end) unless it is this process's own standard input (/dev/stdin
// on a terminal): a file, a pipe, a FIFO or "-" pass. It never opens a
// device to find out (opening one can act: a watchdog starts, a tape
// rewinds).
func CheckInputFile(path string) error {
	if path == "-" {
		return nil
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode()&os.ModeDevice == 0 {
		return nil // the reader says what is wrong with a missing file
	}
	if in, err := os.Stdin.Stat(); err == nil && os.SameFile(fi, in) {
		return nil
	}
	return &model.InputError{File: path, Msg: "is a device, not a file: give a file, a pipe, or - for standard input"}
}
