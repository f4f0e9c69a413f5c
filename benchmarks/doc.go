// Package benchmarks runs optalloc's methods over a corpus of instances and
// makes synthetic instances to run them on.
//
// Run solves every instance with every method (instances in parallel, the
// methods of one instance one after the other), re-checks every plan with
// verify.Check and reports peak, lower bound, gap, status and time. The CLI's
// compare and check commands and the results report (cmd/results) are built
// on it.
//
// The generators make instances whose structure is known: Random (uniform
// lifetimes, log-uniform sizes), PerfectPacking (a guillotine cut of a
// rectangle, so the optimum peak is known by construction) and Transformer
// (a long trace shaped like the forward and backward passes of a stack of
// transformer blocks, up to millions of buffers). cmd/gen writes them as
// MiniMalloc CSV.
package benchmarks
