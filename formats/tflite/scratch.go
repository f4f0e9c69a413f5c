package tflite

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"runtime"
	"slices"

	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/optalloc/optalloc/formats/tflite/internal/schema"
	"github.com/optalloc/optalloc/model"
)

// ScratchRequest is one kernel's request for a scratch buffer in the arena,
// made in its Prepare (TFLite Micro's internal::ScratchBufferRequest, made
// by RequestScratchBufferInArena). The runtime places every request online
// with its greedy planner, around the offline-planned tensors: the offline
// plan has no slot for it.
type ScratchRequest struct {
	// Bytes is the size the kernel asked for (before rounding to Alignment).
	Bytes int64
	// Node is the operator's index in its subgraph (TFLite Micro's
	// node_idx) and Subgraph its subgraph; -1 for a request read from a
	// recorded buffer list.
	Node, Subgraph int
	// Op names the operator (SVDF, SignalRfft, ...).
	Op string
	// First and Last are the allocation scopes the buffer lives in
	// (inclusive, as Tensor.First/Last): from the operator's scope before
	// the subgraphs it calls to its scope after them.
	First, Last int
}

// MaxScratchPerOp is TFLite Micro's kMaxScratchBuffersPerOp
// (micro_allocator.cc): Prepare fails past it.
const MaxScratchPerOp = 12

// ReferenceKernels names the kernel set ReferenceScratch models: TFLite
// Micro's reference kernels, as the host runtime ../shared/tflm/tflm_run
// builds them (64-bit pointers).
const ReferenceKernels = "reference"

// ReferenceScratch lists the scratch requests TFLite Micro's reference
// kernels make in Prepare: Scratch for the host target with the given
// pointer width (ADD_N asks for one pointer per input: 8 on the 64-bit
// host, 4 on a 32-bit microcontroller).
func (m *Model) ReferenceScratch(pointerBytes int64) (reqs []ScratchRequest, skipped []string, err error) {
	t, _ := NewTarget(HostTarget, ReferenceKernels)
	t.ptr = pointerBytes
	reqs, skipped, _, err = m.Scratch(t)
	return reqs, skipped, err
}

// Scratch lists the scratch requests the target's kernels make in Prepare,
// in the order the runtime makes them (subgraph by subgraph, operator by
// operator: MicroInterpreterGraph::PrepareSubgraphs), each sized as its
// kernel computes it: CMSIS-NN's kernels (cmsisnn.go) where the target
// runs them, the reference kernels' (kernels.go) for every other
// operator. Operators whose kernels request no scratch add nothing. An
// operator whose tensors its kernel would refuse (TFLite Micro fails in
// Prepare) adds nothing either and gets a line in skipped: the model does
// not run with these kernels, so there is no request to model — it may be
// meant for another kernel library, whose recorded list ReadBufferList
// reads. unknown names what optalloc cannot know: custom operators
// without a kernel it models, and compressed tensors (their decompression
// scratch).
func (m *Model) Scratch(t Target) (reqs []ScratchRequest, skipped, unknown []string, err error) {
	t = t.orHost()
	// Options tables and custom options are read here for the first time:
	// a corrupted offset is a malformed file, as in Decode.
	defer func() {
		if r := recover(); r != nil {
			if re, ok := r.(runtime.Error); ok {
				reqs, skipped, unknown, err = nil, nil, nil, &model.InputError{File: m.Name, Msg: fmt.Sprintf(
					"truncated or corrupted flatbuffer: an operator's options point outside the %d-byte file (%v)", len(m.data), re)}
				return
			}
			panic(r)
		}
	}()
	var sg schema.SubGraph
	var op schema.Operator
	customs := map[string]int{}
	ethosOnHost := 0
	for s := range m.Subgraphs {
		m.root.Subgraphs(&sg, s)
		for i := range m.Subgraphs[s].Ops {
			sg.Operators(&op, i)
			k := &kernelOp{m: m, s: s, i: i, op: &op}
			sizes, known, err := k.scratchFor(t)
			if se := (*sizeError)(nil); errors.As(err, &se) {
				return nil, nil, nil, &model.InputError{File: m.Name, Msg: fmt.Sprintf("operator %d (%s) of subgraph %d: %v", i, k.name(), s, err)}
			}
			if err != nil {
				skipped = append(skipped, fmt.Sprintf("operator %d (%s) of subgraph %d: %v, so TFLite Micro's %s kernel would refuse it; no scratch counted for it", i, k.name(), s, err, t.Kernels()))
				continue
			}
			if !known {
				customs[k.name()]++
			}
			if t.name == HostTarget && k.code() == schema.BuiltinOperatorCUSTOM && k.custom() == EthosUOperator {
				ethosOnHost++
			}
			if len(sizes) > MaxScratchPerOp {
				return nil, nil, nil, &model.InputError{File: m.Name, Msg: fmt.Sprintf(
					"operator %d (%s) of subgraph %d requests %d scratch buffers, more than TFLite Micro's %d", i, k.name(), s, len(sizes), MaxScratchPerOp)}
			}
			sc := m.opScopes[s][i]
			for _, b := range sizes {
				reqs = append(reqs, ScratchRequest{Bytes: b, Node: i, Subgraph: s, Op: k.name(), First: sc[0], Last: sc[1]})
			}
		}
	}
	if n := ethosOnHost; n > 0 {
		unknown = append(unknown, fmt.Sprintf("custom operator %q (%d in the model) runs only on a Cortex-M with an Ethos-U NPU, not on the host: the two driver arrays its kernel requests there are not counted; name the device's CPU with --target (cortex-m55 for Corstone-300)", EthosUOperator, n))
	}
	for _, name := range slices.Sorted(maps.Keys(customs)) {
		unknown = append(unknown, fmt.Sprintf("custom operator %q (%d in the model): optalloc does not know the scratch its kernel requests", name, customs[name]))
	}
	if m.Compressed {
		unknown = append(unknown, "compressed tensors ("+CompressionMetadata+"): a TFLite Micro built with USE_TFLM_COMPRESSION adds decompression scratch that optalloc does not model")
	}
	return reqs, skipped, unknown, nil
}

