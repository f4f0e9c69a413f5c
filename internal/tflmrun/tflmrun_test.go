package tflmrun

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestParse(t *testing.T) {
	r := Parse([]byte(`model m.tflite bytes 10
flatbuffer_verify ok
offline_plan present version 0 subgraphs 1 n 4 words 7 placed 4
arena_head 672
offline_plan_check placed 16 honoured 15 mismatched 1 zero_size 0
output 0 tensor 53 type int8 bytes 4 fnv1a 0x1234
output 1 tensor 54 type int8 bytes 4 fnv1a 0xabcd
result ok
`))
	assert.True(t, r.OK)
	assert.True(t, r.Verified)
	assert.Equal(t, int64(672), r.Head)
	assert.Equal(t, 16, r.Placed)
	assert.Equal(t, 1, r.Mismatched)
	assert.Equal(t, []string{"0x1234", "0xabcd"}, r.Outputs)

	r = Parse([]byte("offline_plan absent\nresult FAIL AllocateTensors\n"))
	assert.False(t, r.OK)
	assert.Equal(t, int64(-1), r.Head)
	assert.Equal(t, -1, r.Mismatched)
}

func TestFind(t *testing.T) {
	_, ok := Find("/nonexistent/tflm_run")
	assert.False(t, ok)
	p, ok := Find("/nonexistent", "tflmrun.go")
	assert.True(t, ok)
	assert.Equal(t, "tflmrun.go", p)
}
