// Package onnx is optalloc's ONNX front end. It reads a .onnx model (a
// protobuf ModelProto) into the memory problem of its activations: one
// buffer per tensor computed at run time, with its byte size and lifetime.
//
// Decoding: the top-level ModelProto, GraphProto, NodeProto and the
// tensors are walked with protowire, so that initializers' and Constant
// nodes' weight bytes are looked at, never copied; the small messages
// (value infos, attributes without tensors or graphs, opset ids) are
// unmarshalled with the Go types protoc generated from ONNX's onnx.proto
// (internal/onnxpb). A regular file is memory-mapped for the decoding.
//
// Shapes come from graph inputs, outputs and value_info; where these are
// missing, they are inferred in Go for the common operators (see
// docs/onnx.md), with the values of small integer tensors folded (Shape,
// Gather, Concat feeding a Reshape). Symbolic dimensions are fixed with
// Options.Dims (the CLI's --dim NAME=VALUE); a tensor whose size cannot
// be determined is an error naming it and its operator.
//
// Initializers and Constant outputs are weights, not arena buffers.
// Reshape, Flatten, Squeeze, Unsqueeze and Identity outputs are in-place
// views (aliases at delta 0) of their input. The branches of an If node
// are planned inside the node's time steps, one after the other (only the
// branch taken when the condition is a constant); Loop and Scan bodies are
// refused with an error naming the node.
//
// Importing the package registers the ".onnx" suffix with
// formats.Register, so formats.Load("net.onnx") returns the problem of a
// model whose dimensions are all fixed, and Sniff with
// formats.RegisterSniffer, so that a model on standard input is recognised
// (ONNX has no magic number: Sniff checks the first field, ir_version).
package onnx
