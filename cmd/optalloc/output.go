package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/optalloc/optalloc"
	"github.com/optalloc/optalloc/internal/atomicfile"
)

// Outputs. Every output flag of every command goes through writeOutput and
// is checked up front by guardFiles (run calls it before the command):
//
//   - an output that is the same file as an input (by identity: symlinks,
//     hard links and path spellings do not hide it) is refused, exit 2;
//   - two outputs naming one file, or two outputs on standard output, are
//     refused;
//   - a symlink is followed: its target is written, the link stays;
//   - an existing non-regular file (a device, a FIFO, /dev/stdout) is
//     written through, never replaced;
//   - a regular file is replaced atomically (temporary file in the same
//     folder, fsync, rename) only when the whole command succeeds, keeping
//     its mode; a new file gets 0666 minus the umask;
//   - a read-only file is refused before any work (exit 2).

// outputFlagNames are the flags, in any command, that name an output file.
var outputFlagNames = []string{"output", "svg", "html", "schedule", "write-baseline"}

// inputFlagNames are the flags that name an input file besides the
// positional arguments.
var inputFlagNames = []string{"problem", "baseline", "scratch"}

// stdoutFlagNames are the boolean flags that print on standard output.
var stdoutFlagNames = []string{"json"}

// staged is an output waiting for commit: a temporary file to rename over
// target, or (for a non-regular target) the bytes to write through.
type staged struct {
	path   string // as the user gave it
	target string // path with symlinks resolved
	tmp    string
	data   []byte
	direct bool
}

// resolveOutput follows the symlinks of path, even a dangling one, to the
// file a write must change.
func resolveOutput(path string) (string, error) {
	if fi, err := os.Stat(path); err == nil {
		if !fi.Mode().IsRegular() {
			// A device, FIFO or terminal, written through: opening path
			// follows the links, including /proc's (/dev/stdout ->
			// /proc/self/fd/1 -> "pipe:[N]", which has no path).
			return path, nil
		}
		if t, err := filepath.EvalSymlinks(path); err == nil {
			return t, nil
		}
	}
	return optalloc.ResolveLinks(path)
}

// guardFiles checks the command's outputs against its inputs and each
// other before the command runs (see the top of this file).
func guardFiles(e *env, args []string) error {
	if isMultiPlan(e, args) {
		return guardMultiFiles(e, args) // multi.go
	}
	fs := e.flags
	var outs []string
	stdoutUsers := []string{}
	for _, name := range outputFlagNames {
		f := fs.Lookup(name)
		if f == nil || f.Value.Type() != "string" {
			continue
		}
		v := f.Value.String()
		switch v {
		case "":
		case "-":
			stdoutUsers = append(stdoutUsers, "--"+name+" -")
		default:
			if namesStdout(v) {
				stdoutUsers = append(stdoutUsers, "--"+name+" "+v)
			}
			outs = append(outs, v)
		}
	}
	for _, name := range stdoutFlagNames {
		if on, err := fs.GetBool(name); err == nil && on {
			stdoutUsers = append(stdoutUsers, "--"+name)
		}
	}
	if len(stdoutUsers) > 1 {
		return usageErr("%s and %s both write to stdout; choose one", stdoutUsers[0], stdoutUsers[1])
	}
	ins := append([]string(nil), args...)
	for _, name := range inputFlagNames {
		if f := fs.Lookup(name); f != nil && f.Value.Type() == "string" && f.Value.String() != "" {
			ins = append(ins, f.Value.String())
		}
	}
	for _, o := range outs {
		t, err := resolveOutput(o)
		if err != nil {
			return usageErr("cannot write %s: %v", o, err)
		}
		ofi, err := os.Stat(t)
		if err != nil || !ofi.Mode().IsRegular() {
			continue // a new file, or one written through (a device, a FIFO)
		}
		for _, in := range ins {
			if in == "-" {
				continue
			}
			if ifi, err := os.Stat(in); err == nil && os.SameFile(ofi, ifi) {
				return usageErr("the output %s is the input %s (the same file); write the output elsewhere", o, in)
			}
		}
	}
	return checkWritable(outs...)
}

// checkWritable reports (as bad usage) an output path that cannot be
// written: a missing or unwritable folder, a folder in the path's place, a
// read-only file, or two outputs naming one file. Commands call it before
// long work so that a typo does not cost a solve.
func checkWritable(paths ...string) error {
	type seenFile struct {
		path string
		fi   os.FileInfo
	}
	var seen []seenFile
	for _, path := range paths {
		if path == "" || path == "-" {
			continue
		}
		t, err := resolveOutput(path)
		if err != nil {
			return usageErr("cannot write %s: %v", path, err)
		}
		abs, err := filepath.Abs(t)
		if err != nil {
			abs = filepath.Clean(t)
		}
		fi, statErr := os.Stat(t)
		for _, s := range seen {
			if s.path == abs || fi != nil && s.fi != nil && os.SameFile(fi, s.fi) {
				return usageErr("two outputs name the same file %s", path)
			}
		}
		seen = append(seen, seenFile{abs, fi})
		if statErr == nil {
			switch {
			case fi.IsDir():
				return usageErr("cannot write %s: it is a directory", path)
			case !fi.Mode().IsRegular():
				if !atomicfile.CanWrite(t) {
					return usageErr("cannot write %s: permission denied", path)
				}
				continue // written through at commit
			case fi.Mode().Perm()&0o222 == 0 || !atomicfile.CanWrite(t):
				return usageErr("cannot write %s: it is read-only", path)
			}
		}
		dir := filepath.Dir(t)
		dfi, err := os.Stat(dir)
		if errors.Is(err, iofs.ErrNotExist) {
			// outputs never create folders: say which one is missing
			return usageErr("cannot write %s: the folder %s does not exist (create it first: mkdir -p %s)", path, dir, dir)
		}
		if err != nil {
			return usageErr("cannot write %s: %v", path, unwrapErr(err))
		}
		if !dfi.IsDir() {
			return usageErr("cannot write %s: %s is not a directory", path, dir)
		}
		f, err := os.CreateTemp(dir, ".optalloc-probe-*")
		if err != nil {
			return usageErr("cannot write %s: %v", path, unwrapErr(err))
		}
		f.Close()
		os.Remove(f.Name())
	}
	return nil
}

