//go:build cgo

package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	etfmt "github.com/optalloc/optalloc/formats/executorch"
	"github.com/optalloc/optalloc/solve"
)

// TestExecuTorchPlan: optalloc_executorch_plan's Go side plans a specs
// file through the door and returns it with the placements; malformed
// specs and other inputs are bad input (code 2).
func TestExecuTorchPlan(t *testing.T) {
	s := newSolver()
	s.set(func(o *solve.Options) { o.Threads = 1 })
	out, err := s.planExecuTorch([]byte(`{"executorch": {"alignment": 16, "specs": [
		{"id": "0", "size": 64, "lifetime": [0, 0]}, {"id": "1", "size": 32, "lifetime": [1, 1]}, {"id": "2", "size": 32, "lifetime": [1, 1]}]}}`))
	require.NoError(t, err)
	assert.Contains(t, string(out), `"bufsizes":[0,64]`)
	f, err := etfmt.Read(bytes.NewReader(out), "out.json")
	require.NoError(t, err)
	assert.Len(t, f.Specs, 3)

	for _, tc := range []struct{ in, want string }{
		{`{"executorch": {"specs": [{"id": "0", "size": 16, "lifetime": [0, 1], "mem_id": 0}]}}`, `spec "0": mem_id must be between 1 and 255, not 0`},
		{`{"buffers": [{"id": "a", "start": 0, "end": 1, "size": 4}]}`, `not a specs file`},
	} {
		_, err := s.planExecuTorch([]byte(tc.in))
		require.Error(t, err)
		assert.Equal(t, codeBadInput, codeOf(err))
		assert.Contains(t, err.Error(), tc.want)
	}
}
