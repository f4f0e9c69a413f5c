package corpus

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/optalloc/optalloc"
	"github.com/optalloc/optalloc/heuristics"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/solve"
	"github.com/optalloc/optalloc/verify"
)

// ErrOverrun marks a solve that did not return within Config.HardLimit: a
// bug in an engine that ignores its time limit.
var ErrOverrun = errors.New("solve overran its time limit")

// Instance is one problem of a corpus.
type Instance struct {
	// Name identifies the instance in reports (usually its path).
	Name    string
	Problem *model.Problem
	// Online, when not nil, marks the buffers a runtime places itself
	// around the plan (TFLite Micro's kernel scratch buffers): every
	// method's arena is then the device's — its plan's other buffers kept,
	// these placed as the runtime places them (device.Simulate), and auto
	// chooses as plan does (device.SolveTFLM).
	Online []bool
	// Input, when not nil, is the input Problem was loaded from
	// (optalloc.Load): its runtime back end (TFLite Micro's, for a .tflite
	// model) then plans, as optalloc plan does, instead of a generic
	// runtime of the Online flags.
	Input *optalloc.Input
}

// Config controls Run.
type Config struct {
	// Methods are solve.Options.Method values; empty means DefaultMethods().
	Methods []string
	// TimeLimit bounds each (instance, method) solve; 0 means none.
	TimeLimit time.Duration
	// Workers is the number of instances solved at the same time; 0 means
	// runtime.NumCPU().
	Workers int
	// Threads is passed to every solve; 0 means max(1, NumCPU/Workers).
	Threads int
	// Seed is passed to every solve.
	Seed int64
	// Work is passed to every solve (solve.Options.Work): a work budget
	// instead of wall time, the same answer on any machine.
	Work int64
	// AsPlan plans every method as optalloc plan does (optalloc.Plan): for
	// an instance with Online buffers, the best device arena of several
	// layouts. By default a method other than auto is measured alone, its
	// plan with the online buffers replayed around it (what compare
	// measures, Options.MethodOnly).
	AsPlan bool
	// HardLimit is how long a solve may run before Run gives up waiting for
	// it (a solve that ignores its time limit would hang the whole run);
	// the run then carries ErrOverrun and its goroutine is abandoned. 0
	// means 2·TimeLimit + 10s when TimeLimit > 0, else no limit.
	HardLimit time.Duration
	// Layout is "offsets" (default) or "blocks" (blocks.Solve; Methods are
	// then block methods, see BlockMethods).
	Layout string
	// Tune, when set, adjusts each offset solve before it starts: it may
	// set fields of opt, return a context carrying planner settings, and
	// return the problem to solve and verify against (p itself or a
	// changed copy; p is shared between methods and must not be changed).
	// Block layouts do not call it.
	Tune func(ctx context.Context, p *model.Problem, opt *solve.Options) (context.Context, *model.Problem)
	// OnRun, when set, is called after each solve (from worker goroutines,
	// one call at a time).
	OnRun func(instance string, r MethodRun)
}

// MethodRun is the outcome of one method on one instance.
type MethodRun struct {
	Method     string
	Peak       int64
	LowerBound int64
	Status     solve.Status
	FoundBy    string
	Elapsed    time.Duration
	// Valid is the verdict of verify.Check on the plan (false without a plan).
	Valid bool
	// Violation describes the violations when the plan is invalid.
	Violation string
	// Err is the error Solve returned, if any.
	Err error
	// Stats are the solve statistics.
	Stats solve.Stats
	// Plan is the plan itself (nil when none was found).
	Plan *model.Plan
}

// HasPlan reports whether the run produced a plan.
func (r *MethodRun) HasPlan() bool { return r.Err == nil && r.Plan != nil }

// Result is every method's run on one instance.
type Result struct {
	Name    string
	Buffers int
	// MaxLive is the sweep bound of the instance.
	MaxLive int64
	// LowerBound is the best lower bound any run proved (at least MaxLive);
	// 0 for a problem with several pools (see runInstance).
	LowerBound int64
	Runs       []MethodRun
	// BestPeak is the smallest peak of a valid plan (0 when no run has one);
	// Best lists the methods that reached it.
	BestPeak int64
	Best     []string
}

// Gap returns (peak − LowerBound) / LowerBound in percent for a run, or -1
// when the run has no plan or the bound is 0.
func (r *Result) Gap(run *MethodRun) float64 {
	if !run.HasPlan() || r.LowerBound <= 0 {
		return -1
	}
	return float64(run.Peak-r.LowerBound) / float64(r.LowerBound) * 100
}

// IsBest reports whether a run reached the best peak of the instance.
func (r *Result) IsBest(run *MethodRun) bool {
	return run.HasPlan() && run.Valid && run.Peak == r.BestPeak
}

// DefaultMethods returns every registered planner followed by "auto".
func DefaultMethods() []string { return append(heuristics.Names(), "auto") }

// AllMethods returns every method Solve accepts: the planners, then
// solve.Methods.
func AllMethods() []string { return append(heuristics.Names(), solve.Methods...) }

