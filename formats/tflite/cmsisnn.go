package tflite

import (
	"errors"
	"fmt"
	"math"

	"github.com/optalloc/optalloc/formats/tflite/internal/cmsisnn"
	"github.com/optalloc/optalloc/formats/tflite/internal/schema"
)

// The scratch requests of TFLite Micro's CMSIS-NN kernels
// (OPTIMIZED_KERNEL_DIR=cmsis_nn: tensorflow/lite/micro/kernels/cmsis_nn/,
// sources in ../shared/tflm-cortexm/tflm-cortexm-src.tar.xz), one function
// per kernel, each following its Prepare as TFLite Micro's Makefile builds
// it (KERNELS_OPTIMIZED_FOR_SPEED). The sizes come from package cmsisnn,
// for the code path the target's CPU takes. The 14 kernels of that folder
// replace their reference versions; every other operator keeps its
// reference kernel and its requests (kernels.go).

// cmsisScratch returns the sizes the operator's CMSIS-NN kernel requests,
// in order; ok is false when CMSIS-NN has no kernel for the operator (the
// reference kernel runs it).
func (k *kernelOp) cmsisScratch(path cmsisnn.Path) (sizes []int64, ok bool, err error) {
	switch k.code() {
	case schema.BuiltinOperatorCONV_2D:
		sizes, err = k.cmsisConv(path)
	case schema.BuiltinOperatorDEPTHWISE_CONV_2D:
		sizes, err = k.cmsisDepthwise(path)
	case schema.BuiltinOperatorFULLY_CONNECTED:
		sizes, err = k.cmsisFullyConnected(path)
	case schema.BuiltinOperatorBATCH_MATMUL:
		sizes, err = k.cmsisBatchMatMul(path)
	case schema.BuiltinOperatorAVERAGE_POOL_2D:
		sizes, err = k.cmsisAvgPool(path)
	case schema.BuiltinOperatorSVDF:
		// svdf.cc asks for what the reference kernel asks for: with
		// KERNELS_OPTIMIZED_FOR_SPEED the MVE path's kernel sums
		// (arm_svdf_s8_get_buffer_size) are persistent, not scratch.
		sizes, err = k.svdf()
	case schema.BuiltinOperatorTRANSPOSE_CONV:
		sizes, err = k.cmsisTransposeConv(path)
	case schema.BuiltinOperatorUNIDIRECTIONAL_SEQUENCE_LSTM:
		sizes, err = k.cmsisLSTM()
	case schema.BuiltinOperatorADD, schema.BuiltinOperatorMUL, schema.BuiltinOperatorMAXIMUM, schema.BuiltinOperatorMINIMUM,
		schema.BuiltinOperatorPAD, schema.BuiltinOperatorSOFTMAX, schema.BuiltinOperatorTRANSPOSE, schema.BuiltinOperatorMAX_POOL_2D:
		// CMSIS-NN kernels that request no scratch (nor do their
		// reference versions).
	default:
		return nil, false, nil
	}
	if err != nil {
		return nil, true, err
	}
	for _, s := range sizes {
		if s > math.MaxInt32 {
			return nil, true, &sizeError{fmt.Sprintf("its CMSIS-NN scratch size %d overflows int32", s)}
		}
	}
	return sizes, true, nil
}

// nhwc reads a 4-D tensor's shape as cmsis_nn_dims.
func nhwc(t *Tensor) (cmsisnn.Dims, error) {
	if len(t.Shape) != 4 {
		return cmsisnn.Dims{}, fmt.Errorf("tensor %q has shape %v, the kernel wants 4 dimensions", t.Name, t.Shape)
	}
	return cmsisnn.Dims{N: int64(t.Shape[0]), H: int64(t.Shape[1]), W: int64(t.Shape[2]), C: int64(t.Shape[3])}, nil
}

// convTypes checks the input, filter and output types conv.cc,
// depthwise_conv.cc and fully_connected.cc accept (int4 filters only where
// int4 is allowed).
func convTypes(in, filter, out *Tensor, int4 bool) error {
	if in.Type != out.Type {
		return fmt.Errorf("input type %s differs from output type %s", in.Type, out.Type)
	}
	switch {
	case in.Type == "FLOAT32" && filter.Type == "FLOAT32",
		in.Type == "INT16" && filter.Type == "INT8",
		in.Type == "INT8" && (filter.Type == "INT8" || int4 && filter.Type == "INT4"):
		return nil
	}
	return fmt.Errorf("input %s with filter %s is not supported", in.Type, filter.Type)
}

// padding is ComputePaddingHeightWidth's padding (kernels/padding.h): the
// output size follows from the padding type, then half the total padding,
// rounded down.
func padding(pad schema.Padding, stride, dilation, in, filter int64) (int64, error) {
	if stride <= 0 || dilation <= 0 || filter <= 0 || in < 0 {
		return 0, fmt.Errorf("stride %d, dilation %d, filter %d: not a valid convolution", stride, dilation, filter)
	}
	eff := (filter-1)*dilation + 1
	var out int64
	switch pad {
	case schema.PaddingSAME:
		out = (in + stride - 1) / stride
	case schema.PaddingVALID:
		out = (in + stride - eff) / stride
	default:
		return 0, fmt.Errorf("padding %d is neither SAME nor VALID", pad)
	}
	if out < 0 {
		return 0, nil // ComputeOutSizeChecked fails; the padding stays 0
	}
	return max((out-1)*stride+eff-in, 0) / 2, nil
}

// convInputs returns a convolution's input, filter and output tensors.
func (k *kernelOp) convInputs() (in, filter, out *Tensor, err error) {
	if in, err = k.in(0); err != nil {
		return
	}
	if filter, err = k.in(1); err != nil {
		return
	}
	out, err = k.out(0)
	return
}

// convOperands is a convolution's tensors, checked as conv.cc and
// depthwise_conv.cc check them, and their shapes as cmsis_nn_dims.
type convOperands struct {
	in, filter, out *Tensor
	id, fd, od      cmsisnn.Dims
}

func (k *kernelOp) convOperands() (c convOperands, err error) {
	if c.in, c.filter, c.out, err = k.convInputs(); err != nil {
		return c, err
	}
	if err = convTypes(c.in, c.filter, c.out, true); err != nil {
		return c, err
	}
	if c.id, err = nhwc(c.in); err != nil {
		return c, err
	}
	if c.fd, err = nhwc(c.filter); err != nil {
		return c, err
	}
	c.od, err = nhwc(c.out)
	return c, err
}

// cmsisConv follows conv.cc (Prepare): an int8 input asks for
// arm_convolve_wrapper_s8_get_buffer_size, an int16 input for
// arm_convolve_wrapper_s16_get_buffer_size (Prepare reads the bias as an
// output, finds none, and so takes the int16 path whatever the bias), when
// positive.
func (k *kernelOp) cmsisConv(path cmsisnn.Path) ([]int64, error) {
	c, err := k.convOperands()
	if err != nil {
		return nil, err
	}
	in, id, fd, od := c.in, c.id, c.fd, c.od
	if fd.C <= 0 || id.C%fd.C != 0 {
		return nil, fmt.Errorf("%d input channels are not a multiple of the filter's %d", id.C, fd.C)
	}
	if in.Type == "FLOAT32" {
		return nil, nil
	}
	tab, ok := k.options(schema.BuiltinOptionsConv2DOptions)
	if !ok {
		return nil, errors.New("it has no Conv2D options")
	}
	var o schema.Conv2DOptions
	o.Init(tab.Bytes, tab.Pos)
	p, err := convParams(o.Padding(), o.StrideW(), o.StrideH(), o.DilationWFactor(), o.DilationHFactor(), id, fd)
	if err != nil {
		return nil, err
	}
	fd.N = 1 // conv.cc's filter_dims: n = 1, h, w, c from the filter
	var size int64
	if in.Type == "INT8" {
		size = cmsisnn.ConvWrapperS8(path, p, id, fd, od)
	} else {
		size = cmsisnn.ConvWrapperS16(path, id, fd)
	}
	return positive(size), nil
}

// convParams computes cmsis_nn_conv_params' strides, dilations and
// paddings from an operator's options.
func convParams(pad schema.Padding, sw, sh, dw, dh int32, in, filter cmsisnn.Dims) (cmsisnn.Conv, error) {
	p := cmsisnn.Conv{StrideW: int64(sw), StrideH: int64(sh), DilationW: int64(dw), DilationH: int64(dh)}
	var err error
	if p.PaddingH, err = padding(pad, p.StrideH, p.DilationH, in.H, filter.H); err != nil {
		return p, err
	}
	p.PaddingW, err = padding(pad, p.StrideW, p.DilationW, in.W, filter.W)
	return p, err
}

// positive is the kernels' "if (buf_size > 0) request": one size or none.
func positive(size int64) []int64 {
	if size > 0 {
		return []int64{size}
	}
	return nil
}

