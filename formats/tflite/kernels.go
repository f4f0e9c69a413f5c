package tflite

import (
	"errors"
	"fmt"

	"github.com/optalloc/optalloc/formats/tflite/internal/schema"
)

// The scratch requests of TFLite Micro's reference kernels, one function
// per kernel, each following the Prepare of the file it names (paths
// under tensorflow/lite/micro/kernels/ unless said otherwise; sources in
// ../shared/tflm/tflm-src.tar.xz). Sizes are bytes before the planner's
// rounding to Alignment.

// addN follows add_n.cc (CalculateOpData): a float32 or int8 output asks
// for one pointer per input.
func (k *kernelOp) addN(ptr int64) ([]int64, error) {
	out, err := k.out(0)
	if err != nil {
		return nil, err
	}
	switch out.Type {
	case "FLOAT32", "INT8":
		return []int64{ptr * int64(k.op.InputsLength())}, nil
	}
	return nil, nil
}

// int4Filter follows conv_common.cc (ConvPrepare),
// depthwise_conv_common.cc (DepthwiseConvPrepare) and fully_connected.cc
// (FullyConnectedPrepare): an INT4 filter (input 1) is unpacked into a
// scratch buffer of one byte per element.
func (k *kernelOp) int4Filter() ([]int64, error) {
	f, err := k.in(1)
	if err != nil {
		return nil, err
	}
	if f.Type != "INT4" {
		return nil, nil
	}
	b, err := product(elements(f))
	if err != nil {
		return nil, err
	}
	return []int64{b}, nil
}

// mirrorPad follows mirror_pad.cc (MirrorPadPrepare): two int arrays of
// the input's rank.
func (k *kernelOp) mirrorPad() ([]int64, error) {
	in, err := k.in(0)
	if err != nil {
		return nil, err
	}
	n := 4 * int64(len(in.Shape))
	return []int64{n, n}, nil
}

// reduce follows reduce_common.cc: PrepareMeanOrSumHelper (MEAN, SUM) asks
// first for an int32 accumulator per output element when the input is
// int8 or int16; PrepareMinMaxHelper (REDUCE_MAX, REDUCE_MIN),
// PrepareAllHelper (REDUCE_ALL) and the mean/sum path then ask for an int
// per input dimension and an int per axis element.
func (k *kernelOp) reduce() ([]int64, error) {
	in, err := k.in(0)
	if err != nil {
		return nil, err
	}
	axis, err := k.in(1)
	if err != nil {
		return nil, err
	}
	var sizes []int64
	if c := k.code(); (c == schema.BuiltinOperatorMEAN || c == schema.BuiltinOperatorSUM) && (in.Type == "INT8" || in.Type == "INT16") {
		out, err := k.out(0)
		if err != nil {
			return nil, err
		}
		b, err := product(4, elements(out))
		if err != nil {
			return nil, err
		}
		sizes = append(sizes, b)
	}
	b, err := product(4, elements(axis))
	if err != nil {
		return nil, err
	}
	return append(sizes, 4*int64(len(in.Shape)), b), nil
}

// svdf follows svdf_common.cc (PrepareSvdf): an int8 input asks for
// batch × filters and batch × units int32s, a float input for batch ×
// filters floats; units = filters / rank.
func (k *kernelOp) svdf() ([]int64, error) {
	in, err := k.in(0)
	if err != nil {
		return nil, err
	}
	wf, err := k.in(1)
	if err != nil {
		return nil, err
	}
	batch, err := dim(in, 0)
	if err != nil {
		return nil, err
	}
	filters, err := dim(wf, 0)
	if err != nil {
		return nil, err
	}
	tab, ok := k.options(schema.BuiltinOptionsSVDFOptions)
	if !ok {
		return nil, errors.New("it has no SVDF options")
	}
	var o schema.SVDFOptions
	o.Init(tab.Bytes, tab.Pos)
	rank := int64(o.Rank())
	if rank <= 0 || filters%rank != 0 {
		return nil, fmt.Errorf("%d filters are not a multiple of rank %d", filters, rank)
	}
	a, err := product(batch, filters, 4)
	if err != nil {
		return nil, err
	}
	switch in.Type {
	case "INT8":
		b, err := product(batch, filters/rank, 4)
		if err != nil {
			return nil, err
		}
		return []int64{a, b}, nil
	case "FLOAT32":
		return []int64{a}, nil
	}
	return nil, fmt.Errorf("input type %s is neither FLOAT32 nor INT8", in.Type)
}

