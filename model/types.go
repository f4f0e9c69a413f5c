package model

import (
	"fmt"
	"math"
)

// Kind says what a buffer holds. Tiered planning and pictures use it; the
// planners otherwise treat every kind alike.
type Kind string

// The kinds of buffer known to optalloc. The empty kind means activation.
const (
	Activation Kind = "activation"
	Scratch    Kind = "scratch"
	Input      Kind = "input"
	Output     Kind = "output"
	Weight     Kind = "weight"
	// Code is an instruction stream (an NPU command stream, compiled
	// kernels): a constant like a weight; model graphs store identical
	// code once across models.
	Code Kind = "code"
)

// Kinds lists the valid kinds in a fixed order.
var Kinds = []Kind{Activation, Scratch, Input, Output, Weight, Code}

// Gap is a time window [Start, End) inside a buffer's lifetime during which
// the buffer is absent (Window false) or occupies only the bytes [Lo, Hi) of
// itself (Window true). It is MiniMalloc's "gaps" column: `l-u` or `l-u@a:b`.
type Gap struct {
	Start, End int64
	Window     bool
	Lo, Hi     int64
}

// Alias places a buffer inside another one: its offset is the parent's offset
// plus Delta, in the parent's pool. It expresses in-place reshape, concat and
// split. The aliased buffer must fit inside its parent.
type Alias struct {
	Parent string
	Delta  int64
}

// Buffer is one tensor or scratch area to place.
type Buffer struct {
	ID    string
	Start int64 // first time step at which the buffer is live
	End   int64 // first time step at which it is no longer live (End > Start)
	Size  int64 // bytes; for an elastic buffer, the minimum size

	// Align is the required offset alignment in bytes; 0 means 1.
	Align int64
	// Pin fixes the offset when non-nil (MiniMalloc's offset column).
	Pin *int64
	// Hint is a preferred offset, honoured when it costs nothing.
	Hint *int64
	// Pools lists the pools the buffer may live in, in order of preference;
	// empty means any pool.
	Pools []string
	// Kind is what the buffer holds; empty means Activation.
	Kind Kind
	// MaxSize > Size makes the buffer elastic: the planner may grant any size
	// in [Size, MaxSize] that does not raise a pool's peak. 0 means fixed.
	MaxSize int64
	// Alias, when non-nil, places the buffer inside its parent.
	Alias *Alias
	// Gaps are windows of the lifetime where the buffer is absent or partial.
	Gaps []Gap
	// Weight is the priority for the fast pool (bytes kept fast are weighted
	// by it); 0 means the default priority of the kind.
	Weight float64
	// LatencyCritical scratch is placed in the fast pool first.
	LatencyCritical bool

	// Line is the 1-based line of the source file the buffer was read from,
	// 0 when it was not read from a file. It is used in error messages only.
	Line int
}

// Alignment returns the effective alignment (at least 1).
func (b *Buffer) Alignment() int64 {
	if b.Align <= 0 {
		return 1
	}
	return b.Align
}

// AlignmentIn returns the alignment b needs in pool q: the least common
// multiple of its own alignment and the pool's (Validate keeps it at most
// MaxAlign).
func (b *Buffer) AlignmentIn(q *Pool) int64 {
	a, c := b.Alignment(), q.Alignment()
	return LCM(a, c)
}

// Elastic reports whether the planner may grant more than Size bytes.
func (b *Buffer) Elastic() bool { return b.MaxSize > b.Size }

// Pool is one memory: a fast on-chip SRAM or a slow DRAM, say.
type Pool struct {
	Name     string
	Capacity int64 // bytes; 0 = unbounded
	Align    int64 // alignment of every offset in the pool; 0 means 1
	Rank     int   // lower ranks are faster and are filled first
}

// Alignment returns the effective alignment of the pool (at least 1).
func (p *Pool) Alignment() int64 {
	if p.Align <= 0 {
		return 1
	}
	return p.Align
}

// DefaultPool is the name of the implicit pool of a problem with no pools.
const DefaultPool = "default"

