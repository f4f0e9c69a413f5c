package cmsisnn

import "math"

// Path is the code path CMSIS-NN compiles for a CPU.
type Path int

const (
	// C is the plain C path (no ARM_MATH_DSP, no ARM_MATH_MVEI):
	// Cortex-M0, M0+, M3.
	C Path = iota
	// DSP is the path of the DSP extension (ARM_MATH_DSP): Cortex-M4, M7,
	// M33, M35P.
	DSP
	// MVE is the path of the M-profile vector extension, Helium
	// (ARM_MATH_MVEI; ARM_MATH_DSP too): Cortex-M55, M85.
	MVE
)

func (p Path) String() string {
	switch p {
	case DSP:
		return "DSP"
	case MVE:
		return "MVE"
	}
	return "plain C"
}

// Dims is cmsis_nn_dims: N, H, W, C.
type Dims struct{ N, H, W, C int64 }

// Conv is the part of cmsis_nn_conv_params (and cmsis_nn_dw_conv_params,
// cmsis_nn_transpose_conv_params) that buffer sizes read.
type Conv struct {
	StrideW, StrideH     int64
	PaddingW, PaddingH   int64
	DilationW, DilationH int64
}

// The constants of arm_nnsupportfunctions.h.
const (
	chInBlockMVE           = 124 // CH_IN_BLOCK_MVE
	reverseTColEfficient   = 16  // REVERSE_TCOL_EFFICIENT_THRESHOLD
	dwOneInChThresholdGCC  = 1   // CONVERT_DW_CONV_WITH_ONE_INPUT_CH_AND_OUTPUT_CH_ABOVE_THRESHOLD without Arm Compiler 6
	int16Bytes, int32Bytes = 2, 4
)

// is1x1 is arm_nn_is_convolve_1x1.
func is1x1(p Conv, in, f Dims) bool {
	return p.PaddingW == 0 && p.PaddingH == 0 && f.W == 1 && f.H == 1 && p.DilationW == 1 && p.DilationH == 1 && in.C == f.C
}

// is1xN is arm_nn_is_convolve_1_x_n.
func is1xN(p Conv, in, f Dims) bool {
	return in.H == 1 && p.DilationW == 1 && f.H == 1 && mul(p.StrideW, in.C)%4 == 0 && in.C == f.C
}

// convS8 is arm_convolve_s8_get_buffer_size.
func convS8(path Path, in, f Dims) int64 {
	if path == MVE {
		return convS8MVE(in, f)
	}
	cols := mul(f.W, f.H, in.C)
	if r := cols % 4; r != 0 {
		cols = add(cols, 4-r)
	}
	return mul(2, cols, int16Bytes)
}

// convS8MVE is arm_convolve_s8_get_buffer_size_mve: four im2col buffers of
// whole 16-byte lanes.
func convS8MVE(in, f Dims) int64 {
	col := add(mul(in.C, f.W, f.H), 15) / 16
	return mul(4, col, 16)
}

// conv1xNS8MVE is arm_convolve_1_x_n_s8_get_buffer_size_mve.
func conv1xNS8MVE(p Conv, in, f, out Dims) int64 {
	totalPad := add(mul(out.W-1, p.StrideW), f.W) - in.W
	asym := totalPad % 2 // C's %: the sign of the dividend
	right := int64(0)
	if p.PaddingW+asym != 0 {
		right = max(1, (p.PaddingW+asym+p.StrideW-1)/p.StrideW)
	}
	left := int64(0)
	if p.PaddingW != 0 {
		left = max(1, (p.PaddingW+p.StrideW-1)/p.StrideW)
	}
	noPad := max(out.W-(right+left), 0)
	if right+noPad+left != out.W {
		return convS8MVE(in, f)
	}
	padLeft := mul(p.PaddingW, in.C)
	padRight := padLeft
	if asym != 0 {
		padRight = mul(right, in.C)
	}
	elemLeft := mul(f.W, in.C)
	elemRight := elemLeft - in.C
	return max(add(elemLeft, padLeft), add(elemRight, padRight))
}

// Conv1x1S8Fast is arm_convolve_1x1_s8_fast_get_buffer_size: 2·C int16s
// on the DSP path under Arm Compiler 6 only, so 0 with GCC on every path.
func Conv1x1S8Fast(path Path, in Dims) int64 { return 0 }

// ConvWrapperS8 is arm_convolve_wrapper_s8_get_buffer_size.
func ConvWrapperS8(path Path, p Conv, in, f, out Dims) int64 {
	switch {
	case is1x1(p, in, f):
		return 0 // the fast 1x1 path asks for nothing with GCC, the slow one for nothing at all
	case is1xN(p, in, f):
		if path == MVE {
			return conv1xNS8MVE(p, in, f, out)
		}
		return convS8(path, in, f)
	}
	return convS8(path, in, f)
}

// ConvWrapperS16 is arm_convolve_wrapper_s16_get_buffer_size.
func ConvWrapperS16(path Path, in, f Dims) int64 {
	col := mul(in.C, f.W, f.H)
	if path == MVE {
		return mul(4, add(col, 7)/8, 8, int16Bytes)
	}
	return mul(2, col, int16Bytes)
}