// transposeConv follows transpose_conv.cc (TransposeConvPrepare, then
// CalculateOpData): an int8 input (input 2) asks for an int32 per output
// element, an int16 input for an int64 per output element and, when the
// bias (input 3) is int16, an int64 per bias element.
func (k *kernelOp) transposeConv() ([]int64, error) {
	in, err := k.in(2)
	if err != nil {
		return nil, err
	}
	out, err := k.out(0)
	if err != nil {
		return nil, err
	}
	switch in.Type {
	case "INT8":
		b, err := product(elements(out), 4)
		return []int64{b}, err
	case "INT16":
		b, err := product(elements(out), 8)
		if err != nil {
			return nil, err
		}
		sizes := []int64{b}
		bias, err := k.tensor(true, 3, true)
		if err != nil {
			return nil, err
		}
		if bias != nil && bias.Type == "INT16" {
			c, err := product(elements(bias), 8)
			if err != nil {
				return nil, err
			}
			sizes = append(sizes, c)
		}
		return sizes, nil
	}
	return nil, nil
}

// lstm follows unidirectional_sequence_lstm.cc
// (UnidirectionalSequenceLstmPrepare) and lstm_eval_common.cc
// (CreateLstmSizeInfo): four buffers of batch × state cells of the cell
// state's type (input 19); batch is the input's dimension 1 when time is
// major, else 0; state is the output state's (input 18) dimension 1.
func (k *kernelOp) lstm() ([]int64, error) {
	in, err := k.in(0)
	if err != nil {
		return nil, err
	}
	hidden, err := k.in(18)
	if err != nil {
		return nil, err
	}
	cell, err := k.in(19)
	if err != nil {
		return nil, err
	}
	timeMajor := false
	if tab, ok := k.options(schema.BuiltinOptionsUnidirectionalSequenceLSTMOptions); ok {
		var o schema.UnidirectionalSequenceLSTMOptions
		o.Init(tab.Bytes, tab.Pos)
		timeMajor = o.TimeMajor()
	}
	bd := 0
	if timeMajor {
		bd = 1
	}
	batch, err := dim(in, bd)
	if err != nil {
		return nil, err
	}
	state, err := dim(hidden, 1)
	if err != nil {
		return nil, err
	}
	if cell.Type != "FLOAT32" && cell.Type != "INT16" {
		return nil, fmt.Errorf("cell state type %s is neither FLOAT32 nor INT16", cell.Type)
	}
	b, err := product(batch, state, width(cell))
	if err != nil {
		return nil, err
	}
	return []int64{b, b, b, b}, nil
}

// rfft follows signal/micro/kernels/rfft.cc (RfftInit, RfftPrepare):
// fft_length elements of the input's type, fft_length being element 1 of
// the custom options (FlexbufferWrapper::ElementAsInt32, keys "T" and
// "fft_length" in sorted order).
func (k *kernelOp) rfft() ([]int64, error) {
	in, err := k.in(0)
	if err != nil {
		return nil, err
	}
	m, err := parseFlexMap(k.op.CustomOptionsBytes())
	if err != nil {
		return nil, err
	}
	n, err := m.RawInt(1)
	if err != nil {
		return nil, err
	}
	n = int64(int32(n))
	w := width(in)
	if in.Type != "INT16" && in.Type != "INT32" && in.Type != "FLOAT32" {
		return nil, fmt.Errorf("input type %s is not INT16, INT32 or FLOAT32", in.Type)
	}
	b, err := product(n, w)
	return []int64{b}, err
}

