package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/optalloc/optalloc/model"
)

// loadProblem reads INPUT ("-" is standard input) by its file name.
func loadProblem(e *env, path string) (*model.Problem, error) {
	if path == "-" {
		data, err := io.ReadAll(e.stdin)
		if err != nil {
			return nil, &model.InputError{File: "<stdin>", Msg: err.Error()}
		}
		return model.LoadBytes(data, "<stdin>")
	}
	if p, ok, err := loadONNX(e, path); ok {
		return p, err
	}
	return model.Load(path)
}

// writeOutput writes a file atomically and all-or-nothing: into a temporary
// file in the same folder, renamed over path only when the whole command
// succeeds (run calls commit), so a failed run never leaves a partial file
// nor some of its outputs. "-" writes to standard output at once. A path
// that cannot be written is bad usage (exit 2).
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
	for _, st := range e.staged {
		if st.path == path {
			return usageErr("two outputs name the same file %s", path)
		}
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return usageErr("cannot write %s: %v", path, unwrapErr(err))
	}
	e.staged = append(e.staged, staged{tmp: tmp.Name(), path: path})
	if err := write(tmp); err != nil {
		tmp.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	// CreateTemp makes the file private (0600); outputs are ordinary files.
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// staged is an output written to a temporary file, waiting for commit.
type staged struct{ tmp, path string }

// commit renames every staged output into place.
func (e *env) commit() error {
	for k, s := range e.staged {
		if err := os.Rename(s.tmp, s.path); err != nil {
			e.staged = e.staged[k:]
			e.abort()
			return fmt.Errorf("writing %s: %v", s.path, unwrapErr(err))
		}
	}
	e.staged = nil
	return nil
}

// abort removes every staged output.
func (e *env) abort() {
	for _, s := range e.staged {
		os.Remove(s.tmp)
	}
	e.staged = nil
}

// checkWritable reports (as bad usage) an output path that cannot be
// written: a missing or unwritable folder, or a folder in the path's place.
// Commands call it before long work so that a typo does not cost a solve.
func checkWritable(paths ...string) error {
	seen := map[string]bool{}
	for _, path := range paths {
		if path == "" || path == "-" {
			continue
		}
		abs, err := filepath.Abs(path)
		if err != nil {
			abs = filepath.Clean(path)
		}
		if seen[abs] {
			return usageErr("two outputs name the same file %s", path)
		}
		seen[abs] = true
		if fi, err := os.Stat(path); err == nil && fi.IsDir() {
			return usageErr("cannot write %s: it is a directory", path)
		}
		dir := filepath.Dir(path)
		fi, err := os.Stat(dir)
		if err != nil {
			return usageErr("cannot write %s: %v", path, unwrapErr(err))
		}
		if !fi.IsDir() {
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

func unwrapErr(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	if le, ok := err.(*os.LinkError); ok {
		return le.Err
	}
	return err
}

// isJSONPath reports whether an output path asks for JSON.
func isJSONPath(path string) bool { return strings.HasSuffix(strings.ToLower(path), ".json") }

// byteSize is a flag value holding a byte count: a plain integer or one with
// a KiB, MiB or GiB suffix.
type byteSize int64

func (b *byteSize) String() string { return strconv.FormatInt(int64(*b), 10) }
func (b *byteSize) Type() string   { return "bytes" }

func (b *byteSize) Set(s string) error {
	mult := int64(1)
	t := strings.TrimSpace(s)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}} {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSuffix(t, u.suffix), u.mult
			break
		}
	}
	v, err := strconv.ParseInt(strings.TrimSpace(t), 10, 64)
	if err != nil || v < 0 {
		return fmt.Errorf("%q is not a byte count (an integer ≥ 0, optionally with KiB, MiB or GiB)", s)
	}
	if v > (1<<63-1)/mult {
		return fmt.Errorf("%q overflows int64", s)
	}
	*b = byteSize(v * mult)
	return nil
}