// CheckMethods returns an error naming the first method Solve does not know.
func CheckMethods(methods []string) error {
	known := AllMethods()
	for _, m := range methods {
		if !slices.Contains(known, m) {
			return fmt.Errorf("unknown method %q (known: %s)", m, strings.Join(known, ", "))
		}
	}
	return nil
}

// Run solves every instance with every method and returns one Result per
// instance, in the order of insts. Instances run in parallel (cfg.Workers),
// the methods of one instance one after the other, so that no problem is
// shared between goroutines. A cancelled context stops the remaining solves:
// their runs carry the context's error.
func Run(ctx context.Context, insts []Instance, cfg Config) []Result {
	methods := cfg.Methods
	if len(methods) == 0 {
		methods = DefaultMethods()
	}
	workers := cfg.Workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	workers = max(1, min(workers, len(insts)))
	threads := cfg.Threads
	if threads <= 0 {
		threads = max(1, runtime.NumCPU()/workers)
	}
	results := make([]Result, len(insts))
	var mu sync.Mutex // serialises OnRun
	jobs := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				results[i] = runInstance(ctx, insts[i], methods, cfg, threads, func(r MethodRun) {
					if cfg.OnRun != nil {
						mu.Lock()
						cfg.OnRun(insts[i].Name, r)
						mu.Unlock()
					}
				})
			}
		}()
	}
	for i := range insts {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	return results
}

func runInstance(ctx context.Context, inst Instance, methods []string, cfg Config, threads int, done func(MethodRun)) Result {
	p := inst.Problem
	res := Result{Name: inst.Name, Buffers: len(p.Buffers), MaxLive: p.ComputeSweep().MaxLive}
	res.LowerBound = res.MaxLive
	// With several pools the peak is the largest pool's and spilling lowers
	// it: neither max-live nor a run's bound (that of its own split) bounds
	// every split, so no lower bound (and no gap) is claimed.
	multi := len(p.PoolList()) > 1
	if multi {
		res.LowerBound = 0
	}
	for _, m := range methods {
		run := solveOne(ctx, inst, m, cfg, threads)
		if run.Err == nil && !multi && run.LowerBound > res.LowerBound {
			res.LowerBound = run.LowerBound
		}
		res.Runs = append(res.Runs, run)
		done(run)
	}
	for i := range res.Runs {
		r := &res.Runs[i]
		if r.HasPlan() && r.Valid && (res.BestPeak == 0 || r.Peak < res.BestPeak) {
			res.BestPeak = r.Peak
		}
	}
	for i := range res.Runs {
		if res.IsBest(&res.Runs[i]) {
			res.Best = append(res.Best, res.Runs[i].Method)
		}
	}
	return res
}

func solveOne(ctx context.Context, inst Instance, method string, cfg Config, threads int) MethodRun {
	p := inst.Problem
	run := MethodRun{Method: method}
	if err := ctx.Err(); err != nil {
		run.Err = err
		return run
	}
	opt := solve.Options{Method: method, TimeLimit: cfg.TimeLimit, Threads: threads, Seed: cfg.Seed, Work: cfg.Work}
	if cfg.Tune != nil && cfg.Layout != "blocks" {
		ctx, p = cfg.Tune(ctx, p, &opt)
	}
	start := time.Now()
	type outcome struct {
		r   *solve.Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		if cfg.Layout == "blocks" {
			r, err := solveBlocks(ctx, p, method, cfg)
			done <- outcome{r, err}
			return
		}
		// The front door: a runtime's own buffers (online) are placed
		// around each method's plan as the runtime places them, and auto
		// chooses as plan does.
		in := optalloc.NewInput(inst.Name, p, inst.Online)
		if inst.Input != nil {
			in = inst.Input.WithProblem(p)
		}
		r, err := optalloc.Plan(ctx, in, optalloc.Options{Options: opt, MethodOnly: !cfg.AsPlan})
		if err != nil {
			done <- outcome{nil, err}
			return
		}
		done <- outcome{r.Result, nil}
	}()
	hard := cfg.HardLimit
	if hard == 0 && cfg.TimeLimit > 0 {
		hard = 2*cfg.TimeLimit + 10*time.Second
	}
	var timeout <-chan time.Time
	if hard > 0 {
		t := time.NewTimer(hard)
		defer t.Stop()
		timeout = t.C
	}
	var r *solve.Result
	var err error
	select {
	case o := <-done:
		r, err = o.r, o.err
	case <-timeout:
		run.Elapsed = time.Since(start)
		run.Err = fmt.Errorf("%w: still running after %s (time limit %s)", ErrOverrun, hard, cfg.TimeLimit)
		return run
	}
	run.Elapsed = time.Since(start)
	if err != nil {
		run.Err = err
		return run
	}
	run.Peak, run.LowerBound, run.Status, run.FoundBy = r.Peak, r.LowerBound, r.Status, r.Method
	run.Elapsed, run.Stats, run.Plan = r.Elapsed, r.Stats, r.Plan
	if r.Plan != nil {
		// Independent re-check: Solve verifies too, but a gate must not
		// trust the code it gates.
		if vs := verify.Check(p, r.Plan); len(vs) > 0 {
			run.Violation = fmt.Sprintf("%d violations, first: %s", len(vs), vs[0])
		} else {
			run.Valid = true
		}
	}
	return run
}
