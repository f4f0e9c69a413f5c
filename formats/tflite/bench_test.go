package tflite

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/optalloc/optalloc/formats/tflite/internal/schema"
)

// bigModel is a 60-layer chain whose weights take about 4 MB.
func bigModel() []byte {
	g := gspec{in: []int32{0}}
	g.tensors = append(g.tensors, act("in", 1, 256))
	for i := range 60 {
		w := int32(len(g.tensors))
		g.tensors = append(g.tensors, weight(fmt.Sprintf("w%d", i), 256, 256))
		g.tensors = append(g.tensors, act(fmt.Sprintf("a%d", i), 1, 256))
		g.ops = append(g.ops, ospec{code: schema.BuiltinOperatorFULLY_CONNECTED, in: []int32{w - 1 - int32(min(i, 1)), w}, out: []int32{w + 1}})
	}
	g.out = []int32{int32(len(g.tensors) - 1)}
	return buildModel(g)
}

// BenchmarkDecode reads a model and builds its arena problem: the shared
// person detector (300 KB) and a synthetic 4 MB model; weights are never
// copied, so the time does not grow with their bytes.
func BenchmarkDecode(b *testing.B) {
	inputs := map[string][]byte{"synthetic-4MB": bigModel()}
	if data, err := os.ReadFile(filepath.Join(sharedModels, "person_detect.tflite")); err == nil {
		inputs["person_detect"] = data
	}
	for name, data := range inputs {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				m, err := Decode(data, name)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := m.Arena(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