// scratchFor returns the sizes the operator's kernel on target t
// requests; known is false for a custom operator optalloc has no model of.
func (k *kernelOp) scratchFor(t Target) (sizes []int64, known bool, err error) {
	if t.kernels == CMSISNNKernels {
		if sizes, ok, err := k.cmsisScratch(t.path); ok {
			return sizes, true, err
		}
	}
	if k.code() == schema.BuiltinOperatorCUSTOM {
		if t.name == HostTarget && k.custom() == EthosUOperator {
			return nil, true, nil // no host build runs it: Scratch warns
		}
		return k.customScratch(t.ptr)
	}
	sizes, err = k.scratch(t.ptr)
	return sizes, true, err
}

// kernelOp is one operator seen as a kernel's Prepare sees it.
type kernelOp struct {
	m    *Model
	s, i int
	op   *schema.Operator
}

func (k *kernelOp) code() schema.BuiltinOperator { return k.m.opcode(k.op) }

func (k *kernelOp) name() string {
	if c := k.code(); c != schema.BuiltinOperatorCUSTOM {
		if n, ok := schema.EnumNamesBuiltinOperator[c]; ok {
			return n
		}
		return fmt.Sprintf("builtin %d", c)
	}
	return k.custom()
}

// custom is a CUSTOM operator's custom code.
func (k *kernelOp) custom() string {
	idx := int(k.op.OpcodeIndex())
	if idx >= k.m.root.OperatorCodesLength() {
		return ""
	}
	var oc schema.OperatorCode
	k.m.root.OperatorCodes(&oc, idx)
	return string(oc.CustomCode())
}

// input returns the operator's n-th input tensor, nil when it is omitted
// (-1) and an error when it is missing or out of range.
func (k *kernelOp) tensor(inputs bool, n int, optional bool) (*Tensor, error) {
	what, count := "input", k.op.InputsLength()
	if !inputs {
		what, count = "output", k.op.OutputsLength()
	}
	if n >= count {
		if optional {
			return nil, nil
		}
		return nil, fmt.Errorf("it has %d %ss, the kernel reads %s %d", count, what, what, n)
	}
	var local int32
	if inputs {
		local = k.op.Inputs(n)
	} else {
		local = k.op.Outputs(n)
	}
	sub := k.m.Subgraphs[k.s]
	if local == -1 && optional {
		return nil, nil
	}
	if local < 0 || int(local) >= sub.Count {
		return nil, fmt.Errorf("%s %d is tensor %d of a subgraph of %d tensors", what, n, local, sub.Count)
	}
	return &k.m.Tensors[sub.First+int(local)], nil
}

