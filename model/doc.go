// Package model holds the data types of optalloc — buffers, pools, problems
// and plans — together with their validation and the sweep helpers that
// compute sections, the max-live lower bound and independent time
// components. The file formats live in formats/ (formats/csv,
// formats/jsonfmt, formats/plan, and the model-file front ends).
//
// A buffer is live on the half-open interval [Start, End) and occupies Size
// bytes. Two buffers conflict when their intervals intersect and both sizes
// are positive. A plan gives every buffer an offset (and a pool); it is valid
// when conflicting buffers in the same pool occupy disjoint byte ranges.
//
// model imports nothing else from optalloc: every other package builds on it.
package model
