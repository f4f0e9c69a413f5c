// Package blockunion answers one question about buffers aligned to a block
// size A: two sets of them, xs live at one time and ys at another, are
// placed on the A-grid (the buffers of one set disjoint); how small can the
// union of the two footprints be?
//
// An aligned buffer starts at a block boundary and covers whole blocks and
// then a prefix of its last block; the next buffer of the same set starts at
// a block boundary again. So in every block each set covers a prefix, and
// the block's union is the larger prefix: |U| = Σ_blocks max(cX, cY). Min
// finds the smallest sum exactly, by a memoised search over blocks from the
// bottom (no height limit, which can only lower the minimum); Relaxed is a
// cheap lower bound on it and Stacked the union of one placement (an upper
// bound). solve's two-time alignment bound uses them: bytes live at both
// times must avoid both sets, so they need room beside the union.
package blockunion
