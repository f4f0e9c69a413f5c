package tflite

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/optalloc/optalloc/formats/tflite/internal/schema"
	"github.com/optalloc/optalloc/model"
)

// FuzzDecode: any bytes give a model or an InputError, never a panic; a
// model gives an arena problem that validates or an InputError, and a
// carried offline plan has one offset per tensor.
func FuzzDecode(f *testing.F) {
	f.Add(buildModel(gspec{
		tensors: []tspec{act("in", 1, 8), weight("w", 8, 8), act("out", 1, 8)},
		ops:     []ospec{{code: schema.BuiltinOperatorFULLY_CONNECTED, in: []int32{0, 1, -1}, out: []int32{2}}},
		in:      []int32{0}, out: []int32{2},
	}))
	branch := gspec{tensors: []tspec{act("p", 4), act("q", 4)},
		ops: []ospec{{code: schema.BuiltinOperatorRELU, in: []int32{0}, out: []int32{1}}}, in: []int32{0}, out: []int32{1}}
	f.Add(buildModel(gspec{
		tensors: []tspec{act("cond", 1), act("x", 4), act("y", 4)},
		ops:     []ospec{{code: schema.BuiltinOperatorWHILE, in: []int32{0, 1}, out: []int32{2}, callees: []int32{1, 2}}},
		in:      []int32{0, 1}, out: []int32{2},
	}, branch, branch))
	files, _ := filepath.Glob(filepath.Join(sharedModels, "*.tflite"))
	for _, name := range files {
		if data, err := os.ReadFile(name); err == nil && len(data) < 64<<10 {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Decode(data, "fuzz.tflite")
		if err != nil {
			if _, ok := err.(*model.InputError); !ok {
				t.Fatalf("not an InputError: %T %v", err, err)
			}
			return
		}
		if m.Offline != nil && len(m.Offline.Offsets) != len(m.Tensors) {
			t.Fatalf("offline plan of %d offsets for %d tensors", len(m.Offline.Offsets), len(m.Tensors))
		}
		a, err := m.Arena()
		if err != nil {
			if _, ok := err.(*model.InputError); !ok {
				t.Fatalf("arena: not an InputError: %T %v", err, err)
			}
			return
		}
		if err := a.Problem.Validate(); err != nil {
			t.Fatalf("arena problem does not validate: %v", err)
		}
	})
}
