// Package bounds holds optalloc's lower bounds on the peak, one file per
// technique:
//
//   - maxlive.go: max-live, the largest total size of buffers live at one
//     time;
//   - align.go: the alignment bound of one time (Align): aligned buffers
//     waste the padding of their last blocks that other bytes cannot fill;
//   - pair.go: the two-time alignment bound: a buffer live at two times
//     keeps its offset, so it must avoid the union of the aligned buffers
//     live at only one of them;
//   - pins.go: the top of the pinned buffers (PinTop), and whether the pins
//     alone can be placed at all (PinConflicts);
//   - rounded.go: where every offset lies on a grid coarser than the sizes,
//     what a bound of the problem with its sizes rounded up proves of the
//     original (RoundedGrid, RoundUp, RoundedBound);
//   - window.go: clipped stretches of time minimised by the
//     branch-and-bound and refuted by SAT (Windows): a window's optimum
//     bounds the whole problem;
//   - cut.go: section cuts (Sections, Fullest, Cut): the problem relaxed
//     to chosen elementary time slots, not necessarily consecutive (the
//     fullest of the whole schedule); a cut refuted by an exact engine
//     bounds the problem. Used by benchmarks/cmd/gapwork, not by Prove;
//   - prove.go: Prove races the provers (branch-and-bound refutations of
//     the current bound, SAT relaxations, windows) for `optalloc bounds
//     --prove`.
//
// Every bound here is proven: the code computes it from the problem (or
// an exact engine's exhausted search), and says how in one sentence.
// Package bounds imports the exact engines and model, never solve.
package bounds
