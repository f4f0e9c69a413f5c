// Command optalloc plans the memory of a neural network offline: it gives
// every buffer an offset so that buffers alive at the same time never share
// bytes, with the smallest peak it can find and, where it can, a proof that
// no smaller peak exists.
//
// Usage:
//
//	optalloc plan INPUT [flags]          plan a problem (CSV, JSON or model graph)
//	optalloc verify PROBLEM PLAN         check a plan independently
//	optalloc bounds INPUT [--prove]      print (and try to raise) lower bounds
//	optalloc compare INPUT...            every method on every input, as a table
//	optalloc check INPUT... --baseline F a memory-regression gate for CI
//	optalloc viz PLAN [--svg F] [--html F] pictures of a plan
//
// Run "optalloc help COMMAND" for the flags of a command. Exit codes: 0
// success; 1 infeasible, invalid plan or failed check; 2 bad usage or bad
// input (one line "file:line: what is wrong", nothing written).
//
// This package holds the CLI only: flags, files, progress and exit codes.
package main
