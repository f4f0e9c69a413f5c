// Package blocks plans the block layout: instead of an offset inside one
// arena, every buffer is assigned to a reusable block (a GPU texture, a
// device buffer, an entry of a pool of fixed blocks). Buffers that share a
// block are never alive at the same time, and a block is as large as the
// largest buffer it ever holds. The objective is the total bytes of the
// blocks; the block count is at least the number of buffers alive at once.
//
// An alias group (a buffer and the buffers placed inside it) is one unit:
// it holds its root's block over the hull of its members' lifetimes.
// MiniMalloc gaps are ignored (a buffer holds its block for its whole
// lifetime), pins, hints, pools and alignments do not apply, and buffers of
// size 0 get no block (Assign = -1).
//
// Planners (TFLite GPU delegate's memory_management shared-object
// strategies, plus an exact engine): greedy_in_order, greedy_by_size,
// greedy_by_breadth, min_cost_flow and exact (branch and bound with the
// level bound proven in bound.go, free-gap symmetry breaking, dominance, a
// memo of visited states and large-neighbourhood search on instances it
// cannot finish; see exact.go). Solve runs them and verifies the result
// with verify.BlockCheck (blocks imports verify; verify never imports
// blocks). NewSchedule turns a plan into a replayable
// allocation schedule (new block / take / release / retire events per time
// step), with JSON and CSV writers and a per-model view for problems whose
// buffer ids are qualified "model/tensor".
package blocks

import "errors"

var (
	errNilProblem = errors.New("blocks: nil problem")
	errNoFlow     = errors.New("blocks: min cost flow: no augmenting path (bug)")
)
