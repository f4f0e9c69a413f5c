package tflite

import (
	"fmt"
	"io"
	"strconv"

	"github.com/optalloc/optalloc/model"
)

func init() {
	model.RegisterFormat(".tflite", func(r io.Reader, name string) (*model.Problem, error) {
		m, err := Read(r, name)
		if err != nil {
			return nil, err
		}
		a, err := m.Arena()
		if err != nil {
			return nil, err
		}
		return a.Problem, nil
	})
}

// Alignment is TFLite Micro's arena buffer alignment
// (MicroArenaBufferAlignment): every planned size is rounded up to it and
// every offset is a multiple of it.
const Alignment = 16

// Arena is the memory problem of a model's arena: one buffer per tensor
// that TFLite Micro's planner places (Tensor.Planned), in tensor order, with
// its size rounded up to Alignment and its lifetime [First+1, Last+2) — so
// that two buffers are live together exactly when TFLite Micro's inclusive
// scopes intersect. Constants (weights) and variable tensors are not in it.
type Arena struct {
	Problem *model.Problem
	// Tensors[i] is the global tensor index of Problem.Buffers[i].
	Tensors []int
	// VariableBytes sums the variable tensors, which TFLite Micro allocates
	// in its persistent section outside the plan.
	VariableBytes int64
}

// Arena builds the arena problem. Buffer ids are the tensor names,
// prefixed by "sgN/" for tensors of subgraph N > 0, with "#INDEX" (the
// global tensor index) appended where a name is empty or repeated. A
// planned tensor without a fixed size (STRING, RESOURCE, VARIANT, INT4) is
// an error naming it.
func (m *Model) Arena() (*Arena, error) {
	a := &Arena{Problem: &model.Problem{Name: m.Name}}
	ids := map[string]int{}
	for i := range m.Tensors {
		t := &m.Tensors[i]
		if t.Variable && t.Bytes > 0 {
			a.VariableBytes += alignUp(t.Bytes)
		}
		if !t.Planned() {
			continue
		}
		if t.Bytes < 0 {
			return nil, &model.InputError{File: m.Name, Msg: fmt.Sprintf("tensor %d (%q): type %s has no fixed size, so it cannot be planned offline", t.Index, t.Name, t.Type)}
		}
		ids[m.baseID(t)]++
		a.Tensors = append(a.Tensors, i)
	}
	kinds := map[int]model.Kind{}
	for _, i := range m.Inputs {
		kinds[i] = model.Input
	}
	for _, i := range m.Outputs {
		kinds[i] = model.Output
	}
	a.Problem.Buffers = make([]model.Buffer, len(a.Tensors))
	for j, i := range a.Tensors {
		t := &m.Tensors[i]
		id := m.baseID(t)
		if id == "" || ids[id] > 1 {
			id += "#" + strconv.Itoa(t.Index)
		}
		a.Problem.Buffers[j] = model.Buffer{
			ID:    id,
			Start: int64(t.First) + 1,
			End:   int64(t.Last) + 2,
			Size:  alignUp(t.Bytes),
			Align: Alignment,
			Kind:  kinds[i],
		}
	}
	if err := a.Problem.Validate(); err != nil {
		return nil, err
	}
	return a, nil
}

func (m *Model) baseID(t *Tensor) string {
	if t.Subgraph > 0 {
		return "sg" + strconv.Itoa(t.Subgraph) + "/" + t.Name
	}
	return t.Name
}

func alignUp(v int64) int64 { return (v + Alignment - 1) / Alignment * Alignment }

// OfflinePlan turns a plan of the arena problem into TFLite Micro's offline
// plan: each planned tensor at its offset, every other tensor Online. It
// fails when an offset does not fit in an int32 (TFLite Micro's format).
func (a *Arena) OfflinePlan(m *Model, pl *model.Plan) (*OfflinePlan, error) {
	op := &OfflinePlan{Version: 0, Subgraphs: int32(len(m.Subgraphs)), Offsets: make([]int32, len(m.Tensors))}
	for i := range op.Offsets {
		op.Offsets[i] = Online
	}
	for j, i := range a.Tensors {
		o := pl.Placements[j].Offset
		if o < 0 || o > 1<<31-1 || o+pl.Placements[j].Size > 1<<31-1 {
			return nil, fmt.Errorf("tensor %d (%q) at offset %d: TFLite Micro's offline plan holds int32 offsets", i, m.Tensors[i].Name, o)
		}
		op.Offsets[i] = int32(o)
	}
	return op, nil
}
