package optalloc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/optalloc/optalloc/bounds"
	"github.com/optalloc/optalloc/formats/csv"
	"github.com/optalloc/optalloc/formats/jsonfmt"
	"github.com/optalloc/optalloc/internal/atomicfile"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/viz"
)

// Suffixes are the formats Write chooses by a path's suffix.
var Suffixes = []string{".csv", ".json", ".tflite", ".svg", ".html"}

// Encoded is a plan as Write would write it.
type Encoded struct {
	Data []byte
	// Notes are lines about the file written that do not stop the write
	// (a model's older offline plans kept, runtimes that misread it).
	Notes []string
}

// formatOf is the format of an output path: a suffix of Suffixes, ".csv"
// for "-" (standard output).
func formatOf(path string) (string, error) {
	if path == "-" {
		return ".csv", nil
	}
	ext := strings.ToLower(filepath.Ext(path))
	if slices.Contains(Suffixes, ext) {
		return ext, nil
	}
	what := "suffix " + strconv.Quote(ext)
	if ext == "" {
		what = "no suffix"
	}
	return "", &model.InputError{File: path, Msg: fmt.Sprintf("%s; the plan's format is chosen by the suffix: %s", what, strings.Join(Suffixes, ", "))}
}

// CheckWrite reports, before any planning, why Write could not write a plan
// of in to path whatever the plan: an unknown suffix, a file Load read (or
// Protect names), a file that is not a regular file, a missing folder, a
// read-only file, a .tflite output for an input that is not a TFLite
// model, or one whose arena cannot fit TFLite Micro's int32 offsets.
func (in *Input) CheckWrite(path string) error {
	if path == "-" {
		return nil
	}
	format, err := formatOf(path)
	if err != nil {
		return err
	}
	if err := in.checkTarget(path); err != nil {
		return err
	}
	if format == ".tflite" {
		return in.checkTFLite(path)
	}
	return nil
}

// checkTFLite is CheckWrite for a .tflite output.
func (in *Input) checkTFLite(path string) error {
	m, _ := in.TFLite()
	if m == nil {
		return &model.InputError{File: path, Msg: "a .tflite output is a copy of the input TFLite model carrying the plan; " + in.Name + " is not a TFLite model"}
	}
	if n := len(in.Problem.PoolList()); n > 1 {
		return &model.InputError{File: path, Msg: fmt.Sprintf("TFLite Micro's offline plan is one arena; the problem has %d pools", n)}
	}
	if err := m.Writable(); err != nil {
		return &model.InputError{File: in.Name, Msg: strings.TrimPrefix(err.Error(), m.Name+" ")}
	}
	if lb := bounds.MaxLive(in.Problem); lb > 1<<31-1 {
		return &model.InputError{File: path, Msg: fmt.Sprintf("the arena needs at least %d bytes, past the int32 offsets of TFLite Micro's offline plan", lb)}
	}
	return nil
}

// ResolveLinks follows the symlinks of path, even a dangling one, to the
// file a write must change (the CLI's staged outputs use it too).
func ResolveLinks(path string) (string, error) { return atomicfile.ResolveLinks(path) }

// checkTarget applies the rules on the file itself: not an input, a
// regular file or a new one in a folder that exists.
func (in *Input) checkTarget(path string) error {
	fail := func(msg string) error { return &model.InputError{File: path, Msg: msg} }
	target, err := ResolveLinks(path)
	if err != nil {
		return fail("cannot write: " + err.Error())
	}
	fi, err := os.Stat(target)
	switch {
	case err == nil && fi.IsDir():
		return fail("cannot write: it is a directory")
	case err == nil && !fi.Mode().IsRegular():
		return fail("is not a regular file (a device, a FIFO or a socket): a plan is written to a regular file, or - for standard output")
	case err == nil:
		for _, f := range in.files {
			if ifi, err := os.Stat(f); err == nil && os.SameFile(fi, ifi) {
				return fail("is the input " + f + " (the same file); write the plan elsewhere")
			}
		}
		if fi.Mode().Perm()&0o222 == 0 || !atomicfile.CanWrite(target) {
			return fail("cannot write: it is read-only")
		}
	case !errors.Is(err, iofs.ErrNotExist):
		return fail("cannot write: " + unwrap(err))
	}
	dir := filepath.Dir(target)
	dfi, err := os.Stat(dir)
	switch {
	case errors.Is(err, iofs.ErrNotExist):
		return fail(fmt.Sprintf("cannot write: the folder %s does not exist (create it first: mkdir -p %s)", dir, dir))
	case err != nil:
		return fail("cannot write: " + unwrap(err))
	case !dfi.IsDir():
		return fail("cannot write: " + dir + " is not a directory")
	}
	return nil
}

