// Package heuristics holds the fast planners of optalloc. Each planner sits
// behind the Planner interface (Name, Plan) and is registered under its
// name (All, ByName, Names); they give the upper bound that the exact
// engines start from, and they are the answer on instances too large to
// prove optimal.
//
// The planners:
//
//   - greedy-ORDER / firstfit-ORDER (BestFit): the TFLite/XLA heap
//     simulator, items in the order of a metric, each into the smallest
//     (best-fit) or lowest (first-fit) gap among the placed items it meets
//     in time; greedy-size is the plain greedy-by-size best-fit.
//   - greedy-textbook (Textbook): the textbook greedy — size order, ties by
//     start, lowest gap; firstfit-size but for ties.
//   - firstfit-peak (PeakFirst): first fit with the buffers live at the
//     max-live time first, longest-lived lowest, then the rest by size.
//   - squeaky (Squeaky): squeaky-wheel rounds of first fit, the buffers
//     above max-live or at the peak moved to the front of the order; its
//     Improve starts from a plan (solve's improvement phase on large
//     problems).
//   - freelist (FreeList, seed 000): a sweep over time with a free list
//     sorted by size; O(n log n), for millions of buffers; handles tiers.
//   - strip-ORDER (Strip, seed 001): bottom-left strip packing with the
//     peak-driven risk-class re-ordering loop; StripByName reads any order
//     of metrics joined by - (tie-break), -plus- (normalised sum), -x-
//     (product), -per- (ratio), with -asc for lowest first.
//   - skyline (Skyline): bottom-up stacking, lowest position first.
//   - hillclimb (HillClimb) and lns (LNS): improvement passes that keep the
//     best, seeded.
//   - lowfirst (LowFirst): bottom-up around the pinned buffers — the item
//     with the lowest first-fit offset goes there (holes below and between
//     pins first), longest lifetime first among equals — then
//     squeaky-wheel rounds under a target just below the best peak.
//
// Portfolio runs several planners concurrently and keeps the best plan
// that verify.Check accepts. FillScratch (seed 004) re-places scratch
// buffers into the gaps of any plan, granting elastic scratch extra bytes
// (ScratchOptions: top or bottom of a gap, GrowBottom when nothing fits);
// SlowScratch keeps non-critical scratch out of the fastest pool.
// WithSettings puts planner knobs in a context (the free list's reuse
// threshold and block rules, strip packing's rounds and budget), which the
// registered planners read: the CLI's --planner-opt.
//
// Common rules: pinned buffers are placed first at their pins, as fixed
// obstacles the other buffers pack around (the greedy-* and firstfit-*
// planners also try lowfirst's bottom-up placement when pins are present
// and keep the lower peak); offsets
// are rounded up to the buffer's and the pool's alignment (an alias
// group's root offset solves every member's alignment); elastic buffers get
// their minimum size (FillScratch grants more). Planners other than
// freelist put every buffer in its first allowed pool and plan each pool
// apart. Every planner is deterministic.
//
// Exact occupancy: the planners built on the shared placer (greedy-*,
// firstfit-*, strip-*, hillclimb, lns) place an alias group or a buffer
// with MiniMalloc gaps by its exact footprint — the root's and every
// member's rectangles at their deltas, nothing in an absent gap window and
// only [Lo, Hi) in a partial one — so other buffers may use the bytes the
// group does not occupy at a time (a concat output before it is born, a
// view outliving its input, a buffer's absent window). Plain buffers stay
// on the fast path. skyline, skyline-random and freelist still reserve an
// item's bounding rectangle (the root's bytes over the union of the
// members' lifetimes): conservative, always valid. FillScratch sees the
// other buffers' exact rectangles and leaves scratch buffers with gaps of
// their own in place. BoundingRectangles(ctx) makes every planner use
// bounding rectangles (for measurements).
//
// Hints: HonourHints moves hinted alias roots of a plan to their hint when
// that is free for their whole footprint, aligned, within capacity and
// under the pool's peak; Portfolio applies it to its winner.
package heuristics