// dwOptS8 is arm_depthwise_conv_s8_opt_get_buffer_size.
func dwOptS8(path Path, in, f Dims) int64 {
	switch path {
	case MVE:
		return mul(4, chInBlockMVE, f.W, f.H)
	case DSP:
		return mul(in.C, f.W, f.H, int16Bytes)
	}
	return 0
}

// dwOneInChMVE is arm_deptwise_conv_s8_one_in_ch_get_buffer_size_mve: the
// depthwise convolution run as a convolution (filter dims swapped N↔C),
// plus a copy of the filter.
func dwOneInChMVE(p Conv, in, f, out Dims) int64 {
	fc := Dims{N: f.C, H: f.H, W: f.W, C: f.N}
	size := convWrapperS8MVE(p, in, fc, out)
	return add(size, mul(f.C, f.H, f.W, f.N))
}

// convWrapperS8MVE is arm_convolve_wrapper_s8_get_buffer_size_mve.
func convWrapperS8MVE(p Conv, in, f, out Dims) int64 { return ConvWrapperS8(MVE, p, in, f, out) }

// DepthwiseWrapperS8 is arm_depthwise_conv_wrapper_s8_get_buffer_size.
func DepthwiseWrapperS8(path Path, p Conv, in, f, out Dims) int64 {
	if path == MVE && in.C == 1 && out.C > dwOneInChThresholdGCC {
		return dwOneInChMVE(p, in, f, out)
	}
	if in.C == out.C && in.N == 1 && p.DilationW == 1 && p.DilationH == 1 {
		if path != MVE && f.W == 3 && f.H == 3 && p.PaddingH <= 1 && p.PaddingW <= 1 {
			return 0
		}
		return dwOptS8(path, in, f)
	}
	return 0
}

// DepthwiseWrapperS4 is arm_depthwise_conv_wrapper_s4_get_buffer_size
// (arm_depthwise_conv_s4_opt_get_buffer_size takes the DSP size on the
// plain C path too).
func DepthwiseWrapperS4(path Path, p Conv, in, f, out Dims) int64 {
	if in.C == out.C && in.N == 1 && p.DilationW == 1 && p.DilationH == 1 {
		if path == MVE {
			return mul(4, chInBlockMVE, f.W, f.H)
		}
		return mul(in.C, f.W, f.H, int16Bytes)
	}
	return 0
}

// FullyConnectedS8 is arm_fully_connected_s8_get_buffer_size: an int32
// per output channel (f.C) on the MVE path (the kernel sums), none
// elsewhere.
func FullyConnectedS8(path Path, f Dims) int64 {
	if path == MVE {
		return mul(f.C, int32Bytes)
	}
	return 0
}

// AvgPool is arm_avgpool_s8_get_buffer_size and
// arm_avgpool_s16_get_buffer_size: an int32 per channel on the DSP path.
func AvgPool(path Path, outW, ch int64) int64 {
	if path == DSP {
		return mul(ch, int32Bytes)
	}
	return 0
}

// SVDFS8 is arm_svdf_s8_get_buffer_size: an int32 per filter on the MVE
// path (the kernel sums).
func SVDFS8(path Path, wf Dims) int64 {
	if path == MVE {
		return mul(wf.N, int32Bytes)
	}
	return 0
}

// transposeReverse reports whether arm_transpose_conv_s8 runs as a
// reversed convolution (strides at most 2, more than 16 input channels).
func transposeReverse(p Conv, in Dims) bool {
	return p.StrideW <= 2 && p.StrideH <= 2 && in.C > reverseTColEfficient
}

// TransposeConvS8 is arm_transpose_conv_s8_get_buffer_size. (The column
// buffer's width reads MAX(filter width, stride height), as CMSIS-NN
// writes it.)
func TransposeConvS8(path Path, p Conv, in, f, out Dims) int64 {
	if transposeReverse(p, in) {
		rin := Dims{N: in.N, H: mul(in.H, p.StrideH), W: mul(in.W, p.StrideW), C: in.C}
		return convS8(path, rin, f)
	}
	bufX := mul(add(mul(in.W-1, p.StrideW), max(f.W, p.StrideH)), out.C)
	bufY := max(f.H, p.StrideH)
	return mul(bufX, bufY, int32Bytes)
}

// TransposeConvReverseS8 is
// arm_transpose_conv_s8_get_reverse_conv_buffer_size: the reversed filter.
func TransposeConvReverseS8(p Conv, in, f Dims) int64 {
	if transposeReverse(p, in) {
		return mul(in.C, f.W, f.H, f.N)
	}
	return 0
}

// Saturated is the value mul and add return instead of overflowing: a
// size no int32 holds, which the caller refuses.
const Saturated = math.MaxInt64

// mul multiplies non-negative factors, saturating at Saturated (a
// negative factor, which no valid operator has, gives Saturated too).
func mul(vs ...int64) int64 {
	p := int64(1)
	for _, v := range vs {
		if v < 0 || v != 0 && p > math.MaxInt64/v {
			return Saturated
		}
		p *= v
	}
	return p
}

// add adds, saturating at Saturated.
func add(a, b int64) int64 {
	if a == Saturated || b == Saturated || b > 0 && a > math.MaxInt64-b {
		return Saturated
	}
	return a + b
}
