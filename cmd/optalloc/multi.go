package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/optalloc/optalloc"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/optalloc/optalloc/formats/tflite"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/multi"
	"github.com/optalloc/optalloc/solve"
)

// multiOptions are the flags every multi-model plan reads.
type multiOptions struct {
	limit         time.Duration
	method, out   string
	asJSON, quiet bool
	threads       int
	seed          int64
}

// multiCommon reads the flags every multi-model plan reads; a negative
// time limit or thread count is a usage error.
func multiCommon(fs *pflag.FlagSet) (multiOptions, error) {
	var c multiOptions
	c.limit, _ = fs.GetDuration("time-limit")
	c.method, _ = fs.GetString("method")
	c.out, _ = fs.GetString("output")
	c.asJSON, _ = fs.GetBool("json")
	c.quiet, _ = fs.GetBool("quiet")
	c.threads, _ = fs.GetInt("threads")
	c.seed, _ = fs.GetInt64("seed")
	if c.limit < 0 || c.threads < 0 {
		return c, usageErr("--time-limit and --threads must not be negative")
	}
	return c, nil
}

// multiFlags declares the flags of plan with several models.
func multiFlags(fs *pflag.FlagSet) {
	if f := fs.Lookup("schedule"); f != nil {
		f.Usage += "; with several models: serial (default), concurrent or a schedule FILE (one stage per line)"
	}
	fs.StringArray("handoff", nil, "several models: A:outputI=B:inputJ makes model A's output I and model B's input J one buffer (no copy); A runs before B; repeat for more")
}

// multiPlanHelp is plan's help on several models.
const multiPlanHelp = `

Several .tflite models (plan A.tflite B.tflite ... -o DIR/) are planned as
one arena shared on one TFLite Micro MicroAllocator (several interpreters
on one allocator): --schedule serial (default: one after another, in the
order given), concurrent (all at once), or a schedule FILE (one stage per
line, run from the top; the models on one line run together; models named
by file name without .tflite, or #K). Every model is written to DIR/ with
its own offline plan, relative to the shared arena; the summary gives the
shared head, its lower bound and status for the whole. --handoff
A:output0=B:input0 makes the two tensors one buffer. Several .onnx models
are planned the same way; -o DIR/ then writes each model's plan as
DIR/NAME.plan.json. docs/tflite.md says more.`

// isMultiPlan reports whether the command is plan with several inputs.
func isMultiPlan(e *env, args []string) bool {
	return len(args) > 1 && e.flags.Lookup("handoff") != nil
}

// guardMultiFiles checks plan's files with several models before the
// command runs: -o names a folder, and --schedule, when a file, is an
// input.
func guardMultiFiles(e *env, args []string) error {
	out, _ := e.flags.GetString("output")
	if out == "" {
		return nil
	}
	if out == "-" {
		return usageErr("-o -: several models are written to a folder (-o DIR/)")
	}
	if fi, err := os.Stat(out); err == nil && !fi.IsDir() {
		return usageErr("-o %s: with several models, -o names a folder (DIR/) that gets one model file each", out)
	}
	return nil
}

// multiInput is one model of a multi-model plan (model and arena nil for
// an ONNX model).
type multiInput struct {
	path, name, out string
	model           *tflite.Model
	arena           *tflite.Arena
}

// modelName names a model by its file name without the extension; a name
// already used gets "_2", "_3".
func modelName(path string, used map[string]bool) string {
	base := filepath.Base(path)
	stem := base[:len(base)-len(filepath.Ext(base))]
	name := stem
	for n := 2; used[name]; n++ {
		name = stem + "_" + strconv.Itoa(n)
	}
	used[name] = true
	return name
}

