package verify_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/formats/jsonfmt"
	"github.com/optalloc/optalloc/formats/plan"
	"github.com/optalloc/optalloc/verify"
)

// A plan file that states its peak must state the peak it has.
func TestCheckStatedPeak(t *testing.T) {
	p := kindProblem()
	require.NoError(t, p.Validate())
	var buf bytes.Buffer
	require.NoError(t, jsonfmt.WritePlan(&buf, p, kindPlan()))
	good := buf.String()
	pl, err := plan.Read(strings.NewReader(good), "plan.json", p)
	require.NoError(t, err)
	assert.Empty(t, verify.Check(p, pl), "the plan as written verifies")

	for _, tc := range []struct{ name, from, to string }{
		{"peak", `"peak": 48`, `"peak": 47`},
		{"peak above", `"peak": 48`, `"peak": 4800`},
		{"pool peak", `"sram": 48`, `"sram": 40`},
		{"unknown pool", `"sram": 48`, `"sram": 48, "hbm": 3`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Contains(t, good, tc.from)
			bad := strings.Replace(good, tc.from, tc.to, 1)
			pl, err := plan.Read(strings.NewReader(bad), "plan.json", p)
			require.NoError(t, err)
			vs := verify.Check(p, pl)
			require.Len(t, vs, 1, vs)
			assert.Equal(t, verify.WrongPeak, vs[0].Kind)
			assert.Equal(t, "wrong-peak", vs[0].Name)
		})
	}

	// A plan without a stated peak (a CSV) is not affected.
	pl, err = plan.Read(strings.NewReader("id,offset\na,0\nb,8\np,32\nc,40\ne,0\ng,16\n"), "plan.csv", p)
	require.NoError(t, err)
	vs := verify.Check(p, pl)
	for _, v := range vs {
		assert.NotEqual(t, verify.WrongPeak, v.Kind)
	}
}
