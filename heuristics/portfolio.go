package heuristics

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/verify"
)

// PortfolioOptions configure Portfolio.
type PortfolioOptions struct {
	// Threads is the number of planners run at once; 0 means
	// runtime.NumCPU(). Problems of more than 200 000 buffers run one
	// planner at a time.
	Threads int
	// Seed is given to the seeded planners (hillclimb, lns, skyline-random).
	Seed int64
	// LowerBound, when > 0, is a proven lower bound on the peak: a planner
	// reaching it stops every planner after it in the list, and on a
	// single pool the improving planners (hillclimb, lns) stop once they
	// reach it. A decision may
	// pass its capacity instead: any plan within it is then good enough.
	LowerBound int64
	// Planners are the names to run, in tie-breaking order; empty means
	// DefaultPortfolio(number of buffers), without the best-fit family on
	// problems too dense for it (see denseLimit).
	Planners []string
	// NoSearch leaves the default list's searching planners out
	// (Searching): the cheap portfolio a caller runs before a search of
	// its own. It does not apply to Planners.
	NoSearch bool
	// Without are planners of the default list not to run: a caller that
	// holds their plan already (solve's first plan is FirstPlanner's). It
	// does not apply to Planners.
	Without []string
	// Validated says that p has been validated by the caller (a million
	// buffers take half a second).
	Validated bool
	// OnPlan, when set, is called with each verified plan that fits and
	// is lower than every plan before it, as soon as its planner ends (one
	// call at a time): the caller has a plan long before the slowest
	// planner ends. The plan Portfolio returns may differ (ties are broken
	// by the list order, and hints are honoured after).
	OnPlan func(plan *model.Plan, name string)
}

// largeInstance is the number of buffers above which the default portfolio
// keeps only the planners that stay fast on long traces.
const largeInstance = 20000

// hugeInstance is the number of buffers above which the default portfolio
// keeps the two planners that scale to millions of buffers.
const hugeInstance = 200000

// DefaultPortfolio returns the planners Portfolio runs by default on a
// problem of n buffers.
//   - Up to 20 000 buffers: every registered planner but squeaky,
//     sweep-repack and sweep-fill-repack (freelist, firstfit-peak,
//     firstfit-size and greedy-textbook first above 5 000 buffers).
//   - Up to 200 000: the fast ones, fastest first on dense traces
//     (freelist, the three sweeps, sweep-repack, firstfit-peak,
//     firstfit-size, greedy-textbook, firstfit-area, greedy-lifetime,
//     greedy-size; with sweep-repack a 10 s solve of 40 095 long random
//     skip connections ends at max-live, against 0.57% without).
//   - Above: the sweeps, the one that decides most first. On dense traces
//     sweep-classes (dense random 1.00%, 1.8 s CPU; transformer at
//     max-live, 0.6 s), sweep-classes-fill (its small class in the large
//     plan's holes: dense random 0.83%, 3.2 s) and sweep-peak (1.99%,
//     2.9 s); on sparse ones decisiveFirst puts sweep-peak first (skip
//     connections 6.24%, 1.0 s) and sweep-fill-repack after it. Then
//     sweep-peak-lifetime and sweep-end, then freelist (1.4 s, 4.44% on
//     the dense random trace: it gave the first plan before the sweeps
//     did, see FirstPlanner), firstfit-size, greedy-textbook and
//     greedy-size (Portfolio keeps only freelist and the sweeps where the
//     best-fit planners would scan too many pairs, see denseLimit).
//
// The sweeps (sweep-peak, sweep-peak-lifetime, sweep-end: PeakSweep) are
// O(n log n) like freelist and lower: on 1 000 000 buffers, a transformer
// trace at max-live against freelist's 0.81%, dense random 1.8% against
// 4.4%, long random skip connections 6.2% against 18.5%.
// firstfit-peak is first fit with the items live at the
// max-live time first, longest-lived lowest: on 20 generated training
// traces of 20 000–100 000 buffers 0.000–0.045% above max-live against
// the textbook's 0.000–0.674% (see PeakFirst). firstfit-size and
// greedy-textbook are the textbook greedy (size order, lowest gap; ties by
// lifetime, or by start): on training traces they beat greedy-size's
// smallest gap, which leaves holes a later buffer cannot use (a
// 30 000-buffer generated trace: 0.38% against 2.53% above max-live; see
// docs/heuristics.md), and the large lists had lost them. The two differ
// on ties only, and each wins on some traces. On a 62 000-buffer transformer
// trace with its backward pass (509 M pairs of buffers alive together)
// they take 0.34, 2.5, 4.6 and 8.8 s, with gaps of 1.63%, 0.013%, 0.013%
// and 0.006%; greedy-size first had left a 5 s run with freelist's plan
// only. Without the backward pass each takes 0.25 s.
func DefaultPortfolio(n int) []string {
	if n > hugeInstance {
		return []string{"sweep-classes", "sweep-classes-fill", "sweep-peak", "sweep-peak-lifetime", "sweep-end", "freelist", "firstfit-size", "greedy-textbook", "greedy-size"}
	}
	if n > largeInstance {
		return []string{"freelist", "sweep-peak", "sweep-peak-lifetime", "sweep-end", "sweep-repack", "firstfit-peak", "firstfit-size", "greedy-textbook", "firstfit-area", "greedy-lifetime", "greedy-size"}
	}
	// squeaky is an improvement pass (solve runs it from the best plan);
	// sweep-repack, sweep-peak with a re-pack of the top (and
	// sweep-fill-repack, the same from sweep-classes-fill), is left to be
	// asked for by name (docs/experiments.md, 2026-11-28 third session).
	names := slices.DeleteFunc(Names(), func(s string) bool { return s == "squeaky" || s == "sweep-repack" || s == "sweep-fill-repack" })
	if n > mediumInstance {
		// TFLite Micro's planner walks every placed buffer for each one:
		// quadratic, and a baseline rather than a contender.
		names = slices.DeleteFunc(names, func(s string) bool { return s == "tflm-greedy" })
		// freelist first: O(n log n), so a plan exists early even where
		// the best-fit planners take most of a short limit (20 000 buffers
		// of a dense trace: greedy-size 0.83 s, freelist 0.1 s; with 0.75 s
		// left no planner had finished).
		names = slices.DeleteFunc(names, func(s string) bool {
			return s == "freelist" || s == "firstfit-peak" || s == "firstfit-size" || s == "greedy-textbook"
		})
		names = append([]string{"freelist", "firstfit-peak", "firstfit-size", "greedy-textbook"}, names...)
	}
	return names
}

