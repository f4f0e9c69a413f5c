package executorch

import (
	"fmt"
	"slices"

	"github.com/optalloc/optalloc/model"
)

// Arena is the memory problem of a specs file: one buffer per spec placed
// on its own (a root: a spec without storage_base), with the inclusive
// lifetime [first, last] planned as [first, last+1) and widened over its
// views' lifetimes, in the pool of its mem_id.
type Arena struct {
	File    *File
	Problem *model.Problem
	// MemIDs is the mem_id of each pool of Problem, increasing.
	MemIDs []int64
	// Root is, per spec, the index of the spec whose bytes it lives in
	// (itself for a root), and Delta its offset inside them.
	Root  []int
	Delta []int64
	// Buffer is, per spec, the index of its root's buffer in Problem.
	Buffer []int
	// Spec is, per buffer of Problem, the index of its spec.
	Spec []int
}

// PoolName is the name of the pool of mem_id k.
func PoolName(k int64) string { return fmt.Sprintf("mem%d", k) }

// Arena builds the specs' problem (see Arena).
func (f *File) Arena() *Arena {
	n := len(f.Specs)
	a := &Arena{File: f, Root: make([]int, n), Delta: make([]int64, n), Buffer: make([]int, n)}
	for i := range f.Specs {
		j, d := i, int64(0)
		for f.Specs[j].Base >= 0 {
			d += f.Specs[j].BaseOffset
			j = f.Specs[j].Base
		}
		a.Root[i], a.Delta[i] = j, d
	}
	for i := range f.Specs {
		if a.Root[i] == i && !slices.Contains(a.MemIDs, f.Specs[i].MemID) {
			a.MemIDs = append(a.MemIDs, f.Specs[i].MemID)
		}
	}
	slices.Sort(a.MemIDs)
	p := &model.Problem{Name: f.Name}
	for _, k := range a.MemIDs {
		p.Pools = append(p.Pools, model.Pool{Name: PoolName(k)})
	}
	at := make([]int, n)
	for i, s := range f.Specs {
		if a.Root[i] != i {
			continue
		}
		at[i] = len(p.Buffers)
		a.Spec = append(a.Spec, i)
		p.Buffers = append(p.Buffers, model.Buffer{ID: s.ID, Start: s.First, End: s.Last + 1, Size: s.Size,
			Align: f.Alignment, Pools: []string{PoolName(s.MemID)}, Line: s.Line})
	}
	for i, s := range f.Specs {
		b := &p.Buffers[at[a.Root[i]]]
		a.Buffer[i] = at[a.Root[i]]
		b.Start, b.End = min(b.Start, s.First), max(b.End, s.Last+1)
	}
	a.Problem = p
	return a
}

// MemID is the mem_id of a spec: its root's.
func (a *Arena) MemID(spec int) int64 { return a.File.Specs[a.Root[spec]].MemID }

// Base is the offset at which planning in mem_id k starts:
// input_mem_buffer_sizes[k] when the file gives that entry, else 0.
func (a *Arena) Base(k int64) int64 {
	if ins := a.File.InputMemBufferSizes; int64(len(ins)) > k {
		return ins[k]
	}
	return 0
}
