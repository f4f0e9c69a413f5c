package bounds

import (
	"context"
	"fmt"
	"sync"

	"github.com/optalloc/optalloc/model"
)

// Bound is a lower bound on the peak of every valid plan of a problem, and
// its proof.
type Bound struct {
	Value int64
	// By names the bound in messages ("max-live", "the alignment bound",
	// "the pins' top", "the window bound").
	By    string
	Proof Proof
}

// Proof is what forces a bound, as the prover computed it: the times at
// which it holds and the buffers it rests on, and one sentence a person
// can check against the problem.
type Proof struct {
	// Times: the time of a one-time bound (max-live, a section's
	// alignment bound), the two times of the two-time bound, the window
	// [from, to) of a window bound.
	Times []int64
	// Buffers: the buffers (indices) that force it, when a few do (the
	// pinned buffer at the top).
	Buffers []int
	// Detail says how the bound follows, in one sentence.
	Detail string
}

// A Prover computes a lower bound of a single-pool problem with its proof.
// Every technique of this package is one; a faster implementation of one
// (max-live, say) is swapped in by giving solve another Prover.
type Prover interface {
	// Name is the technique's short name ("max-live", "align", "pins",
	// "window").
	Name() string
	// Bound returns the technique's bound of p (a plan's peak is never
	// below it). Provers that search stop when ctx ends, with the best
	// bound proven so far.
	Bound(ctx context.Context, p *model.Problem) (Bound, error)
}

// Start are the provers a solve starts from: cheap, no search.
var Start = []Prover{AlignProver{}, PinsProver{}}

// Best returns the highest of the provers' bounds (the first among equal
// ones), at least 0.
func Best(ctx context.Context, p *model.Problem, provers ...Prover) (Bound, error) {
	best := Bound{By: "max-live"}
	for i, pr := range provers {
		b, err := pr.Bound(ctx, p)
		if err != nil {
			return Bound{}, fmt.Errorf("%s: %w", pr.Name(), err)
		}
		if i == 0 || b.Value > best.Value {
			best = b
		}
	}
	return best, nil
}

// MaxLiveProver proves max-live: the bytes live at one time need that much
// address space.
type MaxLiveProver struct{}

// Name implements Prover.
func (MaxLiveProver) Name() string { return "max-live" }

// Bound implements Prover.
func (MaxLiveProver) Bound(_ context.Context, p *model.Problem) (Bound, error) {
	live, at := MaxLiveAt(p)
	return Bound{Value: live, By: "max-live", Proof: Proof{Times: []int64{at},
		Detail: fmt.Sprintf("at time %d, %d bytes are live", at, live)}}, nil
}

// AlignProver proves the alignment bound of one time, or of two (Align);
// max-live where alignments do not raise it.
type AlignProver struct{}

// Name implements Prover.
func (AlignProver) Name() string { return "align" }

// Bound implements Prover.
func (AlignProver) Bound(ctx context.Context, p *model.Problem) (Bound, error) {
	r := AlignContext(ctx, p)
	b := Bound{Value: r.LowerBound, By: r.Name(), Proof: Proof{Detail: r.Detail()}}
	switch {
	case r.LowerBound <= r.MaxLive:
		b.Proof.Times = []int64{r.MaxLiveAt}
	case r.Pair:
		b.Proof.Times = []int64{r.At, r.At2}
	default:
		b.Proof.Times = []int64{r.At}
	}
	return b, nil
}

// PinsProver proves the top of the pinned buffers: every plan keeps them
// where they are.
type PinsProver struct{}

// Name implements Prover.
func (PinsProver) Name() string { return "pins" }

// Bound implements Prover.
func (PinsProver) Bound(_ context.Context, p *model.Problem) (Bound, error) {
	top, i := pinTopOf(p)
	b := Bound{Value: top, By: "the pins' top", Proof: Proof{Detail: "no buffer is pinned"}}
	if i >= 0 {
		b.Proof.Buffers = []int{i}
		b.Proof.Detail = fmt.Sprintf("buffer %s is pinned with its highest byte at %d", p.Buffers[i].ID, top)
	}
	return b, nil
}

// WindowProver proves window bounds (Windows) from a starting bound until
// ctx ends or every window was tried.
type WindowProver struct {
	Options
	// From is the bound to beat (e.g. Align's).
	From int64
}

// Name implements Prover.
func (WindowProver) Name() string { return "window" }

// Bound implements Prover: the best window bound above From, or From
// (with no proof of its own) when no window beats it.
func (w WindowProver) Bound(ctx context.Context, p *model.Problem) (Bound, error) {
	var mu sync.Mutex
	b := Bound{Value: w.From, By: "the starting bound", Proof: Proof{Detail: "no window beat the starting bound"}}
	current := func() int64 {
		mu.Lock()
		defer mu.Unlock()
		return b.Value
	}
	windows(ctx, p, w.Options, current, func(lb int64, _, how string, from, to int64) {
		mu.Lock()
		defer mu.Unlock()
		if lb > b.Value {
			b = Bound{Value: lb, By: "the window bound", Proof: Proof{Times: []int64{from, to}, Detail: how}}
		}
	})
	return b, nil
}