// writeOutput writes an output all-or-nothing: staged now, put in place
// only when the whole command succeeds (run calls commit), so a failed run
// never leaves a partial file nor some of its outputs. "-" writes to
// standard output at once. A path that cannot be written is bad usage
// (exit 2).
func writeOutput(e *env, path string, write func(io.Writer) error) error {
	if path == "-" {
		bw := bufio.NewWriter(e.stdout)
		if err := write(bw); err != nil {
			return err
		}
		return bw.Flush()
	}
	if err := checkWritable(path); err != nil {
		return err
	}
	target, err := resolveOutput(path)
	if err != nil {
		return usageErr("cannot write %s: %v", path, err)
	}
	fi, statErr := os.Stat(target)
	for _, st := range e.staged {
		if st.target == target {
			return usageErr("two outputs name the same file %s", path)
		}
	}
	if statErr == nil && !fi.Mode().IsRegular() {
		// A device, a FIFO, a terminal: written through at commit.
		var buf bytes.Buffer
		if err := write(&buf); err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
		e.staged = append(e.staged, staged{path: path, target: target, data: buf.Bytes(), direct: true})
		return nil
	}
	tmp, err := atomicfile.Create(target)
	if err != nil {
		return usageErr("cannot write %s: %v", path, unwrapErr(err))
	}
	e.staged = append(e.staged, staged{path: path, target: target, tmp: tmp.Name()})
	bw := bufio.NewWriterSize(tmp, 1<<16)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		tmp.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	// CreateTemp makes the file private (0600): Finish keeps the mode (and
	// owner) of the file replaced, else the usual mode of a new file.
	if statErr != nil {
		fi = nil
	}
	if err := atomicfile.Finish(tmp, fi); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// commit puts every staged output in place.
func (e *env) commit() error {
	for k, s := range e.staged {
		var err error
		if s.direct {
			err = writeThrough(s.target, s.data)
		} else {
			err = atomicfile.Commit(s.tmp, s.target)
		}
		if err != nil {
			e.staged = e.staged[k:]
			e.abort()
			return fmt.Errorf("writing %s: %v", s.path, unwrapErr(err))
		}
	}
	e.staged = nil
	return nil
}

// writeThrough writes data to an existing non-regular file.
func writeThrough(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// abort removes every staged output.
func (e *env) abort() {
	for _, s := range e.staged {
		if !s.direct {
			os.Remove(s.tmp)
		}
	}
	e.staged = nil
}

// planSuffixes are the formats plan -o writes, by suffix.
var planSuffixes = []string{".csv", ".json", ".tflite", ".svg", ".html"}

// outputBySuffix chooses what plan -o writes from the file's suffix: a CSV
// or JSON plan, a .tflite model, or a picture (-o x.svg is --svg x.svg,
// -o x.html is --html x.html). Any other suffix is refused with the list of
// known ones, before solving, so that -o plan.txt never silently holds a
// CSV. "-" (standard output) and an existing device, FIFO or link to one
// are written as CSV, as before.
func outputBySuffix(out, svg, html string) (string, string, string, error) {
	if out == "" || out == "-" {
		return svg, html, out, nil
	}
	if fi, err := os.Stat(out); err == nil && !fi.Mode().IsRegular() && !fi.IsDir() {
		return svg, html, out, nil
	}
	ext := strings.ToLower(filepath.Ext(out))
	switch ext {
	case ".csv", ".json", ".tflite":
		return svg, html, out, nil
	case ".svg", ".html":
		other := map[string]string{".svg": svg, ".html": html}[ext]
		if other != "" {
			return "", "", "", usageErr("-o %s and --%s %s both draw a picture; give one", out, ext[1:], other)
		}
		if ext == ".svg" {
			return out, html, "", nil
		}
		return svg, out, "", nil
	}
	what := "suffix " + strconv.Quote(ext)
	if ext == "" {
		what = "no suffix"
	}
	return "", "", "", usageErr("-o %s: %s; the plan's format is chosen by the suffix: %s", out, what, strings.Join(planSuffixes, ", "))
}

// namesStdout reports whether path is a name of standard output
// (/dev/stdout, /dev/fd/1, /proc/self/fd/1): -o /dev/stdout --json wrote
// the JSON and then the plan into one stream.
func namesStdout(path string) bool {
	switch filepath.Clean(path) {
	case "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1":
		return true
	}
	return false
}
