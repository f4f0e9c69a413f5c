package csv

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/model"
)

// TestReadPlanAliasColumns (issue 42): a plan CSV read as a problem keeps
// its alias groups (plan -o writes alias, alias_delta): the member follows
// its root instead of being a pin over it (plan PLAN.csv ended "infeasible:
// the pins alone cannot be placed" on a valid alias plan).
func TestReadPlanAliasColumns(t *testing.T) {
	src := "id,lower,upper,size,offset,alias,alias_delta\nx,0,4,4096,0,,\nz,3,6,1024,2048,x,2048\n"
	p, err := Read(strings.NewReader(src), "plan.csv")
	require.NoError(t, err)
	require.Len(t, p.Buffers, 2)
	assert.Nil(t, p.Buffers[0].Alias)
	require.NotNil(t, p.Buffers[0].Pin)
	assert.Equal(t, &model.Alias{Parent: "x", Delta: 2048}, p.Buffers[1].Alias)
	assert.Nil(t, p.Buffers[1].Pin)

	_, err = Read(strings.NewReader("id,lower,upper,size,alias,alias_delta\nx,0,4,4096,,\nz,3,6,1024,x,two\n"), "plan.csv")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "plan.csv:3: column alias_delta")
}
