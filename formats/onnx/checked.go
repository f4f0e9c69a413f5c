package onnx

import (
	"fmt"
	"math"
)

// Shape arithmetic is checked: a dimension that does not fit in an int64
// is an error naming the tensor and its node (sizeError is fatal in
// inferer.graph), never a wrapped, smaller size.

// sizeError says that a shape computation overflows or is undefined.
type sizeError struct{ msg string }

func (e *sizeError) Error() string { return e.msg }

func overflow(format string, args ...any) error {
	return &sizeError{msg: fmt.Sprintf(format, args...) + " overflows int64"}
}

// mulDim multiplies two non-negative dimensions.
func mulDim(a, b int64) (int64, bool) {
	if a < 0 || b < 0 || a > 0 && b > math.MaxInt64/a {
		return 0, false
	}
	return a * b, true
}

// addDim adds two dimensions (either may be negative: pads).
func addDim(a, b int64) (int64, bool) {
	s := a + b
	if (b > 0 && s < a) || (b < 0 && s > a) {
		return 0, false
	}
	return s, true
}

// sum adds values; false on overflow.
func sum(vs ...int64) (int64, bool) {
	var s int64
	for _, v := range vs {
		var ok bool
		if s, ok = addDim(s, v); !ok {
			return 0, false
		}
	}
	return s, true
}

// maxRank bounds the rank of an inferred shape: ranks are read from the
// file, but Gather (rank r + q - 1) or Unsqueeze chains could otherwise
// grow them far beyond it.
const maxRank = 1 << 16

// floatDim converts a computed floating-point size to a dimension: NaN,
// infinities and values beyond int64 are errors.
func floatDim(f float64, what string) (int64, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, &sizeError{msg: fmt.Sprintf("%s is %v", what, f)}
	}
	if f >= math.MaxInt64 || f <= math.MinInt64 {
		return 0, overflow("%s (%g)", what, f)
	}
	return int64(f), nil
}

// ceilDiv is ⌈a/b⌉ for a ≥ 0, b > 0, without overflow.
func ceilDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 {
		q++
	}
	return q
}

// subChecked is a-b; false on overflow (folded shape arithmetic).
func subChecked(a, b int64) (int64, bool) {
	d := a - b
	if (b > 0 && d > a) || (b < 0 && d < a) {
		return 0, false
	}
	return d, true
}

// mulChecked is a×b for any signs; false on overflow.
func mulChecked(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	p := a * b
	if p/b != a || a == -1 && b == math.MinInt64 || b == -1 && a == math.MinInt64 {
		return 0, false
	}
	return p, true
}
