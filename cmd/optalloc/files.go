package main

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/optalloc/optalloc/formats"
	"github.com/optalloc/optalloc/model"
)

// loadProblem reads INPUT ("-" is standard input) by its file name. A
// signal (Ctrl-C, SIGTERM, SIGHUP) while it reads stops the command at once
// (exit 1): there is no plan yet to keep.
func loadProblem(e *env, path string) (*model.Problem, error) {
	if fi, err := os.Stat(path); err == nil && fi.Size() > hugeFile {
		lessGarbage() // before reading: the reader's peak counts too
	}
	p, err := readProblem(e, path)
	if err == nil && len(p.Buffers) > hugeGC {
		lessGarbage()
	}
	return p, err
}

// hugeGC and hugeFile are the number of buffers, and the input size,
// above which the process collects garbage at half the heap's growth
// (GOGC=50) unless GOGC is set: on 2 000 000 buffers (CSV files of 59–
// 97 MB) the peak RSS went from 1.22–1.49 GB to 1.10–1.12 GB (dense
// random, skip connections), the first plan no later. A CSV row is about
// 30 bytes: 16 MB is about 500 000 buffers.
const (
	hugeGC   = 200000
	hugeFile = 16 << 20
)

// lessGarbage lowers the garbage collector's target (see hugeGC).
func lessGarbage() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(50)
	}
}

// readProblem is loadProblem's reading.
func readProblem(e *env, path string) (*model.Problem, error) {
	if err := checkInputFile(path); err != nil {
		return nil, err
	}
	load := func() (p *model.Problem, err error) {
		defer func() {
			// a reader that panics (a bug) gives one line and exit 1, not
			// a stack trace from the goroutine below
			if r := recover(); r != nil {
				p, err = nil, failure("reading %s failed: %v (a bug in optalloc; please report it with the file)", path, r)
			}
		}()
		if path == "-" {
			data, err := io.ReadAll(e.stdin)
			if err != nil {
				return nil, &model.InputError{File: "<stdin>", Msg: err.Error()}
			}
			if p, ok, err := loadONNXBytes(e, data, "<stdin>"); ok {
				return p, err
			}
			if p, ok, err := loadTFLiteBytes(e, data, "<stdin>"); ok {
				return p, err
			}
			return formats.LoadBytes(data, "<stdin>")
		}
		if p, ok, err := loadONNX(e, path); ok {
			return p, err
		}
		if p, ok, err := loadTFLite(e, path); ok {
			return p, err
		}
		return formats.Load(path)
	}
	if e.ctx == nil {
		return load()
	}
	if err := e.ctx.Err(); err != nil {
		return nil, failure("interrupted before reading %s", path)
	}
	type loaded struct {
		p   *model.Problem
		err error
	}
	done := make(chan loaded, 1)
	go func() {
		p, err := load()
		done <- loaded{p, err}
	}()
	select {
	case r := <-done:
		return r.p, r.err
	case <-e.ctx.Done():
		return nil, failure("interrupted while reading %s; nothing written", path)
	}
}

// checkInputFile refuses an input that is a device (/dev/zero would be read
// without end) unless it is this process's own standard input (/dev/stdin
// on a terminal): a file, a pipe, a FIFO or "-". It never opens a device to
// find out (opening one can act: a watchdog starts, a tape rewinds).
func checkInputFile(path string) error {
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
