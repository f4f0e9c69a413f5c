package graph

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestSniffReadsTopLevelKeys (issue 36 D14): a JSON problem whose buffer is
// named "ops" or "models" was taken for a model graph on standard input;
// only the object's own keys count.
func TestSniffReadsTopLevelKeys(t *testing.T) {
	tests := []struct {
		name, data string
		graph      bool
	}{
		{"a graph", `{"tensors": [], "ops": []}`, true},
		{"several models", ` {"models": [{"name": "a"}]}`, true},
		{"a buffer named ops", `{"buffers": [{"id": "ops", "start": 0, "end": 2, "size": 8}]}`, false},
		{"a buffer named models", `{"buffers": [{"id": "models", "start": 0, "end": 2, "size": 8}]}`, false},
		{"ops inside a nested object", `{"name": "x", "meta": {"ops": 1}, "buffers": []}`, false},
		{"an escaped quote in a key", `{"a\"b": {"ops": 2}, "ops": []}`, true},
		{"not an object", `["ops"]`, false},
		{"truncated", `{"op`, false},
		{"a byte order mark", "\ufeff{\"ops\": []}", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.graph, Sniff([]byte(tc.data)))
		})
	}
}
