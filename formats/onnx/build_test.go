package onnx

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	pb "github.com/optalloc/optalloc/formats/onnx/internal/onnxpb"
)

// Helpers that build ONNX models with the generated types.

// tinfo is a tensor value info; a dim is an int (dim_value), a string
// (dim_param) or nil (unnamed).
func tinfo(name string, elem int32, dims ...any) *pb.ValueInfoProto {
	shape := &pb.TensorShapeProto{}
	for _, d := range dims {
		dim := &pb.TensorShapeProto_Dimension{}
		switch x := d.(type) {
		case int:
			dim.Value = &pb.TensorShapeProto_Dimension_DimValue{DimValue: int64(x)}
		case string:
			dim.Value = &pb.TensorShapeProto_Dimension_DimParam{DimParam: x}
		}
		shape.Dim = append(shape.Dim, dim)
	}
	return &pb.ValueInfoProto{Name: proto.String(name), Type: &pb.TypeProto{Value: &pb.TypeProto_TensorType{
		TensorType: &pb.TypeProto_Tensor{ElemType: proto.Int32(elem), Shape: shape}}}}
}

// untyped is a value info without a shape.
func untyped(name string, elem int32) *pb.ValueInfoProto {
	return &pb.ValueInfoProto{Name: proto.String(name), Type: &pb.TypeProto{Value: &pb.TypeProto_TensorType{
		TensorType: &pb.TypeProto_Tensor{ElemType: proto.Int32(elem)}}}}
}

func op(typ string, ins, outs []string, attrs ...*pb.AttributeProto) *pb.NodeProto {
	return &pb.NodeProto{OpType: proto.String(typ), Name: proto.String(outs[0] + "_op"), Input: ins, Output: outs, Attribute: attrs}
}

func aint(name string, v int64) *pb.AttributeProto {
	return &pb.AttributeProto{Name: proto.String(name), Type: pb.AttributeProto_INT.Enum(), I: proto.Int64(v)}
}

func aints(name string, v ...int64) *pb.AttributeProto {
	return &pb.AttributeProto{Name: proto.String(name), Type: pb.AttributeProto_INTS.Enum(), Ints: v}
}

func agraph(name string, g *pb.GraphProto) *pb.AttributeProto {
	return &pb.AttributeProto{Name: proto.String(name), Type: pb.AttributeProto_GRAPH.Enum(), G: g}
}

// f32 is a float initializer of the given dims (zero raw data).
func f32(name string, dims ...int64) *pb.TensorProto {
	n := int64(1)
	for _, d := range dims {
		n *= d
	}
	return &pb.TensorProto{Name: proto.String(name), DataType: proto.Int32(TypeFloat), Dims: dims, RawData: make([]byte, 4*n)}
}

// i64 is an int64 initializer holding values (raw data).
func i64(name string, vals ...int64) *pb.TensorProto {
	raw := make([]byte, 8*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint64(raw[8*i:], uint64(v))
	}
	return &pb.TensorProto{Name: proto.String(name), DataType: proto.Int32(TypeInt64), Dims: []int64{int64(len(vals))}, RawData: raw}
}

// constant is a Constant node holding t.
func constant(out string, t *pb.TensorProto) *pb.NodeProto {
	return op("Constant", nil, []string{out}, &pb.AttributeProto{Name: proto.String("value"), Type: pb.AttributeProto_TENSOR.Enum(), T: t})
}

func modelOf(g *pb.GraphProto) *pb.ModelProto {
	return &pb.ModelProto{IrVersion: proto.Int64(8), Graph: g,
		OpsetImport: []*pb.OperatorSetIdProto{{Domain: proto.String(""), Version: proto.Int64(17)}}}
}

func encode(t testing.TB, g *pb.GraphProto) []byte {
	t.Helper()
	data, err := proto.Marshal(modelOf(g))
	require.NoError(t, err)
	return data
}

// arenaOf decodes a graph and builds its arena.
func arenaOf(t testing.TB, g *pb.GraphProto, dims map[string]int64) (*Arena, error) {
	t.Helper()
	m, err := Decode(encode(t, g), "test.onnx")
	require.NoError(t, err)
	return m.Arena(Options{Dims: dims})
}

// chain: x [1,3,8,8] -> Conv(w) -> Relu -> Reshape(shape) -> MatMul(fc)
// -> y [1,10]; no value_info, so every shape is inferred.
func chain() *pb.GraphProto {
	return &pb.GraphProto{
		Name: proto.String("chain"),
		Node: []*pb.NodeProto{
			op("Conv", []string{"x", "w"}, []string{"c"}, aints("pads", 1, 1, 1, 1)),
			op("Relu", []string{"c"}, []string{"r"}),
			op("Reshape", []string{"r", "shape"}, []string{"flat"}),
			op("MatMul", []string{"flat", "fc"}, []string{"y"}),
		},
		Initializer: []*pb.TensorProto{f32("w", 4, 3, 3, 3), i64("shape", 0, -1), f32("fc", 256, 10)},
		Input:       []*pb.ValueInfoProto{tinfo("x", TypeFloat, "batch", 3, 8, 8)},
		Output:      []*pb.ValueInfoProto{untyped("y", TypeFloat)},
	}
}
