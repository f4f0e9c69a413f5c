package multi

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/formats/tflite"
	"github.com/optalloc/optalloc/solve"
)

func readShared(t *testing.T, name string) (*tflite.Model, *tflite.Arena) {
	t.Helper()
	path := "../../shared/models/tflite/" + name + ".tflite"
	if _, err := os.Stat(path); err != nil {
		t.Skipf("%s is absent (the shared models sit beside the repository)", path)
	}
	m, err := tflite.ReadFile(path)
	require.NoError(t, err)
	a, err := m.Arena()
	require.NoError(t, err)
	return m, a
}

// TestFromTFLite: ports, online scratch and weights of real models; the
// same model twice has every weight byte-identical, two different models
// none; with the weights in the arena each is stored once; the files
// written read back with their part of the plan.
func TestFromTFLite(t *testing.T) {
	hm, ha := readShared(t, "hello_world_int8")
	km, ka := readShared(t, "keyword_scrambled_8bit")
	h := FromTFLite("hello", hm, ha)
	k := FromTFLite("kws", km, ka)
	require.Len(t, h.Inputs, 1)
	require.Len(t, h.Outputs, 1)
	assert.Equal(t, "INT8", h.Inputs[0].Type)
	assert.GreaterOrEqual(t, h.Inputs[0].Buffer, 0)
	assert.Nil(t, h.Online, "hello_world requests no scratch")
	assert.Contains(t, k.Online, true, "the SVDF kernels request scratch")
	require.NotEmpty(t, h.Weights)
	for _, w := range h.Weights {
		assert.NotEmpty(t, w.Key, w.Name)
	}

	h2 := FromTFLite("hello2", hm, ha)
	c, err := Combine([]Model{h, k, h2}, Serial(3), Options{})
	require.NoError(t, err)
	assert.Len(t, c.SameWeights, len(h.Weights), "every weight of hello twice, none of kws")
	in, err := Combine([]Model{h, h2}, Serial(2), Options{WeightsInArena: true})
	require.NoError(t, err)
	assert.Len(t, in.WeightBuffers, len(h.Weights), "stored once")

	res, out, err := SolveTFLM(context.Background(), c, solve.Options{Threads: 1})
	require.NoError(t, err)
	assert.Equal(t, max(out.ModelHeads[0], out.ModelHeads[1], out.ModelHeads[2]), res.Peak)
	files, err := TFLiteFiles(context.Background(), c, []*tflite.Model{hm, km, hm}, []*tflite.Arena{ha, ka, ha}, res.Plan)
	require.NoError(t, err)
	for i, data := range files {
		back, err := tflite.Decode(data, "back.tflite")
		require.NoError(t, err)
		require.NotNil(t, back.Offline, "model %d carries no plan", i)
	}
}
