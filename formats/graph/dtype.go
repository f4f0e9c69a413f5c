package graph

import "strings"

// dtypeWidths maps the element types of the format to their widths in bytes.
var dtypeWidths = map[string]int64{
	"bool": 1, "int8": 1, "uint8": 1, "qint8": 1, "quint8": 1, "float8": 1,
	"int16": 2, "uint16": 2, "float16": 2, "bfloat16": 2,
	"int32": 4, "uint32": 4, "float32": 4,
	"int64": 8, "uint64": 8, "float64": 8, "complex64": 8,
	"complex128": 16,
}

// DTypeWidth returns the width in bytes of an element type ("float32",
// "int8", "float16", ...; case-insensitive) and whether the type is known.
func DTypeWidth(dtype string) (int64, bool) {
	w, ok := dtypeWidths[strings.ToLower(dtype)]
	return w, ok
}

func alignUp(v, a int64) int64 {
	if a <= 1 {
		return v
	}
	if r := v % a; r != 0 {
		return v + a - r
	}
	return v
}

func alignDown(v, a int64) int64 {
	if a <= 1 {
		return v
	}
	return v - v%a
}
