// Package bnb is optalloc's main exact engine: a canonical branch-and-bound
// that decides whether a single-pool problem fits under a capacity, and
// minimises its peak with a proof of optimality.
//
// The search places one item per step at its minimum offset (the highest
// top among placed items it conflicts with, rounded up to its alignment) in
// canonical (offset, static rank) order, so every pushed-down packing is
// produced by exactly one placement sequence. Pruning: section floors and
// inference (a section's unplaced items stack above the lowest offset any
// of them can take), dominance (an item that fits entirely below a
// candidate means the candidate's packing is not minimal), forced
// placement of items that conflict with nothing unplaced, independent
// solving of time-disjoint groups of unplaced items, symmetry breaking of
// identical items (same lifetime, size and alignment: placed in static
// order), aligned stacks (the aligned items of a section need their sizes
// rounded up to the alignment unit but the topmost's padding), window
// refutation (a node whose subtree has grown large is refuted when the
// unplaced items of a stretch of sections, searched alone and clipped to
// it, have no packing: window.go), and a table of failed states. Every
// technique can be switched off in Options to measure it.
//
// Decide runs a portfolio of static orders (named by key letters, see
// staticOrder; which one wins differs by orders of magnitude from instance
// to instance) on goroutines with node limits that double every round; the
// first answer wins. When the lower bound (max-live, the pins, or the
// caller's Options.LowerBound) is below the capacity, each round also
// probes the bound and one rung of a ladder up to the capacity (tighter
// capacities prune harder, and a plan found there fits the capacity too; a
// probe proven infeasible raises the bound). Minimise probes the lower
// bound, then descends from the best plan with bounded-effort decisions that
// gallop down (double the step after a success, quarter it after running
// out of effort), growing the effort when even the capacity just below the
// best peak is not decided, and keeps every worker's table of failed
// states throughout. An exhausted search at capacity C proves the peak
// exceeds C; optimality is claimed only from such a proof or from the
// max-live / pin bound.
//
// LNS (lns.go) lowers a given plan by large-neighbourhood search: it frees
// the buffers at the peak and a neighbourhood of others, pins the rest that
// conflict with them, and decides the neighbourhood one unit lower with
// work-bounded decisions (Options.MaxRounds). It proves nothing; solve
// does not call it (benchmarks/cmd/gapwork does).
//
// The engine plans one pool. Alias groups are one item (the root's bytes
// over the union of the members' lifetimes) and gaps are ignored (whole
// rectangles): plans stay valid, but on such problems an exhausted search
// is reported as Unknown, never as a proof.
package bnb