func unwrap(err error) string {
	var pe *iofs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// ownFormat is a runtime whose own file has a suffix Write chooses
// (ExecuTorch's specs: .json): a plan written to that suffix is the
// runtime's file (its WriteBack), not the generic format.
type ownFormat interface{ Format() string }

// Encode returns what Write writes to path for plan, a plan of in.Problem,
// without writing it: CSV for "-".
func (in *Input) Encode(path string, plan *model.Plan) (*Encoded, error) {
	format, err := formatOf(path)
	if err != nil {
		return nil, err
	}
	p := in.Problem
	if plan == nil || len(plan.Placements) != len(p.Buffers) {
		return nil, fmt.Errorf("%s: the plan is not of %s (a bug)", path, in.Name)
	}
	if of, ok := in.rt.(ownFormat); ok && of.Format() == format {
		data, notes, err := in.rt.WriteBack(context.Background(), p, plan, path)
		if err != nil {
			return nil, err
		}
		return &Encoded{Data: data, Notes: notes}, nil
	}
	var buf bytes.Buffer
	switch format {
	case ".tflite":
		if err := in.checkTFLite(path); err != nil {
			return nil, err
		}
		data, notes, err := in.rt.WriteBack(context.Background(), p, plan, path)
		if err != nil {
			return nil, err
		}
		return &Encoded{Data: data, Notes: notes}, nil
	case ".json":
		err = jsonfmt.WritePlan(&buf, p, plan)
	case ".svg":
		err = viz.WriteSVG(&buf, p, plan, viz.Options{})
	case ".html":
		err = viz.WriteHTML(&buf, p, plan, viz.Options{})
	default:
		err = csv.Write(&buf, p, plan)
	}
	if err != nil {
		return nil, fmt.Errorf("writing %s: %w", path, err)
	}
	return &Encoded{Data: buf.Bytes()}, nil
}

// Write writes plan, a plan of in.Problem, to path in the format of its
// suffix (see Suffixes; "-" is CSV on standard output), atomically: the
// file is replaced whole or not at all, keeping its mode, a symlink's
// target written and the link kept. It refuses (a *model.InputError) a
// file that Load read or Protect names, a file that is not a regular file
// (a device, a FIFO), and what CheckWrite refuses.
func (in *Input) Write(path string, plan *model.Plan) error {
	if err := in.CheckWrite(path); err != nil {
		return err
	}
	enc, err := in.Encode(path, plan)
	if err != nil {
		return err
	}
	if path == "-" {
		_, err := os.Stdout.Write(enc.Data)
		return err
	}
	return writeAtomic(path, enc.Data)
}

// writeAtomic replaces path's target with data (atomicfile: a temporary
// file beside it, synced, its mode kept, then renamed over it).
func writeAtomic(path string, data []byte) error {
	target, err := ResolveLinks(path)
	if err != nil {
		return &model.InputError{File: path, Msg: "cannot write: " + err.Error()}
	}
	old, err := os.Stat(target)
	if err != nil {
		old = nil
	}
	tmp, err := atomicfile.Create(target)
	if err != nil {
		return &model.InputError{File: path, Msg: "cannot write: " + unwrap(err)}
	}
	defer os.Remove(tmp.Name()) // a no-op after the rename
	_, err = tmp.Write(data)
	if err != nil {
		tmp.Close()
	} else {
		err = atomicfile.Finish(tmp, old)
	}
	if err == nil {
		err = atomicfile.Commit(tmp.Name(), target)
	}
	if err != nil {
		return fmt.Errorf("writing %s: %s", path, unwrap(err))
	}
	return nil
}