// cmsisDepthwise follows depthwise_conv.cc (Prepare): an int8 input asks
// for arm_depthwise_conv_wrapper_s8_get_buffer_size (int8 filter) or
// arm_depthwise_conv_wrapper_s4_get_buffer_size (int4 filter), when
// positive. Prepare leaves the parameters' stride unset (only the MVE
// path's one-input-channel case reads it, to tell a 1×N convolution):
// the operator's stride is taken there.
func (k *kernelOp) cmsisDepthwise(path cmsisnn.Path) ([]int64, error) {
	c, err := k.convOperands()
	if err != nil {
		return nil, err
	}
	in, filter, out, id, fd, od := c.in, c.filter, c.out, c.id, c.fd, c.od
	if in.Type != "INT8" {
		return nil, nil
	}
	if od.C != fd.C || id.N != od.N {
		return nil, fmt.Errorf("output %v and filter %v disagree", out.Shape, filter.Shape)
	}
	tab, ok := k.options(schema.BuiltinOptionsDepthwiseConv2DOptions)
	if !ok {
		return nil, errors.New("it has no DepthwiseConv2D options")
	}
	var o schema.DepthwiseConv2DOptions
	o.Init(tab.Bytes, tab.Pos)
	p, err := convParams(o.Padding(), o.StrideW(), o.StrideH(), o.DilationWFactor(), o.DilationHFactor(), id, fd)
	if err != nil {
		return nil, err
	}
	fd.N = 1 // filter_dims: n = 1, h, w, c = the output depth
	if filter.Type == "INT4" {
		return positive(cmsisnn.DepthwiseWrapperS4(path, p, id, fd, od)), nil
	}
	return positive(cmsisnn.DepthwiseWrapperS8(path, p, id, fd, od)), nil
}

// perChannel reports whether a tensor's quantization has more than one
// scale (CalculateOpDataFullyConnected's is_per_channel).
func (k *kernelOp) perChannel(t *Tensor) bool {
	var sg schema.SubGraph
	var st schema.Tensor
	k.m.root.Subgraphs(&sg, t.Subgraph)
	if !sg.Tensors(&st, t.Local) {
		return false
	}
	q := st.Quantization(nil)
	return q != nil && q.ScaleLength() > 1
}

// cmsisFullyConnected follows fully_connected.cc (Prepare). An int8 input
// with an int8 filter: when the output has more than two dimensions and
// the accumulation depth is a multiple of 4 (run as a 1×1 convolution), a
// per-tensor quantized filter asks for two int32s per output channel, then
// arm_convolve_1x1_s8_fast_get_buffer_size (nothing with GCC); otherwise
// arm_fully_connected_s8_get_buffer_size, kept in persistent memory instead
// when the filter and bias are constants. int16 inputs
// (arm_fully_connected_s16_get_buffer_size), int4 filters and float ask for
// nothing.
func (k *kernelOp) cmsisFullyConnected(path cmsisnn.Path) ([]int64, error) {
	in, filter, out, err := k.convInputs()
	if err != nil {
		return nil, err
	}
	if err := convTypes(in, filter, out, true); err != nil {
		return nil, err
	}
	if len(out.Shape) < 2 || len(out.Shape) > 4 || len(filter.Shape) < 1 {
		return nil, fmt.Errorf("output shape %v, filter shape %v: the kernel wants 2 to 4 output dimensions", out.Shape, filter.Shape)
	}
	if in.Type != "INT8" || filter.Type == "INT4" {
		if in.Type != "FLOAT32" && k.perChannel(filter) && (in.Type != "INT8" || filter.Type == "INT4") {
			return nil, errors.New("per-channel quantization is supported for int8 filters only")
		}
		return nil, nil
	}
	accum := int64(filter.Shape[len(filter.Shape)-1])
	depth := int64(out.Shape[len(out.Shape)-1])
	if len(out.Shape) > 2 && accum%4 == 0 {
		var sizes []int64
		if !k.perChannel(filter) {
			b, err := product(depth, 4, 2)
			if err != nil {
				return nil, err
			}
			sizes = append(sizes, b)
		}
		return append(sizes, positive(cmsisnn.Conv1x1S8Fast(path, cmsisnn.Dims{C: accum}))...), nil
	}
	size := cmsisnn.FullyConnectedS8(path, cmsisnn.Dims{N: accum, H: 1, W: 1, C: depth})
	if size > 0 && filter.Constant {
		bias, err := k.tensor(true, 2, true)
		if err != nil {
			return nil, err
		}
		if bias == nil || bias.Constant {
			return nil, nil // the kernel sums go to persistent memory
		}
	}
	return positive(size), nil
}

