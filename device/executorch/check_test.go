package executorch_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	etdevice "github.com/optalloc/optalloc/device/executorch"
	etfmt "github.com/optalloc/optalloc/formats/executorch"
)

// TestCheckReportsEachRule: a valid plan passes; each kind of breakage,
// made by hand on it, is reported naming the spec.
func TestCheckReportsEachRule(t *testing.T) {
	const specs = `{"executorch": {"alignment": 16, "extra_padding": 8, "input_mem_buffer_sizes": [0, 64], "specs": [
		{"id": "a", "size": 64, "lifetime": [0, 1]}, {"id": "b", "size": 32, "lifetime": [2, 3]},
		{"id": "c", "size": 32, "lifetime": [1, 2]}, {"id": "v", "size": 16, "lifetime": [3, 4], "storage_base": "b", "storage_base_offset": 16}]}}`
	f, err := etfmt.Read(strings.NewReader(specs), "s.json")
	require.NoError(t, err)
	valid := func() *etfmt.Plan {
		// a at 64..128 (obj 0), b at 64..96 (obj 0, after a), c at 128..160 (obj 1), v in b.
		return &etfmt.Plan{BufSizes: []int64{0, 168}, Specs: []etfmt.Placement{
			{MemID: 1, MemObjID: 0, MemOffset: 64}, {MemID: 1, MemObjID: 0, MemOffset: 64},
			{MemID: 1, MemObjID: 1, MemOffset: 128}, {MemID: 1, MemObjID: 0, MemOffset: 80}}}
	}
	f.Plan = valid()
	require.Empty(t, etdevice.Check(f))
	for _, tc := range []struct {
		name   string
		mutate func(p *etfmt.Plan)
		want   string
	}{
		{"below the input buffer", func(p *etfmt.Plan) { p.Specs[2].MemOffset = 48 }, `spec "c": mem_offset 48 is below input_mem_buffer_sizes[1] = 64`},
		{"past bufsizes with the padding", func(p *etfmt.Plan) { p.BufSizes[1] = 160 }, `spec "c": ends at 160 (with extra_padding 8), past bufsizes[1] = 160`},
		{"unaligned", func(p *etfmt.Plan) { p.Specs[2].MemOffset = 136 }, `spec "c": mem_offset 136 is not 64 plus a multiple of the alignment 16`},
		{"a view apart from its base", func(p *etfmt.Plan) { p.Specs[3].MemOffset = 64 }, `spec "v": a view of "b" must be at mem_id 1, mem_obj_id 0, mem_offset 80`},
		{"overlapping bytes, two mem_obj_ids", func(p *etfmt.Plan) { p.Specs[1].MemObjID, p.Specs[3].MemObjID = 2, 2 }, `spec "a": shares bytes with "b" in mem_id 1 but not its mem_obj_id (0, 2)`},
		{"overlapping bytes while both live", func(p *etfmt.Plan) { p.Specs[2].MemOffset, p.Specs[2].MemObjID = 96, 0 }, `shares bytes with "c" in mem_id 1 while both are live`},
		{"a mem_id without bufsizes", func(p *etfmt.Plan) { p.Specs[2].MemID = 2 }, `spec "c": mem_id 2 has no bufsizes entry`},
		{"bufsizes[0] not 0", func(p *etfmt.Plan) { p.BufSizes[0] = 4 }, `bufsizes [4 168]: at least two entries, the first 0`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f.Plan = valid()
			tc.mutate(f.Plan)
			vs := etdevice.Check(f)
			require.NotEmpty(t, vs)
			assert.Contains(t, strings.Join(vs, "\n"), tc.want)
		})
	}
}
