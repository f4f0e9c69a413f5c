//go:build cgo

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/optalloc/optalloc"
	"github.com/optalloc/optalloc/formats/onnx"
	"github.com/optalloc/optalloc/formats/tflite"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/solve"
	"github.com/optalloc/optalloc/verify"
)

// problem is what a problem handle holds. Solves read it under mu's read
// lock (several at once); edits take the write lock.
type problem struct {
	mu sync.RWMutex
	p  *model.Problem
	// shared is set when a result refers to p.Buffers: an edit in place
	// (a pin, a pool) copies the slice first, so that the result keeps
	// the problem it was solved from.
	shared atomic.Bool
	// in is the input p was loaded from (the front door's: its runtime
	// back end, the files it read, its warnings); nil for a problem built
	// from columns.
	in *optalloc.Input
	// target is the device a TFLite model loaded next is planned for
	// (optalloc_problem_set_target); the zero Target is the host's.
	target tflite.Target
}

func newProblem() *problem { return &problem{p: &model.Problem{}} }

// parseDims reads --dim-style NAME=VALUE strings.
func parseDims(specs []string) (map[string]int64, error) {
	dims := map[string]int64{}
	for _, s := range specs {
		name, v, err := onnx.ParseDim(s)
		if err != nil {
			return nil, badArg("%v", err)
		}
		dims[name] = v
	}
	return dims, nil
}

// load replaces the problem with the one in the file at path, read as
// `optalloc plan` reads it, through the front door (optalloc.Load: by
// suffix, dims for an ONNX model, devices refused).
func (pr *problem) load(path string, dims []string) error {
	d, err := parseDims(dims)
	if err != nil {
		return err
	}
	if path == "-" {
		return badArg("- (standard input) is not a file here: give a path, or the bytes to optalloc_problem_load_bytes")
	}
	in, err := optalloc.Load(path, pr.loadOptions(d))
	if err != nil {
		return err
	}
	pr.replace(in)
	return nil
}

// loadBytes is load for a file held in memory; the format is sniffed as
// for standard input, and name is used in messages.
func (pr *problem) loadBytes(data []byte, name string, dims []string) error {
	d, err := parseDims(dims)
	if err != nil {
		return err
	}
	in, err := optalloc.LoadBytes(name, data, pr.loadOptions(d))
	if err != nil {
		return err
	}
	pr.replace(in)
	return nil
}

// loadOptions are the door's options for a load: the dims and the target.
func (pr *problem) loadOptions(dims map[string]int64) optalloc.LoadOptions {
	pr.mu.RLock()
	defer pr.mu.RUnlock()
	return optalloc.LoadOptions{Dims: dims, TFLite: tflite.ArenaOptions{Target: pr.target}}
}

// setTarget names the device TFLite models loaded next are planned for
// (as --target and --kernels; "" for the defaults).
func (pr *problem) setTarget(name, kernels string) error {
	t, err := tflite.NewTarget(name, kernels)
	if err != nil {
		return badArg("%v", err)
	}
	pr.mu.Lock()
	pr.target = t
	pr.mu.Unlock()
	return nil
}

// warnings are the lines about the input loaded that did not stop it.
func (pr *problem) warnings() []string {
	pr.mu.RLock()
	defer pr.mu.RUnlock()
	if pr.in == nil {
		return nil
	}
	return pr.in.Warnings
}

func (pr *problem) replace(in *optalloc.Input) {
	pr.mu.Lock()
	pr.p, pr.in = in.Problem, in
	pr.shared.Store(false)
	pr.mu.Unlock()
}

// addBuffers appends buffers given as columns. ids nil names each buffer by
// its index in the problem; align nil means no alignment.
func (pr *problem) addBuffers(ids []string, lower, upper, size, align []int64) error {
	n := len(lower)
	if len(upper) != n || len(size) != n || (ids != nil && len(ids) != n) || (align != nil && len(align) != n) {
		return badArg("the columns have different lengths")
	}
	pr.mu.Lock()
	defer pr.mu.Unlock()
	first := len(pr.p.Buffers)
	for i := range n {
		b := model.Buffer{Start: lower[i], End: upper[i], Size: size[i]}
		if ids != nil {
			b.ID = ids[i]
		} else {
			b.ID = strconv.Itoa(first + i)
		}
		if align != nil {
			b.Align = align[i]
		}
		pr.p.Buffers = append(pr.p.Buffers, b)
	}
	return nil
}

