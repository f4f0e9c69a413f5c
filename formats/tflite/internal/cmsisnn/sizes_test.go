package cmsisnn

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestSizes: hand-computed values of the C functions on each path.
func TestSizes(t *testing.T) {
	in := Dims{N: 1, H: 8, W: 8, C: 4}
	f3 := Dims{N: 1, H: 3, W: 3, C: 4}
	same := Conv{StrideW: 1, StrideH: 1, PaddingW: 1, PaddingH: 1, DilationW: 1, DilationH: 1}
	tests := []struct {
		name       string
		fn         func(Path) int64
		c, dsp, mv int64
	}{
		// 3·3·4 = 36 columns: 2·36 int16s (C, DSP); 4 lanes of 16 × 3 (MVE).
		{"conv s8 3x3", func(p Path) int64 { return ConvWrapperS8(p, same, in, f3, in) }, 144, 144, 192},
		// 1×1 with unit stride: nothing with GCC on every path.
		{"conv s8 1x1", func(p Path) int64 {
			return ConvWrapperS8(p, Conv{StrideW: 1, StrideH: 1, DilationW: 1, DilationH: 1}, in, Dims{N: 1, H: 1, W: 1, C: 4}, in)
		}, 0, 0, 0},
		{"conv s16 3x3", func(p Path) int64 { return ConvWrapperS16(p, in, f3) }, 144, 144, 320},
		// Depthwise 3×3, padding ≤ 1: the C and DSP paths take the 3×3 kernel.
		{"dw s8 3x3", func(p Path) int64 { return DepthwiseWrapperS8(p, same, in, f3, in) }, 0, 0, 4464},
		{"dw s4 3x3", func(p Path) int64 { return DepthwiseWrapperS4(p, same, in, f3, in) }, 72, 72, 4464},
		{"fc s8", func(p Path) int64 { return FullyConnectedS8(p, Dims{C: 10}) }, 0, 0, 40},
		{"avgpool", func(p Path) int64 { return AvgPool(p, 4, 5) }, 0, 20, 0},
		{"svdf", func(p Path) int64 { return SVDFS8(p, Dims{N: 6}) }, 0, 0, 24},
		// Four input channels: the column buffer, (3·2 + 3)·3 columns × 3 rows of int32.
		{"transpose conv", func(p Path) int64 {
			return TransposeConvS8(p, Conv{StrideW: 2, StrideH: 2}, Dims{N: 1, H: 4, W: 4, C: 4}, Dims{N: 3, H: 3, W: 3, C: 4}, Dims{N: 1, H: 8, W: 8, C: 3})
		}, 324, 324, 324},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.c, tc.fn(C), "plain C")
			assert.Equal(t, tc.dsp, tc.fn(DSP), "DSP")
			assert.Equal(t, tc.mv, tc.fn(MVE), "MVE")
		})
	}
}

// TestSizesSaturate: dimensions no device has give Saturated, never a
// wrapped small size.
func TestSizesSaturate(t *testing.T) {
	big := int64(math.MaxInt32)
	in := Dims{N: 1, H: big, W: big, C: big}
	f := Dims{N: big, H: big, W: big, C: big}
	p := Conv{StrideW: big, StrideH: big, DilationW: 1, DilationH: 1}
	for _, path := range []Path{C, DSP, MVE} {
		assert.Equal(t, int64(Saturated), ConvWrapperS8(path, p, in, f, in))
		assert.Equal(t, int64(Saturated), TransposeConvS8(path, p, in, f, in))
		assert.Equal(t, int64(Saturated), TransposeConvReverseS8(Conv{StrideW: 1, StrideH: 1}, Dims{C: 20}, f))
	}
	assert.Equal(t, int64(Saturated), mul(-1, 2))
	assert.Equal(t, int64(Saturated), add(Saturated, -5))
	assert.Equal(t, int64(6), mul(1, 2, 3))
}