// Searching are the planners of the default portfolio that search (random
// restarts, hill climbing, large neighbourhoods) until a work budget is
// spent, rather than place once: on MiniMalloc E they take 0.23–0.49 s
// each where the others take 0.005–0.11 s.
var Searching = []string{"hillclimb", "lns", "skyline-random"}

// mediumInstance is the number of buffers above which the default
// portfolio starts with freelist.
const mediumInstance = 5000

// Seeded is a planner whose randomness comes from a seed.
type Seeded interface {
	WithSeed(seed int64) Planner
}

// Portfolio runs planners concurrently and returns the best verified plan
// and the winner's name. Every plan is checked with verify.Check: a plan
// with any violation other than out-of-capacity is a bug, and Portfolio
// returns an error naming the planner (the plan is never used). Plans that
// only exceed a pool's capacity are kept but rank after plans that fit.
// Ranking: fits capacity, then the largest pool peak, then the sum of the
// pool peaks, then the planner's place in the list — never finishing time,
// so the result is deterministic for a given seed. The winner's hinted
// buffers then go to their hints where that costs nothing (HonourHints;
// the name gets "+hints" when a buffer moved). When a plan reaches
// LowerBound, the planners after it in the list are cancelled (those
// before it run on, as they would win a tie). When ctx is done, the best
// plan so far is returned if there is one.
func Portfolio(ctx context.Context, p *model.Problem, opt PortfolioOptions) (*model.Plan, string, error) {
	if !opt.Validated {
		if err := p.Validate(); err != nil {
			return nil, "", err
		}
	}
	outer := ctx
	ctx = context.WithValue(ctx, validatedKey{}, p)
	if opt.LowerBound > 0 && len(p.PoolList()) == 1 {
		// The improving planners stop there too (withStopAt): on the
		// Silero VAD v5, lns reached the rounded bound and ran on to its
		// work budget, 0.4 s, while the portfolio waited for it.
		ctx = withStopAt(ctx, opt.LowerBound)
	}
	names := opt.Planners
	if len(names) == 0 {
		names = DefaultPortfolio(len(p.Buffers))
		if opt.NoSearch {
			names = slices.DeleteFunc(slices.Clone(names), func(s string) bool { return slices.Contains(Searching, s) })
		}
		if len(p.Buffers) > hugeInstance {
			pairs := p.LiveCounts().Pairs
			if pairs > denseLimit {
				names = slices.DeleteFunc(slices.Clone(names), func(s string) bool { return !slices.Contains(sweeps, s) })
			}
			names = decisiveFirst(names, pairs/float64(len(p.Buffers)))
		}
		names = slices.DeleteFunc(slices.Clone(names), func(s string) bool { return slices.Contains(opt.Without, s) })
	}
	planners := make([]Planner, len(names))
	for i, name := range names {
		pl, ok := ByName(name)
		if !ok {
			return nil, "", fmt.Errorf("unknown planner %q (known: %s)", name, strings.Join(Names(), ", "))
		}
		if s, ok := pl.(Seeded); ok {
			pl = s.WithSeed(opt.Seed)
		}
		planners[i] = pl
	}
	threads := opt.Threads
	if threads <= 0 {
		threads = runtime.NumCPU()
	}
	if len(p.Buffers) > hugeInstance {
		// One planner at a time: on millions of buffers each waits on
		// memory, not on a core, and holds hundreds of megabytes. On
		// 2 000 000 dense random buffers with two threads, no sweep had
		// ended after 6 s and the process peaked at 1.87 GB; with one,
		// sweep-peak ended in 3 s and the peak was 1.33 GB.
		threads = 1
	}
	type result struct {
		plan  *model.Plan
		score [3]int64 // over capacity (0/1), max peak, sum of peaks
		err   error
	}
	results := make([]result, len(planners))
	cancels := make([]context.CancelFunc, len(planners))
	ctxs := make([]context.Context, len(planners))
	for i := range planners {
		ctxs[i], cancels[i] = context.WithCancel(ctx)
	}
	defer func() {
		for _, c := range cancels {
			c()
		}
	}()
	var mu sync.Mutex
	reported := int64(-1) // the peak last given to OnPlan
	var wg sync.WaitGroup
	sem := make(chan struct{}, threads)
	for i, pl := range planners {
		// Planners start in list order (a goroutine each, waiting on the
		// semaphore, started in whatever order the scheduler picked: with
		// --threads 1 a 62 000-buffer trace ran greedy-size's 8.8 s
		// before freelist's 0.34 s and had no plan after 3 s).
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if ctxs[i].Err() != nil {
				return
			}
			plan, err := pl.Plan(ctxs[i], p)
			if err != nil {
				if ctxs[i].Err() == nil {
					mu.Lock()
					results[i] = result{err: fmt.Errorf("planner %s: %w", pl.Name(), err)}
					mu.Unlock()
				}
				return
			}
			r := result{plan: plan}
			over := false
			for _, v := range verify.Check(p, plan) {
				if v.Kind == verify.OutOfCapacity {
					over = true
					continue
				}
				r = result{err: fmt.Errorf("planner %s produced an invalid plan (a bug): %s", pl.Name(), v)}
				break
			}
			if r.err == nil {
				peaks := plan.PoolPeaks(p)
				if over {
					r.score[0] = 1
				}
				for _, v := range peaks {
					r.score[1] = max(r.score[1], v)
					r.score[2] += v
				}
			}
			mu.Lock()
			results[i] = r
			if r.err == nil && !over && opt.OnPlan != nil && (reported < 0 || r.score[1] < reported) {
				reported = r.score[1]
				opt.OnPlan(plan, pl.Name())
			}
			mu.Unlock()
			if r.err == nil && !over && opt.LowerBound > 0 && r.score[1] <= opt.LowerBound {
				for j := i + 1; j < len(cancels); j++ {
					cancels[j]()
				}
			}
		}()
	}
	wg.Wait()
	best := -1
	for i, r := range results {
		if r.err != nil {
			return nil, "", r.err
		}
		if r.plan == nil {
			continue
		}
		if best < 0 || less3(r.score, results[best].score) {
			best = i
		}
	}
	if best < 0 {
		if err := outer.Err(); err != nil {
			return nil, "", err
		}
		return nil, "", fmt.Errorf("no planner produced a plan")
	}
	plan, name := results[best].plan, planners[best].Name()
	if moved, _ := HonourHintsContext(ctx, p, plan); moved != plan && !samePlan(moved, plan) {
		for _, v := range verify.Check(p, moved) {
			if v.Kind != verify.OutOfCapacity {
				return nil, "", fmt.Errorf("the hint pass produced an invalid plan after %s (a bug): %s", name, v)
			}
		}
		plan, name = moved, name+"+hints"
	}
	return plan, name, nil
}

