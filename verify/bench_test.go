package verify_test

import (
	"container/heap"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/internal/measure"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/verify"
)

// checkLoop runs Check on a plan it must accept, and reports the CPU time
// per check besides the wall time (the machine may be shared).
func checkLoop(b *testing.B, p *model.Problem, pl *model.Plan) {
	b.ReportAllocs()
	b.ResetTimer()
	c0 := measure.CPUTime()
	for b.Loop() {
		if vs := verify.Check(p, pl); len(vs) != 0 {
			b.Fatalf("valid plan rejected: %v", vs[0])
		}
	}
	b.ReportMetric(float64(measure.CPUTime()-c0)/1e6/float64(b.N), "cpu-ms/op")
}

// transformerPlan returns n buffers with transformer-like lifetimes and a
// plan that is valid by construction. Layer l spans time [12l, 12l+12):
//   - a residual stream tensor live [12l, 12l+13), at 0 or R by parity;
//   - a KV-cache-like tensor live [12l+2, 12l+104), in one of 10 slots;
//   - 12 ops; op g (global index) lives [g, g+1+(g%12)%3) and sits in
//     slot g%3 (ops three apart never meet).
//
// All sizes and offsets are multiples of 64 and every buffer has Align 64.
func transformerPlan(n int) (*model.Problem, *model.Plan) {
	const (
		r      = 4096 * 64 // residual size
		kv     = 1024 * 64 // KV slot size
		opSlot = 4096 * 64 // largest op
	)
	p := &model.Problem{Buffers: make([]model.Buffer, 0, n)}
	pl := &model.Plan{Placements: make([]model.Placement, 0, n)}
	add := func(id string, start, end, size, off int64) {
		if len(p.Buffers) < n {
			p.Buffers = append(p.Buffers, model.Buffer{ID: id, Start: start, End: end, Size: size, Align: 64})
			pl.Placements = append(pl.Placements, model.Placement{Offset: off, Size: size})
		}
	}
	for l := int64(0); len(p.Buffers) < n; l++ {
		t := 12 * l
		add(fmt.Sprintf("l%d.residual", l), t, t+13, r, (l%2)*r)
		add(fmt.Sprintf("l%d.kv", l), t+2, t+104, kv, 2*r+(l%10)*kv)
		for k := int64(0); k < 12; k++ {
			g := t + k
			size := 64 * (1 + (l*7+k*13)%4096)
			add(fmt.Sprintf("l%d.op%d", l, k), g, g+1+k%3, size, 2*r+10*kv+(g%3)*opSlot)
		}
	}
	return p, pl
}

func TestTransformerPlanIsValid(t *testing.T) {
	p, pl := transformerPlan(20_000)
	require.NoError(t, p.Validate())
	require.Empty(t, verify.Check(p, pl))

	// Moving one op onto its neighbour's slot must be caught.
	pl.Placements[3].Offset = pl.Placements[4].Offset // l0.op1 [1,3) onto l0.op2 [2,5)
	got := verify.Check(p, pl)
	require.NotEmpty(t, got)
	assert.Equal(t, verify.Overlap, got[0].Kind)
	assert.Equal(t, []string{"l0.op1", "l0.op2"}, got[0].Buffers)
}

// BenchmarkCheck1M verifies a valid plan of 1M transformer-like buffers.
//
//	go test ./verify/ -run XXX -bench Check1M -benchmem -count 3
func BenchmarkCheck1M(b *testing.B) {
	p, pl := transformerPlan(1_000_000)
	checkLoop(b, p, pl)
}

