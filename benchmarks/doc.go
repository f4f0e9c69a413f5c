// Package benchmarks makes synthetic instances to run optalloc's methods on;
// package corpus runs them (the results report, cmd/results, uses both).
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
