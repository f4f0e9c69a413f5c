package multi

import (
	"github.com/optalloc/optalloc/formats/onnx"
)

// FromONNX is an ONNX model's arena (onnx.Model.Arena) as one of several
// models: its buffers and the main graph's inputs and outputs as ports
// (their sizes are the planned buffers' sizes, so a handoff compares the
// element type and the planned bytes). Initializers are weights outside
// the arena, whose bytes the reader does not keep: they are not compared
// across models.
func FromONNX(name string, m *onnx.Model, a *onnx.Arena) Model {
	mm := Model{Name: name, Problem: a.Problem}
	index := a.Problem.Index()
	port := func(n string, elem int32) Port {
		j, ok := index[n]
		p := Port{Name: n, Type: onnx.TypeName(elem), Buffer: -1}
		if ok && a.Problem.Buffers[j].Size > 0 && a.Problem.Buffers[j].Alias == nil {
			p.Buffer, p.Bytes = j, a.Problem.Buffers[j].Size
		}
		return p
	}
	for _, vi := range m.Graph.Inputs {
		mm.Inputs = append(mm.Inputs, port(vi.GetName(), vi.GetType().GetTensorType().GetElemType()))
	}
	for _, vi := range m.Graph.Outputs {
		mm.Outputs = append(mm.Outputs, port(vi.GetName(), vi.GetType().GetTensorType().GetElemType()))
	}
	return mm
}
