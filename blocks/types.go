package blocks

import (
	"context"
	"fmt"
	"time"

	"github.com/optalloc/optalloc/model"
)

// Block is one reusable allocation of the runtime: a texture, a device
// buffer, an entry of a pool of fixed blocks. Its Size is the largest buffer
// it ever holds.
type Block struct {
	ID   int   `json:"id"`
	Size int64 `json:"size"`
}

// BlockPlan assigns every buffer of a problem to a block. Assign[i] belongs
// to Problem.Buffers[i]: an index into Blocks, or -1 for a buffer of size 0
// (it needs no memory). An alias child takes its root's block; its bytes
// start at its alias delta inside the block. Blocks[k].ID == k.
type BlockPlan struct {
	Blocks []Block `json:"blocks"`
	Assign []int   `json:"assign"`
}

// TotalBytes is the sum of the block sizes: the objective.
func (bp *BlockPlan) TotalBytes() int64 {
	var t int64
	for _, b := range bp.Blocks {
		t += b.Size
	}
	return t
}

// Sizes returns the block sizes indexed by block id.
func (bp *BlockPlan) Sizes() []int64 {
	s := make([]int64, len(bp.Blocks))
	for k, b := range bp.Blocks {
		s[k] = b.Size
	}
	return s
}

// Planner assigns buffers to blocks. Plans may be invalid only through a
// bug: Solve verifies them with verify.BlockCheck.
type Planner interface {
	Name() string
	Plan(ctx context.Context, p *model.Problem) (*BlockPlan, error)
}

// Status says what is known about a result.
type Status string

// The statuses of a Result.
const (
	Optimal    Status = "optimal"    // TotalBytes equals a proven lower bound
	Feasible   Status = "feasible"   // a valid plan, optimality not proven
	Infeasible Status = "infeasible" // MaxBlocks is below the minimum block count
	Unknown    Status = "unknown"    // no plan was found in time
)

// CapError is returned by a planner that would need more blocks than its
// MaxBlocks allows. Greedy in order never returns it when MaxBlocks is at
// least the minimum block count.
type CapError struct {
	Planner   string
	MaxBlocks int
}

func (e *CapError) Error() string {
	return fmt.Sprintf("%s: needs more than %d blocks (--max-blocks); greedy_in_order and exact respect any feasible cap", e.Planner, e.MaxBlocks)
}

// Result is the outcome of Solve.
type Result struct {
	Plan       *BlockPlan
	TotalBytes int64
	// LowerBound is a proven lower bound on TotalBytes (see LowerBound).
	LowerBound int64
	// MinBlocks is the largest number of buffers (alias groups) alive at
	// once: no plan uses fewer blocks.
	MinBlocks  int
	BlocksUsed int
	Status     Status
	// Reason explains an infeasible or unknown status.
	Reason string
	// Method names the planner that found Plan.
	Method  string
	Elapsed time.Duration
	// Attempts lists every planner Solve ran, in order.
	Attempts []Attempt
	// Nodes counts the exact engine's search nodes (0 when it did not run).
	Nodes int64
}

// Gap is TotalBytes / LowerBound - 1 (0 when there is no plan or bound).
func (r *Result) Gap() float64 {
	if r.Plan == nil || r.LowerBound <= 0 {
		return 0
	}
	return float64(r.TotalBytes)/float64(r.LowerBound) - 1
}

// Attempt is the outcome of one planner inside Solve.
type Attempt struct {
	Method     string
	TotalBytes int64 // 0 when Err is set
	Blocks     int
	Elapsed    time.Duration
	Err        error
	// Status is the exact engine's status; Feasible for heuristics.
	Status Status
}
