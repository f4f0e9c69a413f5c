package multi

import (
	"context"
	"fmt"
	"slices"

	"github.com/optalloc/optalloc/device"
	"github.com/optalloc/optalloc/formats/tflite"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/verify"
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

// TFLiteFiles returns each TFLite model's file carrying its part of pl
// (a plan of c, whose models are ms with arenas as, in order) as its
// offline plan, relative to the shared arena. Each copy is read back
// first: its offsets must be the plan's, and TFLite Micro's placement of
// the model's scratch buffers around them must give back the plan's
// placement of that model.
func TFLiteFiles(ctx context.Context, c *Combined, ms []*tflite.Model, as []*tflite.Arena, pl *model.Plan) ([][]byte, error) {
	if len(ms) != len(c.Models) || len(as) != len(c.Models) {
		return nil, fmt.Errorf("%d models and %d arenas for %d models", len(ms), len(as), len(c.Models))
	}
	if vs := verify.Check(c.Problem, pl); len(vs) > 0 {
		return nil, fmt.Errorf("the shared plan is rejected by the verifier: %v (a bug)", vs[0])
	}
	plans := c.Split(pl)
	out := make([][]byte, len(ms))
	for k, m := range ms {
		a := as[k]
		off, err := a.OfflinePlan(m, plans[k])
		if err != nil {
			return nil, err
		}
		data, err := m.WithOfflinePlan(off)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", m.Name, err)
		}
		back, err := tflite.Decode(data, m.Name)
		if err != nil || back.Offline == nil || !slices.Equal(back.Offline.Offsets, off.Offsets) {
			return nil, fmt.Errorf("%s: the written model does not read back with its plan (a bug)", m.Name)
		}
		got := model.NewPlan(a.Problem)
		for j, i := range a.Tensors {
			if o := back.Offline.Offsets[i]; o >= 0 {
				got.Placements[j].Offset = int64(o)
			}
		}
		dev, err := device.Simulate(context.WithoutCancel(ctx), a.Problem, a.Online(), got)
		if err != nil {
			return nil, err
		}
		for i := range dev.Placements {
			if a.Problem.Buffers[i].Size > 0 && dev.Placements[i].Offset != plans[k].Placements[i].Offset {
				return nil, fmt.Errorf("%s: TFLite Micro would place buffer %s at %d, not at the planned %d (a bug)", m.Name, a.Problem.Buffers[i].ID, dev.Placements[i].Offset, plans[k].Placements[i].Offset)
			}
		}
		out[k] = data
	}
	return out, nil
}
