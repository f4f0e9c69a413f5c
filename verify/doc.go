// Package verify is optalloc's independent plan checker. It shares no code
// with the planners: it reads only the problem and the plan, expands every
// buffer into the time × byte rectangles it occupies (gaps included) and
// sweeps time with an interval tree per pool. Every plan optalloc outputs
// passes Check first; a plan Check rejects is a planner bug.
//
// Violations have an enumerated Kind: missing buffer, overlap, misaligned,
// pin moved, out of capacity, alias broken, wrong pool, elastic range, gap
// misuse.
package verify