func (k *kernelOp) in(n int) (*Tensor, error)  { return k.tensor(true, n, false) }
func (k *kernelOp) out(n int) (*Tensor, error) { return k.tensor(false, n, false) }

// dim returns dimension d of t, an error when t has fewer dimensions.
func dim(t *Tensor, d int) (int64, error) {
	if d >= len(t.Shape) {
		return 0, fmt.Errorf("tensor %q has shape %v, the kernel reads dimension %d", t.Name, t.Shape, d)
	}
	return int64(t.Shape[d]), nil
}

// elements is t's element count (RuntimeShape::FlatSize, NumElements),
// math.MaxInt64 when it overflows (the reader bounds a tensor's bytes, not
// the elements of a type without width: a STRING axis of 2^62 elements),
// so that product refuses it.
func elements(t *Tensor) int64 {
	n := int64(1)
	for _, d := range t.Shape {
		if d < 0 || d != 0 && n > math.MaxInt64/int64(d) {
			return math.MaxInt64
		}
		n *= int64(d)
	}
	return n
}

// width is TfLiteTypeGetSize of t's type (typeWidth); 0 when it has none.
func width(t *Tensor) int64 {
	if typ, ok := schema.EnumValuesTensorType[t.Type]; ok {
		return max(typeWidth(typ), 0)
	}
	return 0
}

// maxScratch is the largest scratch request kept (product's bound): the
// planner rounds sizes up to Alignment, which must not overflow.
const maxScratch = math.MaxInt64 / 16

// product multiplies sizes, failing (with a *sizeError) on overflow.
func product(vs ...int64) (int64, error) {
	p := int64(1)
	for _, v := range vs {
		if v < 0 {
			return 0, &sizeError{fmt.Sprintf("a negative size %d", v)}
		}
		if v != 0 && p > maxScratch/v {
			return 0, &sizeError{"its scratch size overflows 64 bits"}
		}
		p *= v
	}
	return p, nil
}

// sizeError is a scratch size no kernel could ask for: the model is
// malformed (ReferenceScratch refuses it), not meant for other kernels.
type sizeError struct{ msg string }

func (e *sizeError) Error() string { return e.msg }

// options returns the operator's builtin options table of type typ.
func (k *kernelOp) options(typ schema.BuiltinOptions) (flatbuffers.Table, bool) {
	var tab flatbuffers.Table
	if k.op.BuiltinOptionsType() != typ || !k.op.BuiltinOptions(&tab) {
		return tab, false
	}
	return tab, true
}

// scratch returns the sizes the operator's reference kernel requests, in
// order (see each case for the kernel file it follows).
func (k *kernelOp) scratch(ptr int64) ([]int64, error) {
	switch k.code() {
	case schema.BuiltinOperatorADD_N:
		return k.addN(ptr)
	case schema.BuiltinOperatorCONV_2D, schema.BuiltinOperatorDEPTHWISE_CONV_2D, schema.BuiltinOperatorFULLY_CONNECTED:
		return k.int4Filter()
	case schema.BuiltinOperatorMIRROR_PAD:
		return k.mirrorPad()
	case schema.BuiltinOperatorMEAN, schema.BuiltinOperatorSUM,
		schema.BuiltinOperatorREDUCE_MAX, schema.BuiltinOperatorREDUCE_MIN, schema.BuiltinOperatorREDUCE_ALL:
		return k.reduce()
	case schema.BuiltinOperatorSVDF:
		return k.svdf()
	case schema.BuiltinOperatorTRANSPOSE_CONV:
		return k.transposeConv()
	case schema.BuiltinOperatorUNIDIRECTIONAL_SEQUENCE_LSTM:
		return k.lstm()
	}
	return nil, nil
}
