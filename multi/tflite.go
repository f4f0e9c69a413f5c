package multi

import (
	"github.com/optalloc/optalloc/formats/tflite"
)

// FromTFLite is a TFLite model's arena (tflite.Model.ArenaWith) as one of
// several models: its buffers (tensors, then kernel scratch, which the
// runtime places online), subgraph 0's inputs and outputs as ports, and
// its constant tensors as weights (a TFLite Micro arena never holds them:
// they stay in the flatbuffer; they are planned only for targets that keep
// weights in planned memory, Options.WeightsInArena).
func FromTFLite(name string, m *tflite.Model, a *tflite.Arena) Model {
	mm := Model{Name: name, Problem: a.Problem, Online: a.Online()}
	buffer := map[int]int{}
	for j, i := range a.Tensors {
		if a.Problem.Buffers[j].Size > 0 {
			buffer[i] = j
		}
	}
	port := func(i int) Port {
		t := &m.Tensors[i]
		j, ok := buffer[i]
		if !ok {
			j = -1
		}
		return Port{Name: t.Name, Type: t.Type, Bytes: t.Bytes, Buffer: j}
	}
	for _, i := range m.Inputs {
		mm.Inputs = append(mm.Inputs, port(i))
	}
	for _, i := range m.Outputs {
		mm.Outputs = append(mm.Outputs, port(i))
	}
	for i := range m.Tensors {
		t := &m.Tensors[i]
		if !t.Constant || t.Bytes <= 0 {
			continue
		}
		size := (t.Bytes + tflite.Alignment - 1) / tflite.Alignment * tflite.Alignment
		mm.Weights = append(mm.Weights, Weight{Name: t.Name, Size: size, Align: tflite.Alignment, Key: m.WeightDigest(i)})
	}
	return mm
}
