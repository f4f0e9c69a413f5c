package tflite

import (
	"fmt"
	"strings"

	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/optalloc/optalloc/formats/graph"
	"github.com/optalloc/optalloc/formats/tflite/internal/schema"
)

// GraphOptions tune FromGraph.
type GraphOptions struct {
	// Int8 stores every tensor as INT8, as a quantised TFLite Micro
	// deployment does (activations take a quarter of float32's bytes).
	Int8 bool
	// StubWeights gives every weight a one-byte buffer instead of its full
	// size: the file is then no runnable model, but it plans exactly like
	// one (constants are never arena buffers) and stays small.
	StubWeights bool
}

// builtins maps .graph.json op types to TFLite builtin operators; other
// types become CUSTOM operators named by their type.
var builtins = map[string]schema.BuiltinOperator{
	"conv": schema.BuiltinOperatorCONV_2D, "conv+relu": schema.BuiltinOperatorCONV_2D, "conv+relu6": schema.BuiltinOperatorCONV_2D,
	"convtranspose": schema.BuiltinOperatorTRANSPOSE_CONV, "add": schema.BuiltinOperatorADD, "mul": schema.BuiltinOperatorMUL,
	"relu": schema.BuiltinOperatorRELU, "relu6": schema.BuiltinOperatorRELU6, "maxpool": schema.BuiltinOperatorMAX_POOL_2D,
	"averagepool": schema.BuiltinOperatorAVERAGE_POOL_2D, "globalaveragepool": schema.BuiltinOperatorMEAN,
	"flatten": schema.BuiltinOperatorRESHAPE, "reshape": schema.BuiltinOperatorRESHAPE,
	"gemm": schema.BuiltinOperatorFULLY_CONNECTED, "matmul+bias": schema.BuiltinOperatorFULLY_CONNECTED,
	"concat": schema.BuiltinOperatorCONCATENATION, "split": schema.BuiltinOperatorSPLIT,
	"transpose": schema.BuiltinOperatorTRANSPOSE, "batchmatmul": schema.BuiltinOperatorBATCH_MATMUL,
	"batchmatmul+scale": schema.BuiltinOperatorBATCH_MATMUL, "softmax": schema.BuiltinOperatorSOFTMAX,
	"gelu": schema.BuiltinOperatorGELU, "slice": schema.BuiltinOperatorSLICE,
}

var tensorTypes = map[string]schema.TensorType{
	"bool": schema.TensorTypeBOOL, "int8": schema.TensorTypeINT8, "uint8": schema.TensorTypeUINT8,
	"int16": schema.TensorTypeINT16, "uint16": schema.TensorTypeUINT16, "float16": schema.TensorTypeFLOAT16,
	"bfloat16": schema.TensorTypeBFLOAT16, "int32": schema.TensorTypeINT32, "uint32": schema.TensorTypeUINT32,
	"float32": schema.TensorTypeFLOAT32, "int64": schema.TensorTypeINT64, "uint64": schema.TensorTypeUINT64,
	"float64": schema.TensorTypeFLOAT64,
}

// FromGraph writes a single-model .graph.json file as a TFLite model: one
// tensor per graph tensor (weights as constants, the graph's inputs and
// outputs as the subgraph's), one operator per op in the same order.
// Scratch buffers are left out (TFLite Micro's kernels ask for theirs at
// run time) and so are the graph's in-place rules (TFLite Micro plans
// every tensor apart). It is how the repository builds TFLite models of
// the example architectures to compare planners on.
func FromGraph(f *graph.File, opt GraphOptions) ([]byte, error) {
	if len(f.Models) > 1 {
		return nil, fmt.Errorf("%d models: a .tflite file holds one", len(f.Models))
	}
	tensors, ops := f.Tensors, f.Ops
	if len(f.Models) == 1 {
		tensors, ops = f.Models[0].Tensors, f.Models[0].Ops
	}
	m := &schema.ModelT{Version: 3, Description: "optalloc FromGraph", Buffers: []*schema.BufferT{{}}}
	sg := &schema.SubGraphT{Name: "main"}
	index := map[string]int32{}
	for _, t := range tensors {
		typ, ok := tensorTypes[strings.ToLower(t.DType)]
		if opt.Int8 {
			typ, ok = schema.TensorTypeINT8, true
		}
		if !ok || len(t.Shape) == 0 {
			return nil, fmt.Errorf("tensor %q: want a shape and a dtype TFLite knows (got %q)", t.Name, t.DType)
		}
		tt := &schema.TensorT{Name: t.Name, Type: typ, Shape: make([]int32, len(t.Shape))}
		elems := int64(1)
		for i, d := range t.Shape {
			if d < 0 || d > 1<<31-1 {
				return nil, fmt.Errorf("tensor %q: dimension %d does not fit TFLite's int32", t.Name, d)
			}
			tt.Shape[i] = int32(d)
			elems *= d
		}
		switch t.Kind {
		case "weight":
			size := elems * typeWidth(typ)
			if opt.StubWeights {
				size = 1
			}
			m.Buffers = append(m.Buffers, &schema.BufferT{Data: make([]byte, size)})
			tt.Buffer = uint32(len(m.Buffers) - 1)
		case "input":
			sg.Inputs = append(sg.Inputs, int32(len(sg.Tensors)))
		case "output":
			sg.Outputs = append(sg.Outputs, int32(len(sg.Tensors)))
		}
		index[t.Name] = int32(len(sg.Tensors))
		sg.Tensors = append(sg.Tensors, tt)
	}
	codes := map[string]uint32{}
	for _, o := range ops {
		key := strings.ToLower(o.Type)
		code, ok := builtins[key]
		if !ok {
			code = schema.BuiltinOperatorCUSTOM
		}
		idx, seen := codes[key]
		if !seen {
			oc := &schema.OperatorCodeT{BuiltinCode: code, DeprecatedBuiltinCode: int8(min(int(code), 127)), Version: 1}
			if !ok {
				oc.CustomCode = o.Type
			}
			idx = uint32(len(m.OperatorCodes))
			codes[key] = idx
			m.OperatorCodes = append(m.OperatorCodes, oc)
		}
		op := &schema.OperatorT{OpcodeIndex: idx}
		for _, names := range []struct {
			from []string
			to   *[]int32
		}{{o.Inputs, &op.Inputs}, {o.Outputs, &op.Outputs}} {
			for _, n := range names.from {
				k, ok := index[n]
				if !ok {
					return nil, fmt.Errorf("op %q: unknown tensor %q", o.Name, n)
				}
				*names.to = append(*names.to, k)
			}
		}
		sg.Operators = append(sg.Operators, op)
	}
	m.Subgraphs = []*schema.SubGraphT{sg}
	b := flatbuffers.NewBuilder(1 << 16)
	b.FinishWithFileIdentifier(m.Pack(b), []byte(Identifier))
	return b.FinishedBytes(), nil
}
