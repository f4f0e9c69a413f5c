package onnx

import (
	"testing"

	"github.com/optalloc/optalloc/model"
)

// FuzzDecode: any bytes give a model or an InputError, never a panic; a
// model gives an arena problem that validates or an InputError.
func FuzzDecode(f *testing.F) {
	f.Add(encode(f, chain()))
	f.Add(encode(f, ifModel(nil, true)))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Decode(data, "fuzz.onnx")
		if err != nil {
			if _, ok := err.(*model.InputError); !ok {
				t.Fatalf("not an InputError: %T %v", err, err)
			}
			return
		}
		for _, dims := range []map[string]int64{nil, {"batch": 2}} {
			a, err := m.Arena(Options{Dims: dims})
			if err != nil {
				if _, ok := err.(*model.InputError); !ok {
					t.Fatalf("arena: not an InputError: %T %v", err, err)
				}
				continue
			}
			if err := a.Problem.Validate(); err != nil {
				t.Fatalf("arena problem does not validate: %v", err)
			}
		}
	})
}
