package onnx

import (
	"bytes"
	"io"

	"github.com/optalloc/optalloc/formats"
	"github.com/optalloc/optalloc/model"
)

func init() {
	formats.RegisterSniffer(Sniff, func(r io.Reader, name string) (*model.Problem, error) {
		return readProblem(r, name, Options{})
	})
}

// Sniff reports whether data looks like an ONNX model. ONNX has no magic
// number; a ModelProto written by protobuf starts with its first field,
// ir_version (field 1, a varint: the byte 0x08, then a small version),
// followed by the tag of another ModelProto field (producer_name, graph,
// opset_import…). No CSV, JSON problem, model graph, trace or TFLite model
// starts with the control byte 0x08.
func Sniff(data []byte) bool {
	if len(data) < 3 || data[0] != 0x08 || data[1] == 0 || data[1] >= 0x80 {
		return false
	}
	field, wire := data[2]>>3, data[2]&7
	return field >= 2 && field <= 20 && (wire == 0 || wire == 2)
}

// DecodeProblem decodes an ONNX model held in memory (read from standard
// input, say) and returns its arena's problem with opt.
func DecodeProblem(data []byte, name string, opt Options) (*model.Problem, error) {
	return readProblem(bytes.NewReader(data), name, opt)
}

func readProblem(r io.Reader, name string, opt Options) (*model.Problem, error) {
	m, err := Read(r, name)
	if err != nil {
		return nil, err
	}
	a, err := m.Arena(opt)
	if err != nil {
		return nil, err
	}
	return a.Problem, nil
}