// cmsisBatchMatMul follows batch_matmul.cc (Prepare): int8 operands ask
// for arm_fully_connected_s8_get_buffer_size of the output's shape (an
// int32 per output column on the MVE path), when positive.
func (k *kernelOp) cmsisBatchMatMul(path cmsisnn.Path) ([]int64, error) {
	lhs, rhs, out, err := k.convInputs() // inputs 0 and 1, output 0
	if err != nil {
		return nil, err
	}
	if lhs.Type != rhs.Type || lhs.Type != out.Type {
		return nil, fmt.Errorf("operand types %s, %s and output type %s differ", lhs.Type, rhs.Type, out.Type)
	}
	lr, rr := len(lhs.Shape), len(rhs.Shape)
	if lr < 2 || lr > 4 || rr < 2 || rr > 4 {
		return nil, fmt.Errorf("operand shapes %v and %v: the kernel wants 2 to 4 dimensions", lhs.Shape, rhs.Shape)
	}
	if lhs.Type != "INT8" {
		return nil, nil
	}
	adjY := false
	if tab, ok := k.options(schema.BuiltinOptionsBatchMatMulOptions); ok {
		var o schema.BatchMatMulOptions
		o.Init(tab.Bytes, tab.Pos)
		adjY = o.AdjY()
	}
	// The output's last dimension (ReshapeOutputTensor): the rhs's
	// columns, its rows when adj_y.
	cols := int64(rhs.Shape[rr-1])
	if adjY {
		cols = int64(rhs.Shape[rr-2])
	}
	return positive(cmsisnn.FullyConnectedS8(path, cmsisnn.Dims{C: cols})), nil
}

// cmsisAvgPool follows pooling.cc (AveragePrepare): an int8 or int16
// input asks for arm_avgpool_s8/s16_get_buffer_size (an int32 per channel
// on the DSP path), when positive.
func (k *kernelOp) cmsisAvgPool(path cmsisnn.Path) ([]int64, error) {
	in, err := k.in(0)
	if err != nil {
		return nil, err
	}
	out, err := k.out(0)
	if err != nil {
		return nil, err
	}
	if in.Type != "INT8" && in.Type != "INT16" {
		return nil, nil
	}
	id, err := nhwc(in)
	if err != nil {
		return nil, err
	}
	od, err := nhwc(out)
	if err != nil {
		return nil, err
	}
	if id.C != od.C {
		return nil, fmt.Errorf("input depth %d differs from output depth %d", id.C, od.C)
	}
	return positive(cmsisnn.AvgPool(path, od.W, id.C)), nil
}

// cmsisTransposeConv follows transpose_conv.cc (Prepare, then
// CalculateOpData). An int8 input asks for two buffers, even when a size
// is 0: arm_transpose_conv_s8_get_buffer_size and
// arm_transpose_conv_s8_get_reverse_conv_buffer_size. An int16 input asks
// what the reference kernel asks (an int64 per output element, then one
// per bias element when the bias is int16).
func (k *kernelOp) cmsisTransposeConv(path cmsisnn.Path) ([]int64, error) {
	filter, err := k.in(1)
	if err != nil {
		return nil, err
	}
	in, err := k.in(2)
	if err != nil {
		return nil, err
	}
	out, err := k.out(0)
	if err != nil {
		return nil, err
	}
	if err := convTypes(in, filter, out, false); err != nil {
		return nil, err
	}
	if in.Type != "INT8" {
		return k.transposeConv()
	}
	id, err := nhwc(in)
	if err != nil {
		return nil, err
	}
	fd, err := nhwc(filter)
	if err != nil {
		return nil, err
	}
	od, err := nhwc(out)
	if err != nil {
		return nil, err
	}
	if id.C != fd.C || od.C != fd.N {
		return nil, fmt.Errorf("input %v, filter %v and output %v disagree", in.Shape, filter.Shape, out.Shape)
	}
	tab, ok := k.options(schema.BuiltinOptionsTransposeConvOptions)
	if !ok {
		return nil, errors.New("it has no TransposeConv options")
	}
	var o schema.TransposeConvOptions
	o.Init(tab.Bytes, tab.Pos)
	p := cmsisnn.Conv{StrideW: int64(o.StrideW()), StrideH: int64(o.StrideH())}
	// filter_dims: n = output depth, h, w, c = input depth (the file's
	// OHWI order already).
	return []int64{cmsisnn.TransposeConvS8(path, p, id, fd, od), cmsisnn.TransposeConvReverseS8(p, id, fd)}, nil
}

// cmsisLSTM follows unidirectional_sequence_lstm.cc (Prepare): the
// reference kernel's buffers of batch × state cells, three of them
// instead of four when CMSIS-NN runs the LSTM (int8 or int16 activations
// with an int16 cell state).
func (k *kernelOp) cmsisLSTM() ([]int64, error) {
	sizes, err := k.lstm()
	if err != nil {
		return nil, err
	}
	in, _ := k.in(0)
	cell, _ := k.in(19)
	if (in.Type == "INT8" || in.Type == "INT16") && cell.Type == "INT16" {
		return sizes[:3], nil
	}
	return sizes, nil
}
