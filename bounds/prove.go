package bounds

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/optalloc/optalloc/exact/bnb"
	"github.com/optalloc/optalloc/exact/sat"
	"github.com/optalloc/optalloc/model"
)

// Proven is the lower bound Prove raised, and how it was proven.
type Proven struct {
	LowerBound int64  `json:"lower_bound"`
	Method     string `json:"method"` // max-live, align, pins, bnb, window or sat
	Detail     string `json:"detail"` // how it was proven
	// Optimal is set when a plan with peak == LowerBound was found too.
	Optimal bool           `json:"optimal"`
	Stats   map[string]any `json:"stats,omitempty"`
}

// Prove tries to raise the lower bound of a single-pool problem before
// ctx ends (opt.TimeLimit applies). It starts from Align (max-live, or
// the alignment bound, Method "align", when that is higher), or from the
// top of the pinned buffers (Method "pins") when that is higher. Three provers
// race:
//
//   - the branch-and-bound decides capacity C = the current bound; a
//     refutation proves the peak exceeds C, so the bound rises to the next
//     multiple of g (the GCD of sizes, alignments and pins: every
//     pushed-down plan's peak is one); a plan at C ends the climb (the bound
//     is then the optimum);
//   - the SAT engine refutes time windows and rounded-down relaxations
//     (sat.ProveLowerBound);
//   - the branch-and-bound minimises clipped time windows of a few sections,
//     and SAT refutes those it leaves open (window.go): a window's
//     optimum bounds the whole problem.
//
// The larger proven bound wins.
func Prove(ctx context.Context, p *model.Problem, opt Options) (*Proven, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if len(p.PoolList()) > 1 {
		return nil, fmt.Errorf("bounds --prove handles single-pool problems only")
	}
	if opt.TimeLimit > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, opt.TimeLimit)
		defer cancel()
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ab := AlignContext(ctx, p)
	b := &Proven{LowerBound: ab.LowerBound, Method: "max-live", Detail: ab.Detail(), Stats: map[string]any{}}
	if ab.LowerBound > ab.MaxLive {
		b.Method = "align"
	}
	if top := PinTop(p); top > b.LowerBound {
		b.LowerBound, b.Method, b.Detail = top, "pins", "the highest byte of a pinned buffer"
	}
	var mu sync.Mutex
	raise := func(lb int64, method, how string) {
		mu.Lock()
		defer mu.Unlock()
		if lb > b.LowerBound {
			b.LowerBound, b.Method, b.Detail = lb, method, how
		}
	}
	var wg sync.WaitGroup
	if !opt.NoSAT {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lb, how, st, err := sat.ProveLowerBound(ctx, p, opt.SAT)
			mu.Lock()
			b.Stats["sat"] = st
			mu.Unlock()
			if err == nil {
				raise(lb, "sat", how)
			}
		}()
	}
	if !opt.NoBnB {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if climbBound(ctx, p, opt, &mu, b, raise) {
				cancel() // a plan at the bound ends the SAT prover too
			}
		}()
	}
	if !opt.NoBnB {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Held back, so that what the climb proves at once (a plan at
			// max-live on most traces) does not share the cores with it.
			t := time.NewTimer(WindowDelay)
			defer t.Stop()
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			current := func() int64 {
				mu.Lock()
				defer mu.Unlock()
				return b.LowerBound
			}
			n := Windows(ctx, p, opt, current, raise)
			mu.Lock()
			b.Stats["windows"] = n
			mu.Unlock()
		}()
	}
	wg.Wait()
	return b, nil
}

// climbBound raises the bound by branch-and-bound refutations.
//
// It reports whether it found a plan at the bound (nothing is left to
// prove); when it stops for any other reason (time, an engine that declines
// the problem) the SAT prover goes on alone.
func climbBound(ctx context.Context, p *model.Problem, opt Options, mu *sync.Mutex, b *Proven, raise func(int64, string, string)) bool {
	g := Grid(p)
	bo := opt.BnB
	bo.Threads, bo.Seed = opt.Threads, opt.Seed
	var total bnb.Stats
	steps := 0
	defer func() {
		mu.Lock()
		b.Stats["bnb"] = map[string]any{"nodes": total.Nodes, "decisions": steps}
		mu.Unlock()
	}()
	for ctx.Err() == nil {
		mu.Lock()
		c := b.LowerBound
		mu.Unlock()
		t := time.Now()
		_, status, st, err := bnb.Decide(ctx, p, c, bo)
		total.Nodes += st.Nodes
		steps++
		switch {
		case err != nil || status == bnb.Unknown:
			return false
		case status == bnb.Feasible:
			mu.Lock()
			if b.LowerBound == c {
				b.Optimal = true
			}
			mu.Unlock()
			return true
		default:
			raise((c/g+1)*g, "bnb", fmt.Sprintf("search exhausted at capacity %d in %.2fs; peaks are multiples of %d", c, time.Since(t).Seconds(), g))
		}
	}
	return false
}
