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
// solving of time-disjoint groups of unplaced items, and a table of failed
// states. Every technique can be switched off in Options to measure it.
//
// Decide runs a portfolio of static orders on goroutines with node limits
// that double every round; the first answer wins. Minimise decides
// peak − g (g: the GCD of sizes, alignments and pins) again and again,
// keeping the tables of failed states, until a decision fails (the peak is
// then proven optimal) or the context ends.
package bnb
