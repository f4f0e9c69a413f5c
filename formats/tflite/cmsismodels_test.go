package tflite

import (
	"github.com/optalloc/optalloc/formats/tflite/internal/schema"
)

// Quantized tensors for the CMSIS-NN kernel models: scale 1, zero point 0,
// per channel along dim when channels > 1.
func quant(channels int, dim int32) *schema.QuantizationParametersT {
	q := &schema.QuantizationParametersT{QuantizedDimension: dim}
	for range max(channels, 1) {
		q.Scale = append(q.Scale, 1)
		q.ZeroPoint = append(q.ZeroPoint, 0)
	}
	return q
}

func qact(typ schema.TensorType, name string, shape ...int32) tspec {
	return tspec{name: name, shape: shape, typ: typ, quant: quant(1, 0)}
}

// qconst is a constant quantized tensor with channels scales along dim.
func qconst(typ schema.TensorType, name string, channels int, dim int32, shape ...int32) tspec {
	return tspec{name: name, shape: shape, typ: typ, constant: true, quant: quant(channels, dim)}
}

type convSpec struct {
	in, filter, out []int32
	pad             schema.Padding
	stride          [2]int32 // w, h
	dilation        [2]int32
	act             schema.TensorType // INT8 or INT16
	filterType      schema.TensorType // INT8 or INT4
	depthwise       bool
}

// convModel is one CONV_2D or DEPTHWISE_CONV_2D operator with constant
// per-channel weights and bias.
func convModel(c convSpec) []gspec {
	if c.filterType == 0 {
		c.filterType = schema.TensorTypeINT8
	}
	if c.dilation == [2]int32{} {
		c.dilation = [2]int32{1, 1}
	}
	biasType := schema.TensorTypeINT32
	if c.act == schema.TensorTypeINT16 {
		biasType = schema.TensorTypeINT64
	}
	oc := int(c.out[3])
	qdim := int32(0)
	code, opts := schema.BuiltinOperatorCONV_2D, &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsConv2DOptions,
		Value: &schema.Conv2DOptionsT{Padding: c.pad, StrideW: c.stride[0], StrideH: c.stride[1], DilationWFactor: c.dilation[0], DilationHFactor: c.dilation[1]}}
	if c.depthwise {
		qdim = 3
		code, opts = schema.BuiltinOperatorDEPTHWISE_CONV_2D, &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsDepthwiseConv2DOptions,
			Value: &schema.DepthwiseConv2DOptionsT{Padding: c.pad, StrideW: c.stride[0], StrideH: c.stride[1], DepthMultiplier: c.out[3] / c.in[3],
				DilationWFactor: c.dilation[0], DilationHFactor: c.dilation[1]}}
	}
	return []gspec{{tensors: []tspec{qact(c.act, "x", c.in...), qconst(c.filterType, "w", oc, qdim, c.filter...),
		qconst(biasType, "b", oc, 0, c.out[3]), qact(c.act, "y", c.out...)},
		ops: []ospec{{code: code, in: []int32{0, 1, 2}, out: []int32{3}, options: opts}},
		in:  []int32{0}, out: []int32{3}}}
}

// fcModel is one FULLY_CONNECTED operator; a variable filter is a model
// input.
func fcModel(act schema.TensorType, in, filter, out []int32, perChannel, constFilter bool) []gspec {
	channels := 1
	if perChannel {
		channels = int(filter[0])
	}
	w := qconst(schema.TensorTypeINT8, "w", channels, 0, filter...)
	inputs := []int32{0}
	if !constFilter {
		w.constant = false
		inputs = append(inputs, 1)
	}
	biasType := schema.TensorTypeINT32
	if act == schema.TensorTypeINT16 {
		biasType = schema.TensorTypeINT64
	}
	return []gspec{{tensors: []tspec{qact(act, "x", in...), w, qconst(biasType, "b", channels, 0, filter[0]), qact(act, "y", out...)},
		ops: []ospec{{code: schema.BuiltinOperatorFULLY_CONNECTED, in: []int32{0, 1, 2}, out: []int32{3},
			options: &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsFullyConnectedOptions,
				Value: &schema.FullyConnectedOptionsT{KeepNumDims: len(out) > 2}}}},
		in: inputs, out: []int32{3}}}
}