// edit runs f on buffer i, with the buffers copied first when a result
// shares them.
func (pr *problem) edit(i int, f func(b *model.Buffer)) error {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	if i < 0 || i >= len(pr.p.Buffers) {
		return badArg("buffer index %d out of range (the problem has %d buffers)", i, len(pr.p.Buffers))
	}
	if pr.shared.Load() {
		pr.p.Buffers = append([]model.Buffer(nil), pr.p.Buffers...)
		pr.shared.Store(false)
	}
	f(&pr.p.Buffers[i])
	return nil
}

// pin fixes buffer i at offset; a negative offset frees it again.
func (pr *problem) pin(i int, offset int64) error {
	return pr.edit(i, func(b *model.Buffer) {
		if offset < 0 {
			b.Pin = nil
			return
		}
		b.Pin = &offset
	})
}

// hint sets buffer i's preferred offset; a negative offset clears it.
func (pr *problem) hint(i int, offset int64) error {
	return pr.edit(i, func(b *model.Buffer) {
		if offset < 0 {
			b.Hint = nil
			return
		}
		b.Hint = &offset
	})
}

// setPool restricts buffer i to the named pool ("" allows every pool).
func (pr *problem) setPool(i int, pool string) error {
	return pr.edit(i, func(b *model.Buffer) {
		b.Pools = nil
		if pool != "" {
			b.Pools = []string{pool}
		}
	})
}

// editAll runs f on every buffer, with the buffers copied first when a
// result shares them; n must be the buffer count.
func (pr *problem) editAll(n int, f func(i int, b *model.Buffer) error) error {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	if n != len(pr.p.Buffers) {
		return badArg("%d values for %d buffers", n, len(pr.p.Buffers))
	}
	bs := append([]model.Buffer(nil), pr.p.Buffers...)
	for i := range bs {
		if err := f(i, &bs[i]); err != nil {
			return err
		}
	}
	pr.p.Buffers = bs
	pr.shared.Store(false)
	return nil
}

// pins fixes every buffer at its offset (a negative offset frees it).
func (pr *problem) pins(offsets []int64) error {
	return pr.editAll(len(offsets), func(i int, b *model.Buffer) error {
		b.Pin = nil
		if offsets[i] >= 0 {
			b.Pin = &offsets[i]
		}
		return nil
	})
}

// pools keeps every buffer in one pool, an index into the problem's pools
// (-1: any pool).
func (pr *problem) pools(pools []int32) error {
	// The names are read inside editAll, under its lock: a pool added by
	// another thread meanwhile is either in or out, never half read.
	var names []string
	return pr.editAll(len(pools), func(i int, b *model.Buffer) error {
		if i == 0 {
			for _, q := range pr.p.Pools {
				names = append(names, q.Name)
			}
		}
		switch q := int(pools[i]); {
		case q < 0:
			b.Pools = nil
		case q < len(names):
			b.Pools = []string{names[q]}
		default:
			return badArg("buffer %d: pool index %d out of range (%d pools added)", i, q, len(names))
		}
		return nil
	})
}

// addPool appends a pool, slower than those before it.
func (pr *problem) addPool(name string, capacity, align int64) error {
	if name == "" {
		return badArg("a pool needs a name")
	}
	pr.mu.Lock()
	defer pr.mu.Unlock()
	for _, q := range pr.p.Pools {
		if q.Name == name {
			return badArg("pool %q is given twice", name)
		}
	}
	pr.p.Pools = append(pr.p.Pools, model.Pool{Name: name, Capacity: capacity, Align: align, Rank: len(pr.p.Pools)})
	return nil
}

// snapshot returns a copy of the problem that later edits do not change,
// as an input of the front door (the loaded input's runtime kept).
func (pr *problem) snapshot() *optalloc.Input {
	pr.mu.RLock()
	defer pr.mu.RUnlock()
	pr.shared.Store(true)
	q := *pr.p
	if pr.in == nil {
		return optalloc.NewInput("", &q, nil)
	}
	return pr.in.WithProblem(&q)
}

