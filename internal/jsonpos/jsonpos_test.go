package jsonpos

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestLineAt(t *testing.T) {
	data := []byte("{\n \"a\": 1,\n \"b\": 2\n}")
	for _, tc := range []struct {
		off  int64
		line int
	}{{-1, 1}, {0, 1}, {1, 1}, {2, 2}, {12, 3}, {int64(len(data)), 4}, {1 << 40, 4}} {
		assert.Equal(t, tc.line, LineAt(data, tc.off), "offset %d", tc.off)
	}
}

func TestSkipSpace(t *testing.T) {
	data := []byte("1, \n\t\r 2")
	assert.Equal(t, int64(0), SkipSpace(data, 0))
	assert.Equal(t, int64(7), SkipSpace(data, 1))
	assert.Equal(t, int64(2), SkipSpace([]byte(" ,"), 0), "all space: the end")
}