// detectionPostProcess follows detection_postprocess.cc
// (DetectionPostProcessInit, DetectionPostProcessPrepare): eleven buffers
// sized by the boxes (input 0's dimension 1), the class predictions
// (input 1's dimensions 1 and 2), and the options max_detections and
// num_classes.
func (k *kernelOp) detectionPostProcess() ([]int64, error) {
	boxes, err := k.in(0)
	if err != nil {
		return nil, err
	}
	scores, err := k.in(1)
	if err != nil {
		return nil, err
	}
	m, err := parseFlexMap(k.op.CustomOptionsBytes())
	if err != nil {
		return nil, err
	}
	maxDet, err := m.Int("max_detections")
	if err != nil {
		return nil, err
	}
	classes, err := m.Int("num_classes")
	if err != nil {
		return nil, err
	}
	maxDet, classes = int64(int32(maxDet)), int64(int32(classes))
	nb, err := dim(boxes, 1)
	if err != nil {
		return nil, err
	}
	s1, err := dim(scores, 1)
	if err != nil {
		return nil, err
	}
	s2, err := dim(scores, 2)
	if err != nil {
		return nil, err
	}
	const kNumCoordBox, f = 4, 4 // sizeof(float) = sizeof(int) = 4
	rows := [][]int64{
		{nb},                          // active_candidate_idx
		{nb, kNumCoordBox, f},         // decoded_boxes_idx
		{s1, s2, f},                   // scores_idx
		{nb, f},                       // score_buffer_idx
		{nb, f},                       // keep_scores_idx
		{maxDet, nb, f},               // scores_after_regular_non_max_suppression_idx
		{maxDet, nb, f},               // sorted_values_idx
		{nb, f},                       // keep_indices_idx
		{maxDet, nb, f},               // sorted_indices_idx
		{max(classes, maxDet), nb, f}, // buffer_idx
		{min(nb, maxDet), nb, f},      // selected_idx
	}
	sizes := make([]int64, len(rows))
	for j, r := range rows {
		if sizes[j], err = product(r...); err != nil {
			return nil, err
		}
	}
	return sizes, nil
}

// noScratchCustoms are the custom operators TFLite Micro's op resolver
// registers (micro_mutable_op_resolver.h, AddCustom) whose kernels request
// no scratch.
var noScratchCustoms = map[string]bool{
	"CIRCULAR_BUFFER": true, "SignalDelay": true, "SignalEnergy": true, "SignalFftAutoScale": true,
	"SignalFilterBank": true, "SignalFilterBankLog": true, "SignalFilterBankSquareRoot": true,
	"SignalFilterBankSpectralSubtraction": true, "SignalFramer": true, "SignalIrfft": true,
	"SignalOverlapAdd": true, "SignalPCAN": true, "SignalStacker": true, "SignalWindow": true, "TFLM_DECODE": true,
}

// EthosUOperator is the custom code of Arm Vela's NPU operator.
const EthosUOperator = "ethos-u"

// customScratch returns the sizes a custom operator's kernel requests;
// known is false for a custom operator optalloc has no model of. ptr is
// the target's pointer width (sizeof(size_t) there).
func (k *kernelOp) customScratch(ptr int64) (sizes []int64, known bool, err error) {
	switch name := k.custom(); {
	case name == "SignalRfft":
		sizes, err = k.rfft()
	case name == "TFLite_Detection_PostProcess":
		sizes, err = k.detectionPostProcess()
	case name == EthosUOperator:
		sizes, err = k.ethosU(ptr)
	case noScratchCustoms[name]:
	default:
		return nil, false, nil
	}
	return sizes, true, err
}

// ethosU follows kernels/ethos_u/ethos_u.cc (Prepare; TFLite Micro built
// with CO_PROCESSOR=ethos_u): two arrays of one entry per operand (inputs
// and outputs) for the NPU driver, the base addresses (uint64) and their
// sizes (size_t).
func (k *kernelOp) ethosU(ptr int64) ([]int64, error) {
	n := int64(k.op.InputsLength() + k.op.OutputsLength())
	if k.op.InputsLength() == 0 {
		return nil, errors.New("it has no inputs")
	}
	return []int64{n * 8, n * ptr}, nil
}