// columns copies buffer columns out; a nil slice is skipped. A pin or hint
// that is absent is -1.
func (pr *problem) columns(lower, upper, size, align, pin, hint []int64) error {
	pr.mu.RLock()
	defer pr.mu.RUnlock()
	bs := pr.p.Buffers
	for _, c := range [][]int64{lower, upper, size, align, pin, hint} {
		if c != nil && len(c) != len(bs) {
			return badArg("an output array holds %d values; the problem has %d buffers", len(c), len(bs))
		}
	}
	opt := func(v *int64) int64 {
		if v == nil {
			return -1
		}
		return *v
	}
	put := func(col []int64, i int, v int64) {
		if col != nil {
			col[i] = v
		}
	}
	for i := range bs {
		b := &bs[i]
		put(lower, i, b.Start)
		put(upper, i, b.End)
		put(size, i, b.Size)
		put(align, i, b.Alignment())
		put(pin, i, opt(b.Pin))
		put(hint, i, opt(b.Hint))
	}
	return nil
}

// ids returns the buffer ids, each followed by a NUL byte.
func (pr *problem) ids() []byte {
	pr.mu.RLock()
	defer pr.mu.RUnlock()
	var buf bytes.Buffer
	for i := range pr.p.Buffers {
		buf.WriteString(pr.p.Buffers[i].ID)
		buf.WriteByte(0)
	}
	return buf.Bytes()
}

func (pr *problem) len() int {
	pr.mu.RLock()
	defer pr.mu.RUnlock()
	return len(pr.p.Buffers)
}

// solver holds the options of solves and the cancel function of the one
// running.
type solver struct {
	mu        sync.Mutex // guards everything below
	opt       solve.Options
	cancel    context.CancelFunc
	cancelled bool
}

func newSolver() *solver {
	return &solver{opt: solve.Options{Method: "auto", TimeLimit: 10 * time.Second, Seed: 1}}
}

// set changes an option (under the lock, so that it may race a cancel).
func (s *solver) set(f func(o *solve.Options)) {
	s.mu.Lock()
	f(&s.opt)
	s.mu.Unlock()
}

// cancelSolve stops the running solve, and every later one: a cancelled
// solver stays cancelled, so that a cancel that comes just before the
// solve starts is not lost.
func (s *solver) cancelSolve() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cancelled = true
	if s.cancel != nil {
		s.cancel()
	}
}

// begin starts the solver's one solve: a context its cancel ends (ended
// already when the solver was cancelled), the options to solve with, and
// end, which the solve calls when it returns. A second solve at the same
// time is an error.
func (s *solver) begin() (context.Context, solve.Options, func(), error) {
	ctx, cancel := context.WithCancel(context.Background())
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cancel != nil {
		cancel()
		return nil, solve.Options{}, nil, errors.New("the solver is solving already: a solver runs one solve at a time")
	}
	if s.cancelled {
		cancel()
	}
	s.cancel = cancel
	return ctx, s.opt, func() {
		cancel()
		s.mu.Lock()
		s.cancel = nil
		s.mu.Unlock()
	}, nil
}

// run solves a snapshot of pr with the solver's options, as `optalloc plan`
// calls solve.Solve.
func (s *solver) run(pr *problem) (*result, error) {
	ctx, opt, end, err := s.begin()
	if err != nil {
		return nil, err
	}
	defer end()
	in := pr.snapshot()
	p := in.Problem
	if opt.Capacity > 0 && len(p.PoolList()) > 1 {
		return nil, badArg("a capacity decides a single pool; with %d pools give each its capacity", len(p.PoolList()))
	}
	r, err := optalloc.Plan(ctx, in, optalloc.Options{Options: opt})
	if err != nil {
		return nil, err // an unknown method is code 2 (codeOf)
	}
	return &result{p: p, in: in, res: r.Result}, nil
}

// result is a solve's outcome with the problem it was solved from.
type result struct {
	p   *model.Problem
	in  *optalloc.Input // p's input, for writing
	res *solve.Result
}

// peak is the plan's peak, -1 without a plan.
func (r *result) peak() int64 {
	if r.res.Plan == nil {
		return -1
	}
	return r.res.Peak
}

func (r *result) plan() (*model.Plan, error) {
	if r.res.Plan == nil {
		return nil, fmt.Errorf("no plan: status %s: %s", r.res.Status, r.res.Reason)
	}
	if len(r.res.Plan.Placements) != len(r.p.Buffers) {
		return nil, fmt.Errorf("internal error: %d placements for %d buffers; please report it", len(r.res.Plan.Placements), len(r.p.Buffers))
	}
	return r.res.Plan, nil
}

