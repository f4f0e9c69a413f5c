package heuristics

import (
	"context"

	"github.com/optalloc/optalloc/model"
)

func init() {
	Register(&FillSweep{})
}

// FillSweep is ClassSweep (sweep-classes) with the small class put into
// the large plan's holes: the large buffers are planned by their sweep
// (sweep-peak) as there; then each small buffer, in the order of the ends,
// takes bytes below the large plan's top that are free for its whole
// lifetime (holeFill); only those that find none are planned by a sweep of
// their own, stacked above the large plan as in ClassSweep. On 1 000 000
// dense random buffers (seeds 1, 2, 3) the plans are 0.83%, 0.69% and 0.37%
// above max-live in 3.1–3.9 s of CPU, against sweep-classes' 1.00%, 0.85%
// and 0.58% in 1.9 s. What is left above the large plan are mostly the
// long-lived small buffers: the large sweep reuses a freed block within a
// short time, so few holes last as long as they do (docs/experiments.md,
// 2026-11-28, fourth session). Its name is "sweep-classes-fill".
type FillSweep struct {
	// Threshold is the size from which a buffer is large, as in
	// ClassSweep (0: the largest size / 64, rounded up to a power of two).
	Threshold int64
}

// Name implements Planner.
func (f *FillSweep) Name() string { return "sweep-classes-fill" }

// Plan implements Planner. It ends checkReserve per buffer before ctx's
// deadline, as sweep-repack does: its plan comes after another sweep's in
// the huge portfolio, and one that ended at the deadline would add its
// verification (0.3–0.4 s of CPU on a million buffers) after it.
func (f *FillSweep) Plan(ctx context.Context, p *model.Problem) (*model.Plan, error) {
	ctx, cancel := reserveCheck(ctx, len(p.Buffers))
	defer cancel()
	return perPool(ctx, p, f.plan)
}

func (f *FillSweep) plan(ctx context.Context, its []item) ([]int64, error) {
	sweep := &PeakSweep{}
	large, small, align, ok := splitClasses(its, f.Threshold)
	if !ok {
		return sweep.plan(ctx, its)
	}
	off, top, err := planLarge(ctx, sweep, its, large)
	if err != nil {
		return nil, err
	}
	rest, err := fillHoles(ctx, its, large, small, off, top)
	if err != nil {
		return nil, err
	}
	return off, stackAbove(ctx, sweep, its, rest, top, align, off)
}