func samePlan(a, b *model.Plan) bool {
	return slices.Equal(a.Placements, b.Placements)
}

func less3(a, b [3]int64) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

// sweeps are the planners of a huge default portfolio that stay O(n log n)
// on any trace.
var sweeps = []string{"freelist", "sweep-classes", "sweep-classes-fill", "sweep-peak", "sweep-peak-lifetime", "sweep-end"}

// Huge reports whether the default portfolio of a problem of n buffers is
// the one for millions of buffers (the sweeps, and the best-fit planners
// only where they scan few enough pairs).
func Huge(n int) bool { return n > hugeInstance }

// denseLimit is the number of pairs of buffers alive together above which
// the default portfolio of a huge problem is the sweeps alone: the best-fit
// planners scan the placed buffers that meet each new one, and on
// 1 000 000 dense random buffers (about 5·10¹⁰ pairs) greedy-size had not
// ended after 10 s, holding a heuristic-only run to its whole time limit.
// At 5·10⁸ pairs (a 62 000-buffer transformer trace) they take 2.5–9 s,
// and on 1 000 000 buffers with long skip connections (about 3·10⁸ pairs,
// but wide gaps to scan) more than 10 s each, where the sweeps take 0.5 s.
const denseLimit = 1e8

// tooDense reports whether the problem has more than denseLimit pairs of
// buffers with bytes alive together (model.LiveCounts: one pass counting
// per time step, or O(n log n) on spread-out times).
func tooDense(p *model.Problem) bool {
	return p.LiveCounts().Pairs > denseLimit
}

