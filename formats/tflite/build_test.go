package tflite

import (
	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/optalloc/optalloc/formats/tflite/internal/schema"
)

// Test models are built with the generated object API.

type tspec struct {
	name     string
	shape    []int32
	typ      schema.TensorType
	constant bool
	variable bool
	quant    *schema.QuantizationParametersT
}

type ospec struct {
	code    schema.BuiltinOperator
	in, out []int32
	callees []int32 // IF: then, else; WHILE: cond, body; CALL_ONCE: init
	options *schema.BuiltinOptionsT
	custom  string // a CUSTOM operator's code
	flex    []byte // its custom options
}

type gspec struct {
	tensors []tspec
	ops     []ospec
	in, out []int32
}

// buildModel packs subgraphs into a .tflite flatbuffer; constants get a
// buffer of their byte size.
func buildModel(subgraphs ...gspec) []byte {
	m := &schema.ModelT{Version: 3, Buffers: []*schema.BufferT{{}}}
	type opcode struct {
		code   schema.BuiltinOperator
		custom string
	}
	codes := map[opcode]uint32{}
	for _, g := range subgraphs {
		sg := &schema.SubGraphT{Inputs: g.in, Outputs: g.out}
		for _, t := range g.tensors {
			tt := &schema.TensorT{Name: t.name, Shape: t.shape, Type: t.typ, IsVariable: t.variable, Quantization: t.quant}
			if t.constant {
				n := int64(1)
				for _, d := range t.shape {
					n *= int64(d)
				}
				bytes := n * typeWidth(t.typ)
				if t.typ == schema.TensorTypeINT4 {
					bytes = (n + 1) / 2 // packed, two to a byte
				}
				m.Buffers = append(m.Buffers, &schema.BufferT{Data: make([]byte, bytes)})
				tt.Buffer = uint32(len(m.Buffers) - 1)
			}
			sg.Tensors = append(sg.Tensors, tt)
		}
		for _, o := range g.ops {
			idx, ok := codes[opcode{o.code, o.custom}]
			if !ok {
				idx = uint32(len(m.OperatorCodes))
				codes[opcode{o.code, o.custom}] = idx
				dep := int8(min(int(o.code), 127))
				m.OperatorCodes = append(m.OperatorCodes, &schema.OperatorCodeT{BuiltinCode: o.code, DeprecatedBuiltinCode: dep, Version: 1, CustomCode: o.custom})
			}
			op := &schema.OperatorT{OpcodeIndex: idx, Inputs: o.in, Outputs: o.out, BuiltinOptions: o.options, CustomOptions: o.flex}
			switch o.code {
			case schema.BuiltinOperatorIF:
				op.BuiltinOptions = &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsIfOptions,
					Value: &schema.IfOptionsT{ThenSubgraphIndex: o.callees[0], ElseSubgraphIndex: o.callees[1]}}
			case schema.BuiltinOperatorWHILE:
				op.BuiltinOptions = &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsWhileOptions,
					Value: &schema.WhileOptionsT{CondSubgraphIndex: o.callees[0], BodySubgraphIndex: o.callees[1]}}
			case schema.BuiltinOperatorCALL_ONCE:
				op.BuiltinOptions = &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsCallOnceOptions,
					Value: &schema.CallOnceOptionsT{InitSubgraphIndex: o.callees[0]}}
			}
			sg.Operators = append(sg.Operators, op)
		}
		m.Subgraphs = append(m.Subgraphs, sg)
	}
	b := flatbuffers.NewBuilder(1024)
	b.FinishWithFileIdentifier(m.Pack(b), []byte(Identifier))
	return b.FinishedBytes()
}

func act(name string, shape ...int32) tspec {
	return tspec{name: name, shape: shape, typ: schema.TensorTypeINT8}
}

func weight(name string, shape ...int32) tspec {
	return tspec{name: name, shape: shape, typ: schema.TensorTypeINT8, constant: true}
}
