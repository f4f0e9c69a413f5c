package main

import (
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMain lets the test binary be the load: startLoad starts copies of
// the running program, here this binary, with spinEnv set.
func TestMain(m *testing.M) {
	if os.Getenv(spinEnv) != "" {
		spin()
		return
	}
	os.Exit(m.Run())
}

// TestMeasure: the table's runs on the examples, with and without a load of
// spinning children (stopped, and only those, at the end); a file that
// does not read is an error. What the runs give is asserted (optimal), not
// how long they take.
func TestMeasure(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files []string
		load  int
		ok    bool
		err   bool
	}{
		{"an example, no load", []string{"../../../examples/tiny-cnn.csv"}, 0, true, false},
		{"beside two spinning children", []string{"../../../examples/tiny-cnn.csv"}, 2, true, false},
		{"a missing file", []string{"../../../examples/none.csv"}, 0, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stop, err := startLoad(tc.load, time.Minute)
			require.NoError(t, err)
			ok, err := measureFiles(tc.files, 1, 10*time.Second, 2, tc.load)
			stop()
			if tc.err {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.ok, ok)
		})
	}
}
