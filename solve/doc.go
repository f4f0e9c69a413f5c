// Package solve is optalloc's pipeline: validate and bound the problem, run
// the heuristic portfolio for an upper bound, close the gap with the exact
// engines while time remains, verify the result, and report the plan with
// its peak, lower bound, gap and proof status.
//
// A single-pool solve is a loop over stages (stages.go: pipeline), each a
// small type that says when it applies and hands on the best plan, the
// lower bound and the statistics: bounds, a first plan (freelist, before
// anything that may take long: no exact check comes before a plan), the
// peak stack where the refinement's windows are too dense (stack.go), a
// short exact race when minimising (early.go), the heuristics, the rounded
// problem, the coarse restrictions, the refinement, the exact race, the
// portfolio resumed, squeaky, and the scratch and hints passes. The stages'
// shares of a time limit are counted in CPU time (cpuclock.go), so that a
// loaded machine runs the same stages with the same CPU, later. A
// multi-pool problem is split over its pools first (tiers.go), each pool
// then a single-pool solve. docs/layout.md lists the stages.
//
// The lower bound starts at the best of bounds.Start: max-live, raised
// with alignments (bounds.Align: at one time, aligned buffers waste the
// padding of their last blocks that other bytes cannot fill; across two
// times, a buffer live at both keeps its offset, so it must avoid the
// union of the aligned buffers live at only one of them), or the pins'
// top.
//
// When some buffers have large alignments, the minimisation first solves
// restrictions of the problem (coarse.go: the plain buffers aligned to a
// coarser grid, or the largely aligned buffers pinned where they pack
// alone): their plans are plans of the problem, found in a smaller search,
// and one that reaches the lower bound is optimal.
//
// When every offset lies on a grid A coarser than the sizes (a pool
// alignment), the rounded problem's starting bound L (every size rounded
// up to A: no conflict changes) proves L − A + the smallest remainder for
// the original, from the bounds stage on; when the plain portfolio leaves
// a gap, the minimisation plans the rounded problem (rounded.go), whose
// search runs on a grid A times coarser, and keeps its plan when lower.
//
// On sparsely aligned problems (a third of the buffers aligned to at least
// 8 grid units) the aligned buffers have few offsets each and SAT answers
// whole problems: the SAT engine then gets a larger encoding budget and
// descends with sat.Gallop, and the window bounds (bounds.Windows:
// clipped stretches of time minimised by the branch-and-bound and refuted
// by SAT) race to raise the lower bound; elsewhere they run only in
// ProveBound.
//
// On problems of 2 000 buffers or more, the time-window refinement
// (package refine) re-plans the stretch of time around the peak
// with the branch-and-bound, everything else pinned, window after window:
// long schedules (chains of ops, graphs with in-place views) reach max-live
// where the heuristics end 8–27% above it. When it leaves a gap, the peak
// stack (refine.Stack; stack.go, Options.NoStack) builds a plan around the
// time of max-live: the buffers spanning a window around it stacked at the
// bottom, the window's own buffers above them packed by the
// branch-and-bound, the rest placed around them by firstfit-peak and
// greedy-textbook; the refinement goes on from it. PanGu-α 2.6B, where
// every planner stopped 0.758% above max-live, is proven optimal that way.
//
// Every plan Solve returns has passed verify.Check; a plan the verifier
// rejects is a bug and is returned as an error, never as a result.
package solve