// runPlanMulti plans several .tflite models on one arena.
func runPlanMulti(ctx context.Context, e *env, args []string) error {
	fs := e.flags
	for _, f := range []string{"pool", "capacity", "svg", "html", "scratch", "max-blocks"} {
		if fs.Lookup(f) != nil && fs.Changed(f) {
			return usageErr("--%s is not available with several models", f)
		}
	}
	if l, _ := fs.GetString("layout"); l == "blocks" {
		return usageErr("--layout blocks is not available with several models")
	}
	if allONNX(args) {
		return runPlanMultiONNX(ctx, e, args) // multionnx.go
	}
	for _, a := range args {
		if !isTFLitePath(a) {
			return usageErr("several models: %s is not a .tflite model (several inputs are all .tflite models, planned on one TFLite Micro arena, or all .onnx models)", a)
		}
	}
	o, err := multiCommon(fs)
	if err != nil {
		return err
	}
	limit, method, out, asJSON, quiet, threads, seed := o.limit, o.method, o.out, o.asJSON, o.quiet, o.threads, o.seed
	noScratch, _ := fs.GetBool("no-scratch")
	name, _ := fs.GetString("target")
	kernels, _ := fs.GetString("kernels")
	target, err := tflite.NewTarget(name, kernels)
	if err != nil {
		return usageErr("--target/--kernels: %v", err)
	}
	ins, err := readMultiInputs(e, args, out, tflite.ArenaOptions{NoScratch: noScratch, Target: target})
	if err != nil {
		return err
	}
	names := make([]string, len(ins))
	models := make([]multi.Model, len(ins))
	for k, in := range ins {
		names[k] = in.name
		models[k] = multi.FromTFLite(in.name, in.model, in.arena)
	}
	c, schedName, err := combineModels(fs, names, models)
	if err != nil {
		return err
	}
	opt := solve.Options{Method: method, TimeLimit: remaining(e, limit), Threads: threads, Seed: seed}
	res, dev, err := multi.SolveTFLM(ctx, c, opt)
	if err != nil {
		if errors.Is(err, optalloc.ErrUnknownMethod) {
			return usageErr("%v", err)
		}
		return failure("%v", err)
	}
	if out != "" {
		if err := writeMultiModels(ctx, e, ins, c, res.Plan); err != nil {
			return err
		}
	}
	elapsed := time.Since(e.start)
	if on, _ := fs.GetBool("explain"); on {
		w := e.stdout
		if asJSON {
			w = e.stderr
		}
		explainMulti(w, ins, c, res.Plan, dev.OwnHeads)
	}
	if !quiet {
		scratch := 0
		for _, in := range ins {
			scratch += len(in.arena.Scratch)
		}
		fmt.Fprintf(e.stderr, "peak=%d lower_bound=%d gap=%.2f%% status=%s method=%s time=%.3fs models=%d schedule=%s scratch=%d target=%s kernels=%s\n",
			res.Peak, res.LowerBound, res.Gap(), res.Status, res.Method, elapsed.Seconds(), len(ins), schedName, scratch, ins[0].arena.Target.Name(), kernelsField(ins[0].arena))
		fmt.Fprintln(e.stderr, multiTFLMLine(ins, dev, noScratch))
	}
	if asJSON {
		j := multiJSON{Inputs: args, Schedule: schedName, Buffers: len(c.Problem.Buffers), Peak: res.Peak,
			LowerBound: res.LowerBound, Gap: res.Gap(), Status: res.Status, Method: res.Method,
			Seconds: elapsed.Seconds(), Output: out, TFLMOwnShared: dev.OwnShared, TFLMOwnSafe: dev.OwnSafe,
			Candidate: dev.Candidate}
		for k, in := range ins {
			mj := multiModelJSON{Name: in.name, Input: in.path, Head: dev.ModelHeads[k], TFLMOwnHead: dev.OwnHeads[k]}
			if out != "" {
				mj.Output = in.out
			}
			j.Models = append(j.Models, mj)
		}
		for _, h := range c.Handoffs {
			j.Handoffs = append(j.Handoffs, h.FromName+" = "+h.ToName)
		}
		return writeJSON(e.stdout, j)
	}
	return nil
}

// multiJSON is plan --json with several models.
type multiJSON struct {
	Inputs        []string         `json:"inputs"`
	Schedule      string           `json:"schedule"`
	Buffers       int              `json:"buffers"`
	Peak          int64            `json:"peak"`
	LowerBound    int64            `json:"lower_bound"`
	Gap           float64          `json:"gap_percent"`
	Status        solve.Status     `json:"status"`
	Method        string           `json:"method"`
	Candidate     string           `json:"layout"`
	Seconds       float64          `json:"time_seconds"`
	Output        string           `json:"output,omitempty"`
	TFLMOwnShared int64            `json:"tflm_own_shared_head"`
	TFLMOwnSafe   int64            `json:"tflm_own_head_concurrent_apart"`
	Models        []multiModelJSON `json:"models"`
	Handoffs      []string         `json:"handoffs,omitempty"`
}

type multiModelJSON struct {
	Name        string `json:"name"`
	Input       string `json:"input"`
	Output      string `json:"output,omitempty"`
	Head        int64  `json:"head"`
	TFLMOwnHead int64  `json:"tflm_own_head"`
}

