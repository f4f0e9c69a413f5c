package main

import (
	"fmt"
	"os"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/optalloc/optalloc"
	"github.com/optalloc/optalloc/formats/tflite"
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

// readProblem is loadProblem's reading, through the front door
// (optalloc.Load: formats, the runtime back end, devices refused); the
// input read is kept in e for planning and writing back.
func readProblem(e *env, path string) (*model.Problem, error) {
	opt, err := loadOptions(e)
	if err != nil {
		return nil, err
	}
	opt.Stdin = e.stdin
	load := func() (*model.Problem, error) {
		in, err := optalloc.Load(path, opt)
		if err != nil {
			return nil, err
		}
		e.use(in)
		return in.Problem, nil
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

// use keeps in as the input read (the last one, for commands that read
// several), saying its warnings.
func (e *env) use(in *optalloc.Input) {
	for _, w := range in.Warnings {
		fmt.Fprintln(e.stderr, "warning: "+w)
	}
	e.input = in
	e.tflite = nil
	if m, a := in.TFLite(); m != nil {
		e.tflite = &tfliteInput{path: in.Name, model: m, arena: a}
	}
}

// loadOptions are the input flags of the command (--dim, --scratch,
// --no-scratch) as the front door takes them.
func loadOptions(e *env) (optalloc.LoadOptions, error) {
	var opt optalloc.LoadOptions
	dims, err := dimValues(e)
	if err != nil {
		return opt, err
	}
	opt.Dims = dims
	if e.flags != nil && e.flags.Lookup("no-scratch") != nil {
		name, _ := e.flags.GetString("target")
		kernels, _ := e.flags.GetString("kernels")
		t, err := tflite.NewTarget(name, kernels)
		if err != nil {
			return opt, usageErr("--target/--kernels: %v", err)
		}
		opt.TFLite.Target = t
		opt.TFLite.NoScratch, _ = e.flags.GetBool("no-scratch")
		opt.ScratchList, _ = e.flags.GetString("scratch")
		if opt.ScratchList != "" && opt.TFLite.NoScratch {
			return opt, usageErr("--scratch and --no-scratch contradict each other; give one")
		}
	}
	return opt, nil
}

// checkInputFile refuses an input that is a device (optalloc.CheckInputFile).
func checkInputFile(path string) error { return optalloc.CheckInputFile(path) }

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