// offsets copies the plan's offsets (and pool indices, when pools is not
// nil) out.
func (r *result) offsets(offsets []int64, pools []int32) error {
	pl, err := r.plan()
	if err != nil {
		return err
	}
	n := len(pl.Placements)
	if (offsets != nil && len(offsets) != n) || (pools != nil && len(pools) != n) {
		return badArg("an output array does not hold one value per buffer (%d)", n)
	}
	for i, q := range pl.Placements {
		if offsets != nil {
			offsets[i] = q.Offset
		}
		if pools != nil {
			pools[i] = int32(q.Pool)
		}
	}
	return nil
}

// poolName names pool i of the problem solved.
func (r *result) poolName(i int) (string, error) {
	ps := r.p.PoolList()
	if i < 0 || i >= len(ps) {
		return "", badArg("pool index %d out of range (%d pools)", i, len(ps))
	}
	return ps[i].Name, nil
}

// write writes the plan through the front door (optalloc.Input.Write): the
// format by path's suffix (.csv, .json, .tflite, .svg, .html), never onto
// a file the input was read from, never a file that is not a regular file,
// atomically.
func (r *result) write(path string) error {
	pl, err := r.plan()
	if err != nil {
		return err
	}
	if path == "-" {
		return badArg("- (standard output) is not a file here: give a path")
	}
	return r.in.Write(path, pl)
}

// check verifies offsets (and pools, or pool 0 when nil) for the problem,
// as `optalloc verify` does, and returns the violations' lines.
func (pr *problem) check(offsets []int64, pools []int32) ([]string, error) {
	p := pr.snapshot().Problem
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if len(offsets) != len(p.Buffers) || (pools != nil && len(pools) != len(p.Buffers)) {
		return nil, badArg("%d offsets for %d buffers", len(offsets), len(p.Buffers))
	}
	pl := model.NewPlan(p)
	for i := range pl.Placements {
		pl.Placements[i].Offset = offsets[i]
		if pools != nil {
			pl.Placements[i].Pool = int(pools[i])
		}
	}
	var lines []string
	for _, v := range verify.Check(p, pl) {
		lines = append(lines, v.String())
	}
	return lines, nil
}

// msDuration converts milliseconds to a duration, saturating.
func msDuration(ms int64) time.Duration {
	if ms > int64(1<<63-1)/int64(time.Millisecond) {
		return time.Duration(1<<63 - 1)
	}
	return time.Duration(ms) * time.Millisecond
}

// statusCode is a status as the C enum: OPTALLOC_OPTIMAL (0), _FEASIBLE,
// _INFEASIBLE, _UNKNOWN.
func statusCode(s solve.Status) int {
	switch s {
	case solve.Optimal:
		return 0
	case solve.Feasible:
		return 1
	case solve.Infeasible:
		return 2
	default:
		return 3
	}
}

// planOf is the plan the caller gives for the problem: offsets, and pools
// (indices into the problem's pools; nil: the first), checked by the
// verifier first: a plan it rejects is never written.
func (pr *problem) planOf(offsets []int64, pools []int32) (*optalloc.Input, *model.Plan, error) {
	in := pr.snapshot()
	p := in.Problem
	if err := p.Validate(); err != nil {
		return nil, nil, err
	}
	if len(offsets) != len(p.Buffers) || (pools != nil && len(pools) != len(p.Buffers)) {
		return nil, nil, badArg("%d offsets for %d buffers", len(offsets), len(p.Buffers))
	}
	pl := model.NewPlan(p)
	for i := range pl.Placements {
		pl.Placements[i].Offset = offsets[i]
		if pools != nil {
			pl.Placements[i].Pool = int(pools[i])
		}
	}
	if vs := verify.Check(p, pl); len(vs) > 0 {
		return nil, nil, badArg("the plan is invalid (%d violations; first: %s): not written", len(vs), vs[0])
	}
	return in, pl, nil
}

// writePlan writes the caller's plan through the front door, as
// optalloc_result_write writes a result's.
func (pr *problem) writePlan(offsets []int64, pools []int32, path string) error {
	in, pl, err := pr.planOf(offsets, pools)
	if err != nil {
		return err
	}
	if path == "-" {
		return badArg("- (standard output) is not a file here: give a path")
	}
	return in.Write(path, pl)
}

// encodePlan is writePlan's bytes for a path of that suffix, not written.
func (pr *problem) encodePlan(offsets []int64, pools []int32, path string) ([]byte, error) {
	in, pl, err := pr.planOf(offsets, pools)
	if err != nil {
		return nil, err
	}
	enc, err := in.Encode(path, pl)
	if err != nil {
		return nil, err
	}
	return enc.Data, nil
}