// readMultiInputs reads every model, names it by its file name (without
// .tflite; a repeated name gets "_2", "_3") and chooses its output file in
// the folder out.
func readMultiInputs(e *env, args []string, out string, opt tflite.ArenaOptions) ([]*multiInput, error) {
	used := map[string]bool{}
	var ins []*multiInput
	for _, path := range args {
		if path == "-" {
			return nil, usageErr("several models are read from files, not standard input")
		}
		m, err := tflite.ReadFile(path)
		if err != nil {
			return nil, err
		}
		a, err := m.ArenaWith(opt)
		if err != nil {
			return nil, err
		}
		if len(a.ScratchSkipped) > 0 {
			fmt.Fprintf(e.stderr, "warning: %s: %s\n", path, a.ScratchSkipped[0])
		}
		if len(a.Unknown) > 0 && !opt.NoScratch {
			fmt.Fprintf(e.stderr, "warning: %s: %s; the arena stated for %s may be smaller than the device's\n", path, strings.Join(a.Unknown, "; "), a.Target)
		}
		in := &multiInput{path: path, name: modelName(path, used), model: m, arena: a}
		if out != "" {
			in.out = filepath.Join(out, in.name+".tflite")
			if err := checkNotInput(in.out, args); err != nil {
				return nil, err
			}
		}
		ins = append(ins, in)
	}
	return ins, nil
}

// checkNotInput refuses an output that is one of the inputs or no regular
// file.
func checkNotInput(out string, inputs []string) error {
	ofi, err := os.Stat(out)
	if err != nil {
		return nil
	}
	if !ofi.Mode().IsRegular() {
		return usageErr("cannot write %s: not a regular file", out)
	}
	for _, in := range inputs {
		if ifi, err := os.Stat(in); err == nil && os.SameFile(ofi, ifi) {
			return usageErr("the output %s is the input %s (the same file); write the models to another folder", out, in)
		}
	}
	return nil
}

// multiSchedule reads --schedule: serial (default), concurrent or a file.
func multiSchedule(fs *pflag.FlagSet, names []string) (multi.Schedule, string, error) {
	s, _ := fs.GetString("schedule")
	switch s {
	case "", "serial":
		return multi.Serial(len(names)), "serial", nil
	case "concurrent":
		return multi.Concurrent(len(names)), "concurrent", nil
	}
	if fi, err := os.Stat(s); err != nil || !fi.Mode().IsRegular() {
		return multi.Schedule{}, "", usageErr("--schedule %s: want serial, concurrent or a schedule file", s)
	}
	sched, err := multi.ReadScheduleFile(s, names)
	return sched, s, err
}

// parseHandoff reads A:outputI=B:inputJ.
func parseHandoff(s string, names []string) (multi.Handoff, error) {
	bad := func(why string) error {
		return usageErr("--handoff %q: %s (want MODEL:outputI=MODEL:inputJ; models: %s)", s, why, strings.Join(names, ", "))
	}
	from, to, ok := strings.Cut(s, "=")
	if !ok {
		return multi.Handoff{}, bad("no '='")
	}
	side := func(p, kind string) (int, int, error) {
		i := strings.LastIndex(p, ":")
		if i < 0 {
			return 0, 0, bad("no ':' in " + strconv.Quote(p))
		}
		k := slices.Index(names, p[:i])
		if k < 0 {
			return 0, 0, bad("unknown model " + strconv.Quote(p[:i]))
		}
		port, ok := strings.CutPrefix(p[i+1:], kind)
		n, err := strconv.Atoi(port)
		if !ok || err != nil || n < 0 {
			return 0, 0, bad(strconv.Quote(p[i+1:]) + " is not " + kind + "N")
		}
		return k, n, nil
	}
	var h multi.Handoff
	var err error
	if h.From, h.Output, err = side(from, "output"); err != nil {
		return h, err
	}
	if h.To, h.Input, err = side(to, "input"); err != nil {
		return h, err
	}
	return h, nil
}

// writeMultiModels writes every model with its part of the shared plan as
// its offline plan (multi.TFLiteFiles reads each back and checks it).
func writeMultiModels(ctx context.Context, e *env, ins []*multiInput, c *multi.Combined, pl *model.Plan) error {
	ms := make([]*tflite.Model, len(ins))
	as := make([]*tflite.Arena, len(ins))
	for k, in := range ins {
		ms[k], as[k] = in.model, in.arena
	}
	files, err := multi.TFLiteFiles(ctx, c, ms, as, pl)
	if err != nil {
		return err
	}
	out, _ := e.flags.GetString("output")
	if err := os.MkdirAll(out, 0o777); err != nil {
		return usageErr("cannot write to %s: %v", out, err)
	}
	for k, in := range ins {
		data := files[k]
		if err := writeOutput(e, in.out, func(w io.Writer) error {
			_, err := w.Write(data)
			return err
		}); err != nil {
			return err
		}
	}
	return nil
}

