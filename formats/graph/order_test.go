package graph

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// diamond: x -> f -> a; a -> g -> b; a -> h -> c; (b, c) -> k -> y, with
// the ops listed in the order given by ops.
func diamond(order string, ops ...string) string {
	all := map[string]string{
		"f": `{"name": "f", "type": "F", "inputs": ["x"], "outputs": ["a"]}`,
		"g": `{"name": "g", "type": "G", "inputs": ["a"], "outputs": ["b"]}`,
		"h": `{"name": "h", "type": "H", "inputs": ["a"], "outputs": ["c"]}`,
		"k": `{"name": "k", "type": "K", "inputs": ["b", "c"], "outputs": ["y"]}`,
	}
	var list []string
	for _, o := range ops {
		list = append(list, all[o])
	}
	o := ""
	if order != "" {
		o = `"order": "` + order + `", `
	}
	return `{"alignment": 1, ` + o + `"tensors": [{"name": "x", "bytes": 8, "kind": "input"}, {"name": "a", "bytes": 4},
	 {"name": "b", "bytes": 2}, {"name": "c", "bytes": 1}, {"name": "y", "bytes": 8, "kind": "output"}],
	 "ops": [` + strings.Join(list, ", ") + `]}`
}

func TestExecutionOrder(t *testing.T) {
	tests := []struct {
		name      string
		src       string
		reordered bool
		lives     []life   // the lifetimes follow the derived order
		ran       []string // the derived order
	}{
		{"valid order kept", diamond("", "f", "h", "g", "k"), false,
			[]life{{"a", 0, 3, 4}, {"c", 1, 4, 1}, {"b", 2, 4, 2}}, []string{"f", "h", "g", "k"}},
		{"out of order: derived, listed order kept where valid", diamond("", "k", "g", "f", "h"), true,
			[]life{{"a", 0, 3, 4}, {"b", 1, 4, 2}, {"c", 2, 4, 1}}, []string{"f", "g", "h", "k"}},
		{"depth-first from the outputs", diamond("depth-first", "f", "h", "g", "k"), true,
			[]life{{"a", 0, 3, 4}, {"b", 1, 4, 2}, {"c", 2, 4, 1}}, []string{"f", "g", "h", "k"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, r := build(t, tc.src)
			for _, w := range tc.lives {
				b := bufOf(t, p, w.id)
				assert.Equal(t, [3]int64{w.start, w.end, w.size}, [3]int64{b.Start, b.End, b.Size}, w.id)
			}
			assert.Equal(t, tc.reordered, len(r.Reordered) == 1)
			var sb strings.Builder
			require.NoError(t, r.WriteText(&sb))
			assert.Equal(t, tc.reordered, strings.Contains(sb.String(), "execution order derived depth-first"))
			// the simulator runs the ops in the listed order: list them as derived
			simulate(t, p, mustDecode(t, diamond("", tc.ran...)), r)
		})
	}
}

func TestExecutionOrderErrors(t *testing.T) {
	_, _, err := Build(mustDecode(t, diamond("given", "k", "g", "f", "h")), "d.graph.json")
	assert.ErrorContains(t, err, `op "k" uses tensor "b" before it is produced by op "g"`)
	_, _, err = Build(mustDecode(t, diamond("sideways", "f", "g", "h", "k")), "d.graph.json")
	assert.ErrorContains(t, err, `order "sideways": want "auto" (default), "given" or "depth-first"`)
}
