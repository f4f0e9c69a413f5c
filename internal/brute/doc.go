// Package brute holds test oracles for the exact engines: an exhaustive
// minimum-peak search for tiny problems, and generators of tiny random
// instances and of perfect packings whose optimum is known by construction.
//
// It is internal: only tests and benchmarks of optalloc use it.
package brute
