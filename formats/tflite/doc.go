// Package tflite is optalloc's TFLite front and back end. It reads a
// .tflite flatbuffer (with Go code that flatc generated from TFLite's
// schema, in internal/schema) into the memory problem of TFLite Micro's
// arena, and writes a plan back into a copy of the model as the
// OfflineMemoryAllocation metadata that TFLite Micro loads.
//
// What it reads: every subgraph's tensors in file order (the global index
// the offline plan uses), with their element type and shape; constants
// (tensors whose buffer holds data: weights) and variable tensors are not
// arena buffers, as in TFLite Micro. Lifetimes are TFLite Micro's
// allocation scopes (see Model.Ops and Tensor.First): a tensor lives from
// the op that first writes it to the last op that reads it, subgraph
// inputs from the subgraph's entry, outputs to its exit, and the
// subgraphs that IF, WHILE and CALL_ONCE call within their caller's op.
// Sizes are element count × element width, rounded up to TFLite Micro's
// 16-byte arena alignment.
//
// Reading never copies weight data: the decoded model points into the
// file's bytes. A truncated or corrupted file is a *model.InputError, never
// a panic.
//
// Importing the package registers the ".tflite" suffix with
// formats.Register, so formats.Load("net.tflite") returns the arena
// problem, and Sniff with formats.RegisterSniffer, so that a model on
// standard input is recognised.
package tflite
