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

func TestParseMulti(t *testing.T) {
	out := `model 0 a.tflite stage 0
model 1 b.tflite stage 0
shared_model 0 head 672 tail_added 8712
shared_model 1 head 6640 tail_added 1120
shared_head 6640
shared_tail 10048
shared_used 16688
concurrent_check ok
shared_output 0 0 bytes 8 fnv1a 0xc1 alone 0xc1 match yes
shared_output 1 0 bytes 4 fnv1a 0xb5 alone 0xb6 match no
guards ok
result FAIL
`
	r := ParseMulti([]byte(out))
	assert.False(t, r.OK)
	assert.Equal(t, int64(6640), r.Head)
	assert.Equal(t, int64(10048), r.Tail)
	assert.Equal(t, int64(16688), r.Used)
	assert.Equal(t, []int64{672, 6640}, r.ModelHeads)
	assert.Equal(t, []int64{8712, 1120}, r.TailsAdded)
	assert.Equal(t, [][]string{{"0xc1"}, {"0xb5"}}, r.SharedOutputs)
	assert.Equal(t, [][]string{{"0xc1"}, {"0xb6"}}, r.AloneOutputs)
	assert.Equal(t, 1, r.Mismatches)
	assert.Equal(t, "ok", r.Concurrent)
	assert.Equal(t, int64(-1), r.MinArena)
}
