package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHelpGroupsEngineTuning (issue 35, item 11): "help plan" lists the
// flags people use first and the engine tuning switches after them, under
// their own heading; the command list names version, and the block
// layout's methods name equal_slots.
func TestHelpGroupsEngineTuning(t *testing.T) {
	code, stdout, _ := cli(t, "", "help", "plan")
	require.Equal(t, 0, code)
	user, tuning, ok := strings.Cut(stdout, "\nEngine tuning")
	require.True(t, ok, "an engine tuning group")
	defines := func(group, flag string) bool { // a line of the group defines the flag
		return regexp.MustCompile(`(?m)^ {2,6}(-\w, )?` + flag + ` `).MatchString(group)
	}
	for _, f := range []string{"--time-limit", "--capacity", "--method", "--output", "--json", "--dim", "--layout"} {
		assert.True(t, defines(user, f), "%s is a flag people use, before the tuning group", f)
		assert.False(t, defines(tuning, f), f)
	}
	for _, f := range []string{"--no-bnb", "--no-round", "--no-symmetry", "--bnb-orders", "--planner-opt"} {
		assert.True(t, defines(tuning, f), "%s is engine tuning", f)
		assert.False(t, defines(user, f), f)
	}
	assert.Contains(t, stdout, "equal_slots")
	code, stdout, _ = cli(t, "", "help")
	assert.Equal(t, 0, code)
	assert.Regexp(t, `(?m)^  version `, stdout)
}

// TestMisspelledFlag (issue 35, item 11): a flag close to a known one gets
// "did you mean"; one close to nothing does not.
func TestMisspelledFlag(t *testing.T) {
	for _, tc := range []struct{ flag, want string }{
		{"--time-limt=2s", "(did you mean --time-limit?)"},
		{"--timelimit", "(did you mean --time-limit?)"},
		{"--capacty", "(did you mean --capacity?)"},
		{"--no-rund", "(did you mean --no-round?)"},
		{"--explai", "(did you mean --explain?)"},
		{"--frobnicate", ""},
	} {
		t.Run(tc.flag, func(t *testing.T) {
			code, _, stderr := cli(t, "", "plan", "../../examples/tiny-cnn.csv", tc.flag)
			assert.Equal(t, 2, code)
			assert.Contains(t, stderr, "unknown flag")
			if tc.want == "" {
				assert.NotContains(t, stderr, "did you mean")
			} else {
				assert.Contains(t, stderr, tc.want)
			}
			assert.Equal(t, 1, strings.Count(stderr, "\n"), "one line")
		})
	}
}