func avgPoolModel(act schema.TensorType) []gspec {
	return []gspec{{tensors: []tspec{qact(act, "x", 1, 8, 8, 5), qact(act, "y", 1, 4, 4, 5)},
		ops: []ospec{{code: schema.BuiltinOperatorAVERAGE_POOL_2D, in: []int32{0}, out: []int32{1},
			options: &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsPool2DOptions,
				Value: &schema.Pool2DOptionsT{Padding: schema.PaddingVALID, StrideW: 2, StrideH: 2, FilterWidth: 2, FilterHeight: 2}}}},
		in: []int32{0}, out: []int32{1}}}
}

// transposeConvModel: input 1×4×4×ic, filter oc×3×3×ic, stride 2, SAME.
func transposeConvModel(act schema.TensorType, ic, oc int32) []gspec {
	shape := tspec{name: "shape", shape: []int32{4}, typ: schema.TensorTypeINT32, constant: true}
	biasType := schema.TensorTypeINT32
	if act == schema.TensorTypeINT16 {
		biasType = schema.TensorTypeINT64 // the CMSIS-NN kernel reads the bias of an int16 input
	}
	return []gspec{{tensors: []tspec{shape, qconst(schema.TensorTypeINT8, "w", int(oc), 0, oc, 3, 3, ic), qact(act, "x", 1, 4, 4, ic),
		qconst(biasType, "b", int(oc), 0, oc), qact(act, "y", 1, 8, 8, oc)},
		ops: []ospec{{code: schema.BuiltinOperatorTRANSPOSE_CONV, in: []int32{0, 1, 2, 3}, out: []int32{4},
			options: &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsTransposeConvOptions,
				Value: &schema.TransposeConvOptionsT{Padding: schema.PaddingSAME, StrideW: 2, StrideH: 2}}}},
		in: []int32{2}, out: []int32{4}}}
}