// multiTFLMLine is the summary's line on the shared TFLite Micro arena.
func multiTFLMLine(ins []*multiInput, dev *multi.TFLMOutcome, noScratch bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "tflm: shared head %d (every model's offsets from the arena's start; TFLite Micro reserves the largest model's head); heads:", dev.Head)
	for k, in := range ins {
		fmt.Fprintf(&b, " %s=%d", in.name, dev.ModelHeads[k])
	}
	fmt.Fprintf(&b, "; TFLite Micro's own planner on one allocator: %d", dev.OwnShared)
	if dev.OwnSafe != dev.OwnShared {
		fmt.Fprintf(&b, " (unsafe: it overlays models that run at the same time; kept apart, one allocator each: %d)", dev.OwnSafe)
	}
	b.WriteString("; each model's persistent tail (tensor structs, kernel state) comes on top, from the arena's end, in allocation order (tools/tflm_multi measures them)")
	if noScratch {
		b.WriteString("; scratch buffers not included (--no-scratch)")
	}
	return b.String()
}

// explainMulti says which models share bytes over time, which are kept
// apart, the handoffs, and the weights byte-identical across models. own
// (TFLite Micro's own heads) is nil for other models.
func explainMulti(w io.Writer, ins []*multiInput, c *multi.Combined, pl *model.Plan, own []int64) {
	plans := c.Split(pl)
	lo := make([]int64, len(ins))
	hi := make([]int64, len(ins))
	for k, in := range ins {
		p := c.Models[k].Problem
		lo[k], hi[k] = -1, plans[k].Peak(p)
		for i, pp := range plans[k].Placements {
			if p.Buffers[i].Size > 0 && (lo[k] < 0 || pp.Offset < lo[k]) {
				lo[k] = pp.Offset
			}
		}
		lo[k] = max(lo[k], 0)
		if in.arena != nil {
			fmt.Fprintf(w, "%s: %d buffers (%d tensors, %d scratch), bytes [%d, %d) of the shared arena; alone its head would be %d with TFLite Micro's own planner\n",
				in.name, len(p.Buffers), len(in.arena.Tensors), len(in.arena.Scratch), lo[k], hi[k], own[k])
		} else {
			fmt.Fprintf(w, "%s: %d buffers, bytes [%d, %d) of the shared arena\n", in.name, len(p.Buffers), lo[k], hi[k])
		}
	}
	stage := map[int]int{}
	for s, st := range c.Schedule.Stages {
		for _, k := range st {
			stage[k] = s
		}
	}
	for a := range ins {
		for b := a + 1; b < len(ins); b++ {
			l, h := max(lo[a], lo[b]), min(hi[a], hi[b])
			switch {
			case stage[a] != stage[b] && h > l:
				fmt.Fprintf(w, "shared: %s and %s never run at the same time and reuse bytes [%d, %d) (%d bytes)\n", ins[a].name, ins[b].name, l, h, h-l)
			case stage[a] == stage[b]:
				fmt.Fprintf(w, "apart: %s and %s run at the same time and share no byte\n", ins[a].name, ins[b].name)
			}
		}
	}
	for _, h := range c.Handoffs {
		fmt.Fprintf(w, "handoff: %s = %s: one buffer at offset %d, no copy\n", h.FromName, h.ToName, pl.Placements[h.Buffer].Offset)
	}
	if ins[0].arena == nil {
		fmt.Fprintln(w, "weights: initializers are outside the arena (not compared across models)")
		return
	}
	if len(c.SameWeights) == 0 {
		fmt.Fprintln(w, "weights: none byte-identical across models; a TFLite Micro arena never holds weights (they stay in the flatbuffer)")
		return
	}
	var bytes int64
	for _, s := range c.SameWeights {
		bytes += s.Size * int64(len(s.Names)-1)
	}
	fmt.Fprintf(w, "weights: %d weights are byte-identical across models (%d bytes repeated); a TFLite Micro arena never holds weights (they stay in each flatbuffer), so none is stored once here; a target keeping weights in planned memory would store each once\n", len(c.SameWeights), bytes)
	for _, s := range c.SameWeights {
		fmt.Fprintf(w, "  same bytes (%d): %s\n", s.Size, strings.Join(s.Names, ", "))
	}
}

// combineModels is the one problem over the models: the schedule
// (--schedule) and the handoffs (--handoff) read from the flags.
func combineModels(fs *pflag.FlagSet, names []string, models []multi.Model) (*multi.Combined, string, error) {
	sched, schedName, err := multiSchedule(fs, names)
	if err != nil {
		return nil, "", err
	}
	var hs []multi.Handoff
	specs, _ := fs.GetStringArray("handoff")
	for _, s := range specs {
		h, err := parseHandoff(s, names)
		if err != nil {
			return nil, "", err
		}
		hs = append(hs, h)
	}
	c, err := multi.Combine(models, sched, multi.Options{Handoffs: hs})
	if err != nil {
		return nil, "", usageErr("%v", err)
	}
	return c, schedName, nil
}
