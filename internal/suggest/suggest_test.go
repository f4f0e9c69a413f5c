package suggest

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"abc", "", 3},
		{"time-limit", "time-limit", 0},
		{"time-limt", "time-limit", 1},
		{"tiem-limit", "time-limit", 1}, // a swap
		{"inptu:1", "input:1", 1},
		{"kitten", "sitting", 3},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, Distance(tc.a, tc.b), "%q %q", tc.a, tc.b)
		assert.Equal(t, tc.want, Distance(tc.b, tc.a), "%q %q", tc.b, tc.a)
	}
}

func TestNearest(t *testing.T) {
	assert.Equal(t, "input:1", Nearest("inptu:1", []string{"batch", "input:1"}))
	assert.Equal(t, "", Nearest("zzz", []string{"batch"}))
	assert.Equal(t, "", Nearest("x", nil))
}

func ExampleNearest() {
	fmt.Println(Nearest("time-limt", []string{"threads", "time-limit", "method"}))
	// Output: time-limit
}