// cmsisModels are one-operator models that take each branch of the
// CMSIS-NN kernels' scratch requests (cmsisnn.go) on the plain C, DSP and
// MVE paths.
func cmsisModels() map[string][]gspec {
	i8, i16, i4 := schema.TensorTypeINT8, schema.TensorTypeINT16, schema.TensorTypeINT4
	same, valid := schema.PaddingSAME, schema.PaddingVALID
	s1 := [2]int32{1, 1}
	return map[string][]gspec{
		"conv_s8_3x3":               convModel(convSpec{in: []int32{1, 8, 8, 4}, filter: []int32{6, 3, 3, 4}, out: []int32{1, 8, 8, 6}, pad: same, stride: s1, act: i8}),
		"conv_s8_1x1":               convModel(convSpec{in: []int32{1, 4, 4, 8}, filter: []int32{6, 1, 1, 8}, out: []int32{1, 4, 4, 6}, pad: valid, stride: s1, act: i8}),
		"conv_s8_1x1_stride":        convModel(convSpec{in: []int32{1, 5, 5, 8}, filter: []int32{6, 1, 1, 8}, out: []int32{1, 3, 3, 6}, pad: valid, stride: [2]int32{2, 2}, act: i8}),
		"conv_s8_1xn":               convModel(convSpec{in: []int32{1, 1, 16, 4}, filter: []int32{4, 1, 3, 4}, out: []int32{1, 1, 16, 4}, pad: same, stride: s1, act: i8}),
		"conv_s8_1xn_asym":          convModel(convSpec{in: []int32{1, 1, 15, 4}, filter: []int32{4, 1, 4, 4}, out: []int32{1, 1, 8, 4}, pad: same, stride: [2]int32{2, 1}, act: i8}),
		"conv_s8_dilated":           convModel(convSpec{in: []int32{1, 9, 9, 3}, filter: []int32{2, 3, 3, 3}, out: []int32{1, 5, 5, 2}, pad: valid, stride: s1, dilation: [2]int32{2, 2}, act: i8}),
		"conv_s8_int4":              convModel(convSpec{in: []int32{1, 6, 6, 4}, filter: []int32{4, 3, 3, 4}, out: []int32{1, 6, 6, 4}, pad: same, stride: s1, act: i8, filterType: i4}),
		"conv_s16":                  convModel(convSpec{in: []int32{1, 6, 6, 3}, filter: []int32{4, 3, 3, 3}, out: []int32{1, 6, 6, 4}, pad: same, stride: s1, act: i16}),
		"dw_s8_3x3":                 convModel(convSpec{in: []int32{1, 8, 8, 4}, filter: []int32{1, 3, 3, 4}, out: []int32{1, 8, 8, 4}, pad: same, stride: s1, act: i8, depthwise: true}),
		"dw_s8_5x5":                 convModel(convSpec{in: []int32{1, 8, 8, 4}, filter: []int32{1, 5, 5, 4}, out: []int32{1, 8, 8, 4}, pad: same, stride: s1, act: i8, depthwise: true}),
		"dw_s8_mult2":               convModel(convSpec{in: []int32{1, 8, 8, 2}, filter: []int32{1, 3, 3, 4}, out: []int32{1, 8, 8, 4}, pad: same, stride: s1, act: i8, depthwise: true}),
		"dw_s8_one_channel":         convModel(convSpec{in: []int32{1, 8, 8, 1}, filter: []int32{1, 3, 3, 8}, out: []int32{1, 4, 4, 8}, pad: same, stride: [2]int32{2, 2}, act: i8, depthwise: true}),
		"dw_s8_dilated":             convModel(convSpec{in: []int32{1, 9, 9, 4}, filter: []int32{1, 3, 3, 4}, out: []int32{1, 5, 5, 4}, pad: valid, stride: s1, dilation: [2]int32{2, 2}, act: i8, depthwise: true}),
		"dw_s8_int4":                convModel(convSpec{in: []int32{1, 8, 8, 4}, filter: []int32{1, 5, 5, 4}, out: []int32{1, 8, 8, 4}, pad: same, stride: s1, act: i8, filterType: i4, depthwise: true}),
		"dw_s16":                    convModel(convSpec{in: []int32{1, 8, 8, 4}, filter: []int32{1, 5, 5, 4}, out: []int32{1, 8, 8, 4}, pad: same, stride: s1, act: i16, depthwise: true}),
		"fc_s8_const":               fcModel(i8, []int32{1, 16}, []int32{8, 16}, []int32{1, 8}, false, true),
		"fc_s8_variable":            fcModel(i8, []int32{1, 16}, []int32{8, 16}, []int32{1, 8}, false, false),
		"fc_s8_3d":                  fcModel(i8, []int32{1, 1, 16}, []int32{8, 16}, []int32{1, 1, 8}, false, true),
		"fc_s8_3d_channel":          fcModel(i8, []int32{1, 2, 16}, []int32{8, 16}, []int32{1, 2, 8}, true, true),
		"fc_s8_3d_odd":              fcModel(i8, []int32{1, 2, 6}, []int32{8, 6}, []int32{1, 2, 8}, false, true),
		"fc_s16":                    fcModel(i16, []int32{1, 16}, []int32{8, 16}, []int32{1, 8}, false, true),
		"avgpool_s8":                avgPoolModel(i8),
		"avgpool_s16":               avgPoolModel(i16),
		"transpose_conv_s8":         transposeConvModel(i8, 4, 3),
		"transpose_conv_s8_reverse": transposeConvModel(i8, 20, 3),
		"transpose_conv_s16":        transposeConvModel(i16, 4, 3),
		"batch_matmul_s8": {{tensors: []tspec{qact(i8, "a", 1, 4, 6), qact(i8, "b", 1, 6, 5), qact(i8, "y", 1, 4, 5)},
			ops: []ospec{{code: schema.BuiltinOperatorBATCH_MATMUL, in: []int32{0, 1}, out: []int32{2},
				options: &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsBatchMatMulOptions, Value: &schema.BatchMatMulOptionsT{}}}},
			in: []int32{0, 1}, out: []int32{2}}},
	}
}