// BenchmarkCheck1MOverlaps verifies a 1M-buffer plan where every op sits
// on slot 0, so that about 2/3 of the ops overlap a neighbour: the cost of
// reporting up to MaxViolations violations.
func BenchmarkCheck1MOverlaps(b *testing.B) {
	p, pl := transformerPlan(1_000_000)
	base := pl.Placements[2].Offset
	for i := range p.Buffers {
		if i%14 >= 2 {
			pl.Placements[i].Offset = base
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if vs := verify.Check(p, pl); len(vs) != verify.MaxViolations+1 {
			b.Fatalf("%d violations", len(vs))
		}
	}
}

// BenchmarkCheckAliasChain500 verifies a chain of 500 views (each aliasing
// the previous one at delta 0), all live together: every pair of rectangles
// meets and Check walks alias chains to excuse each, O(L³) in all (about 4 s
// here for L = 500, a minute for L = 1000, on the shared 2-core machine).
func BenchmarkCheckAliasChain500(b *testing.B) {
	const n = 500
	p := &model.Problem{}
	pl := &model.Plan{}
	for i := 0; i < n; i++ {
		buf := model.Buffer{ID: fmt.Sprint("v", i), Start: 0, End: 10, Size: 64}
		if i > 0 {
			buf.Alias = &model.Alias{Parent: fmt.Sprint("v", i-1)}
		}
		p.Buffers = append(p.Buffers, buf)
		pl.Placements = append(pl.Placements, model.Placement{Size: 64})
	}
	b.ReportAllocs()
	for b.Loop() {
		if vs := verify.Check(p, pl); len(vs) != 0 {
			b.Fatal(vs[0])
		}
	}
}

// BenchmarkCheck1MDense verifies a valid plan of 1M buffers with random
// lifetimes in [0, 2M) (up to 200k time steps long) stacked at increasing
// offsets: about 50 000 alive at once, so the sweep's alive set is large.
//
//	go test ./verify/ -run XXX -bench Check1MDense -benchmem -count 3
func BenchmarkCheck1MDense(b *testing.B) {
	const n = 1_000_000
	rng := rand.New(rand.NewPCG(1, 2))
	p := &model.Problem{Buffers: make([]model.Buffer, n)}
	pl := &model.Plan{Placements: make([]model.Placement, n)}
	off := int64(0)
	for i := range p.Buffers {
		start := rng.Int64N(2 * n)
		size := 64 * (1 + rng.Int64N(1024))
		p.Buffers[i] = model.Buffer{ID: fmt.Sprintf("b%d", i), Start: start, End: start + 1 + rng.Int64N(n/5), Size: size}
		pl.Placements[i] = model.Placement{Offset: off, Size: size}
		off += size
	}
	checkLoop(b, p, pl)
}

// BenchmarkCheck1MSlots verifies a valid plan of 1M buffers with the
// lifetimes of BenchmarkCheck1MDense, each in the lowest slot of 64 KiB
// free at its start: slots are reused, so offsets follow no order of the
// buffers, as in a planner's plan (stacked offsets follow the index).
//
//	go test ./verify/ -run XXX -bench Check1MSlots -benchmem -count 3
func BenchmarkCheck1MSlots(b *testing.B) {
	const n, slot = 1_000_000, 64 << 10
	rng := rand.New(rand.NewPCG(1, 2))
	p := &model.Problem{Buffers: make([]model.Buffer, n)}
	pl := &model.Plan{Placements: make([]model.Placement, n)}
	for i := range p.Buffers {
		start := rng.Int64N(2 * n)
		size := 64 * (1 + rng.Int64N(slot/64))
		p.Buffers[i] = model.Buffer{ID: fmt.Sprintf("b%d", i), Start: start, End: start + 1 + rng.Int64N(n/5), Size: size}
		pl.Placements[i] = model.Placement{Size: size}
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(x, y int) int { return int(p.Buffers[x].Start - p.Buffers[y].Start) })
	var free, busy minHeap // free slots; (end, slot) of the buffers alive
	top := int64(0)
	for _, i := range order {
		for len(busy) > 0 && busy[0][0] <= p.Buffers[i].Start {
			heap.Push(&free, [2]int64{heap.Pop(&busy).([2]int64)[1]})
		}
		s := top
		if len(free) > 0 {
			s = heap.Pop(&free).([2]int64)[0]
		} else {
			top++
		}
		pl.Placements[i].Offset = s * slot
		heap.Push(&busy, [2]int64{p.Buffers[i].End, s})
	}
	checkLoop(b, p, pl)
}

// minHeap is a heap of pairs ordered by their first element.
type minHeap [][2]int64

func (h minHeap) Len() int           { return len(h) }
func (h minHeap) Less(i, j int) bool { return h[i][0] < h[j][0] }
func (h minHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *minHeap) Push(x any)        { *h = append(*h, x.([2]int64)) }
func (h *minHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
