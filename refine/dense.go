package refine

import (
	"github.com/optalloc/optalloc/exact/bnb"
	"github.com/optalloc/optalloc/model"
)

// TooDense reports whether Refine, started from plan, would stop at once
// because the first window at plan's peak (b's first attempt) is too dense
// to search: its node budget, b.Work / (pairs + 4 × buffers), is under
// minNodes. There the refinement cannot lower the peak, and the pipeline
// runs the peak stack before the heuristics instead of after them
// (solve/stack.go). It costs the refinement's set-up, O(n log n), and no
// search. A pinned buffer at the peak is not "too dense" (Refine stops
// there for that reason instead).
//
// The answer depends on plan: on PanGu-α 2.6B the peaks of freelist's,
// greedy-size's and greedy-textbook's plans are too dense, those of
// firstfit-peak's and sweep-peak's are not (the pipeline asks it of its
// first plan, freelist's).
func TooDense(p *model.Problem, plan *model.Plan, b Budget) bool {
	if len(b.Attempts) == 0 || len(p.Buffers) == 0 {
		return false
	}
	r := newRefiner(p, plan, bnb.Options{})
	r.work = b.Work
	peak, at, _ := r.peak()
	if peak <= 0 || r.fixedTop >= peak {
		return false
	}
	lo, hi := r.window(at, peak, b.Attempts[0].Groups)
	sub, _, _, _, pinFrom := r.subProblem(lo, hi)
	return r.windowNodes(sub, pinFrom) < minNodes
}

// windowNodes is the node budget of a window's sub-problem at effort 1:
// work / (pairs + 4 × buffers) + 1, where pairs are its pairs of buffers
// alive together that are not both pinned (the pinned ones are from
// pinFrom on).
func (r *refiner) windowNodes(sub *model.Problem, pinFrom int) int64 {
	pairs := windowPairs(sub.Buffers) - windowPairs(sub.Buffers[pinFrom:])
	return r.work/(pairs+4*int64(len(sub.Buffers))) + 1
}