// Problem is a set of buffers to place in one or more pools.
type Problem struct {
	// Name is where the problem came from (a file name); used in messages.
	Name    string
	Buffers []Buffer
	// Pools lists the memories; empty means one unbounded pool named
	// DefaultPool.
	Pools []Pool
	// CSVColumns records the optional MiniMalloc columns present in the
	// input (alignment, offset, hint, gaps) so that a written plan keeps them.
	CSVColumns []string
}

// PoolList returns the pools of the problem, or the implicit default pool.
func (p *Problem) PoolList() []Pool {
	if len(p.Pools) == 0 {
		return []Pool{{Name: DefaultPool}}
	}
	return p.Pools
}

// SetCapacity bounds the first pool (creating the default pool if needed).
func (p *Problem) SetCapacity(c int64) {
	if len(p.Pools) == 0 {
		p.Pools = []Pool{{Name: DefaultPool}}
	}
	p.Pools[0].Capacity = c
}

// Index maps buffer ids to their positions in Buffers.
func (p *Problem) Index() map[string]int {
	m := make(map[string]int, len(p.Buffers))
	for i := range p.Buffers {
		m[p.Buffers[i].ID] = i
	}
	return m
}

// PoolIndex returns the position of the named pool, or -1.
func (p *Problem) PoolIndex(name string) int {
	for i, q := range p.PoolList() {
		if q.Name == name {
			return i
		}
	}
	return -1
}

// Where returns "file:line" for buffer i when it was read from a file, or
// "buffer ID" otherwise; messages start with it.
func (p *Problem) Where(i int) string {
	b := &p.Buffers[i]
	if p.Name != "" && b.Line > 0 {
		return fmt.Sprintf("%s:%d", p.Name, b.Line)
	}
	if p.Name != "" {
		return p.Name
	}
	return "buffer " + b.ID
}

// Placement is where one buffer goes.
type Placement struct {
	Offset int64 // byte offset inside the pool
	Pool   int   // index into Problem.PoolList()
	Size   int64 // granted size: Buffer.Size, or more for an elastic buffer
}

// Plan places every buffer of a problem. Placements[i] belongs to
// Problem.Buffers[i].
type Plan struct {
	Placements []Placement
	// StatedPeak and StatedPoolPeaks are the peaks a plan file states
	// (a JSON plan's "peak" and "pool_peaks"; nil when it states none);
	// the verifier checks them against the placements.
	StatedPeak      *int64
	StatedPoolPeaks map[string]int64
}

// NewPlan returns a plan with every buffer at offset 0 of pool 0 and its
// minimum size granted.
func NewPlan(p *Problem) *Plan {
	pl := &Plan{Placements: make([]Placement, len(p.Buffers))}
	for i := range p.Buffers {
		pl.Placements[i].Size = p.Buffers[i].Size
	}
	return pl
}

// PoolPeaks returns max(offset+size) over the buffers of each pool.
func (pl *Plan) PoolPeaks(p *Problem) []int64 {
	peaks := make([]int64, len(p.PoolList()))
	for _, q := range pl.Placements {
		if q.Pool >= 0 && q.Pool < len(peaks) && q.Size > 0 && q.Offset+q.Size > peaks[q.Pool] {
			peaks[q.Pool] = q.Offset + q.Size
		}
	}
	return peaks
}

// Peak returns the largest pool peak.
func (pl *Plan) Peak(p *Problem) int64 {
	var m int64
	for _, v := range pl.PoolPeaks(p) {
		m = max(m, v)
	}
	return m
}

// Clone returns a deep copy of the plan.
func (pl *Plan) Clone() *Plan {
	return &Plan{Placements: append([]Placement(nil), pl.Placements...)}
}

// GCD is the greatest common divisor of |a| and |b| (GCD(0, 0) = 0).
func GCD(a, b int64) int64 {
	if a < 0 {
		a = -a
	}
	if b < 0 {
		b = -b
	}
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// LCM is the least common multiple of two positive numbers (the caller
// keeps it within int64: Validate bounds alignments by MaxAlign).
func LCM(a, b int64) int64 { return a / GCD(a, b) * b }

// MissingOffset marks a placement that a plan file did not give.
const MissingOffset = math.MinInt64
