package onnx

import (
	"encoding/binary"
	"math"
	"strconv"
)

// ONNX element types (TensorProto.DataType).
const (
	TypeUndefined     int32 = 0
	TypeFloat         int32 = 1
	TypeUint8         int32 = 2
	TypeInt8          int32 = 3
	TypeUint16        int32 = 4
	TypeInt16         int32 = 5
	TypeInt32         int32 = 6
	TypeInt64         int32 = 7
	TypeString        int32 = 8
	TypeBool          int32 = 9
	TypeFloat16       int32 = 10
	TypeDouble        int32 = 11
	TypeUint32        int32 = 12
	TypeUint64        int32 = 13
	TypeComplex64     int32 = 14
	TypeComplex128    int32 = 15
	TypeBFloat16      int32 = 16
	TypeFloat8E4M3FN  int32 = 17
	TypeFloat8E4M3FNZ int32 = 18
	TypeFloat8E5M2    int32 = 19
	TypeFloat8E5M2FNZ int32 = 20
	TypeUint4         int32 = 21
	TypeInt4          int32 = 22
	TypeFloat4E2M1    int32 = 23
	TypeFloat8E8M0    int32 = 24
)

var typeNames = map[int32]string{
	TypeFloat: "float", TypeUint8: "uint8", TypeInt8: "int8", TypeUint16: "uint16", TypeInt16: "int16",
	TypeInt32: "int32", TypeInt64: "int64", TypeString: "string", TypeBool: "bool", TypeFloat16: "float16",
	TypeDouble: "double", TypeUint32: "uint32", TypeUint64: "uint64", TypeComplex64: "complex64",
	TypeComplex128: "complex128", TypeBFloat16: "bfloat16", TypeFloat8E4M3FN: "float8e4m3fn",
	TypeFloat8E4M3FNZ: "float8e4m3fnuz", TypeFloat8E5M2: "float8e5m2", TypeFloat8E5M2FNZ: "float8e5m2fnuz",
	TypeUint4: "uint4", TypeInt4: "int4", TypeFloat4E2M1: "float4e2m1", TypeFloat8E8M0: "float8e8m0",
}

// TypeName names an element type ("type 99" for an unknown one).
func TypeName(t int32) string {
	if s, ok := typeNames[t]; ok {
		return s
	}
	return "type " + itoa(int64(t))
}

// typeWidth is the bytes of one element of a byte-aligned fixed-width
// type; 0 for the 4-bit types (see tensorBytes), strings and unknown types.
func typeWidth(t int32) int64 {
	switch t {
	case TypeUint8, TypeInt8, TypeBool, TypeFloat8E4M3FN, TypeFloat8E4M3FNZ, TypeFloat8E5M2, TypeFloat8E5M2FNZ, TypeFloat8E8M0:
		return 1
	case TypeUint16, TypeInt16, TypeFloat16, TypeBFloat16:
		return 2
	case TypeFloat, TypeInt32, TypeUint32:
		return 4
	case TypeInt64, TypeUint64, TypeDouble, TypeComplex64:
		return 8
	case TypeComplex128:
		return 16
	}
	return 0
}

// fixedWidth reports whether t has a fixed size per element.
func fixedWidth(t int32) bool {
	return typeWidth(t) > 0 || t == TypeUint4 || t == TypeInt4 || t == TypeFloat4E2M1
}

// tensorBytes is the byte size of n elements of type t (4-bit types pack
// two elements a byte, as ONNX stores them); false when t has no fixed
// width or the size overflows.
func tensorBytes(t int32, n int64) (int64, bool) {
	if t == TypeUint4 || t == TypeInt4 || t == TypeFloat4E2M1 {
		return n/2 + n%2, true
	}
	w := typeWidth(t)
	if w == 0 || n > math.MaxInt64/w {
		return 0, false
	}
	return n * w, true
}

func isInt(t int32) bool {
	switch t {
	case TypeUint8, TypeInt8, TypeUint16, TypeInt16, TypeInt32, TypeInt64, TypeBool, TypeUint32, TypeUint64:
		return true
	}
	return false
}

func isFloat(t int32) bool {
	switch t {
	case TypeFloat, TypeDouble, TypeFloat16, TypeBFloat16:
		return true
	}
	return false
}

// rawValues decodes n little-endian elements of raw data.
func rawValues(t int32, raw []byte, n int) ([]int64, []float64) {
	le := binary.LittleEndian
	if isInt(t) {
		v := make([]int64, n)
		for i := range v {
			switch t {
			case TypeUint8, TypeBool:
				v[i] = int64(raw[i])
			case TypeInt8:
				v[i] = int64(int8(raw[i]))
			case TypeUint16:
				v[i] = int64(le.Uint16(raw[2*i:]))
			case TypeInt16:
				v[i] = int64(int16(le.Uint16(raw[2*i:])))
			case TypeInt32:
				v[i] = int64(int32(le.Uint32(raw[4*i:])))
			case TypeUint32:
				v[i] = int64(le.Uint32(raw[4*i:]))
			case TypeInt64:
				v[i] = int64(le.Uint64(raw[8*i:]))
			case TypeUint64:
				u := le.Uint64(raw[8*i:])
				if u > math.MaxInt64 {
					return nil, nil
				}
				v[i] = int64(u)
			}
		}
		return v, nil
	}
	if isFloat(t) {
		v := make([]float64, n)
		for i := range v {
			switch t {
			case TypeFloat:
				v[i] = float64(math.Float32frombits(le.Uint32(raw[4*i:])))
			case TypeDouble:
				v[i] = math.Float64frombits(le.Uint64(raw[8*i:]))
			default:
				v[i] = halfToFloat(t, le.Uint16(raw[2*i:]))
			}
		}
		return nil, v
	}
	return nil, nil
}

// halfToFloat converts a float16 or bfloat16 bit pattern.
func halfToFloat(t int32, h uint16) float64 {
	if t == TypeBFloat16 {
		return float64(math.Float32frombits(uint32(h) << 16))
	}
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	frac := uint32(h) & 0x3ff
	switch {
	case exp == 0 && frac == 0:
		return float64(math.Float32frombits(sign))
	case exp == 0: // subnormal
		f := float64(frac) / 1024 * math.Pow(2, -14)
		if sign != 0 {
			f = -f
		}
		return f
	case exp == 0x1f:
		return float64(math.Float32frombits(sign | 0x7f800000 | frac<<13))
	}
	return float64(math.Float32frombits(sign | (exp+112)<<23 | frac<<13))
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }
