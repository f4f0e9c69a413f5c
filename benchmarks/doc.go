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
// transformer blocks, up to millions of buffers), Training (one training
// step: weights and optimiser state live throughout, short and saved
// activations, tiny buffers, sizes from bytes to gigabytes) and Skips
// (chained ops with long random skip connections). cmd/gen writes them as
// MiniMalloc CSV; cmd/training measures auto against the textbook greedy on
// Training traces and the first plan of million-buffer inputs.
package benchmarks