// classesDensity is the number of pairs of buffers alive together per
// buffer from which sweep-classes runs before sweep-peak in a huge default
// portfolio: each runs first where it decides. 1 000 000 dense random
// buffers have about 50 000 pairs per buffer (sweep-classes 1.00%,
// sweep-peak 1.99%), long random skip connections about 300 (6.47% and
// 6.24%); on a transformer trace (a few dozen) sweep-peak reaches max-live
// in 0.8 s and the planners after it are cancelled.
const classesDensity = 10000

// decisiveSweep names the sweep that decides most on a huge problem with
// pairsPerBuffer pairs of buffers alive together per buffer.
func decisiveSweep(pairsPerBuffer float64) string {
	if pairsPerBuffer >= classesDensity {
		return "sweep-classes"
	}
	return "sweep-peak"
}

// FirstPlanner names the planner whose plan a solve of p should have
// first, before anything that may take long: on more than 200 000 buffers
// (Huge) the sweep that decides most there (sweep-classes on dense traces,
// else sweep-peak; as cheap as the free list — 1.8 s of CPU against 1.4 s
// on 1 000 000 dense random buffers — and far lower: 1.00% against 4.44%),
// so that a loaded machine whose limit lets one planner end gets the
// sweep's plan; elsewhere freelist, O(n log n) on any trace.
func FirstPlanner(p *model.Problem) string {
	if !Huge(len(p.Buffers)) {
		return "freelist"
	}
	return decisiveSweep(p.LiveCounts().Pairs / float64(len(p.Buffers)))
}

// decisiveFirst puts sweep-peak before sweep-classes in names unless
// pairsPerBuffer reaches classesDensity (names is the default list, where
// sweep-classes comes first), with sweep-fill-repack right after it in
// place of sweep-classes-fill (and of sweep-repack, when names has it
// not): on sparse traces the small class in the large plan's holes lowers
// sweep-peak's plan (1 000 000 long random skip connections: 6.24% → 5.77%
// in 1.4 s of CPU), and the re-pack of the top windows lowers that one
// further (5.12% when cut at 7 s, where sweep-repack from sweep-peak's plan
// is at 6.02%; 2 000 000: 3.24% against 3.71%), where the sweeps after it
// do not; on dense traces the re-pack would stop at once (the windows meet
// too many boundary buffers).
func decisiveFirst(names []string, pairsPerBuffer float64) []string {
	if decisiveSweep(pairsPerBuffer) == "sweep-classes" {
		return names
	}
	c, s := slices.Index(names, "sweep-classes"), slices.Index(names, "sweep-peak")
	if c < 0 || s < c {
		return names
	}
	names = slices.DeleteFunc(slices.Clone(names), func(n string) bool {
		return n == "sweep-classes" || n == "sweep-classes-fill" || n == "sweep-fill-repack"
	})
	return slices.Insert(names, slices.Index(names, "sweep-peak")+1, "sweep-fill-repack", "sweep-classes")
}
