package tflite

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"

	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/optalloc/optalloc/formats/tflite/internal/schema"
	"github.com/optalloc/optalloc/model"
)

// Identifier is the flatbuffer file identifier of TFLite models (bytes 4..8).
const Identifier = "TFL3"

// maxFile bounds the file size: a flatbuffer addresses at most 2 GiB.
const maxFile = math.MaxInt32

// Model is a decoded .tflite file: its tensors (every subgraph's, in file
// order: the global index TFLite Micro's offline plan uses) with their
// sizes and TFLite Micro's lifetimes. It keeps the file's bytes and
// never copies weight data.
type Model struct {
	// Name is the file name, used in messages.
	Name string
	// Tensors lists every tensor of every subgraph, in order.
	Tensors []Tensor
	// Subgraphs are the subgraphs, in order.
	Subgraphs []Subgraph
	// Ops counts the operators that TFLite Micro's lifetimes step through
	// (every op of every subgraph reached from subgraph 0, with the extra
	// scope each control-flow call opens).
	Ops int
	// Inputs and Outputs are the global indices of subgraph 0's inputs and
	// outputs (the model's).
	Inputs, Outputs []int
	// Offline is the offline plan the file already carries (the
	// OfflineMemoryAllocation metadata), nil when it has none: the last
	// such entry, the one TFLite Micro uses.
	Offline *OfflinePlan
	// OfflineEntries counts the OfflineMemoryAllocation entries (more than
	// one: TFLite Micro checks each and uses the last).
	OfflineEntries int
	// Compressed is true when the model carries CompressionMetadata: a
	// TFLite Micro built with USE_TFLM_COMPRESSION then asks for
	// decompression scratch that optalloc does not model.
	Compressed bool

	data      []byte
	root      *schema.Model
	customOps [][]int // the operands of each CUSTOM operator
	// opScopes[s][i] is operator i of subgraph s's first and last
	// allocation scope (TFLite Micro's scratch buffer lifetime), -1 when
	// the walk never reaches it.
	opScopes [][][2]int
}

// Subgraph is one subgraph of a model.
type Subgraph struct {
	Name string
	// First is the global index of its first tensor; it has Count tensors.
	First, Count int
	// Ops is its number of operators.
	Ops int
	// Inputs and Outputs are the global indices of subgraph 0's inputs and
	// outputs (the model's).
	Inputs, Outputs []int
}

// Tensor is one tensor of the model.
type Tensor struct {
	// Index is the global index (all subgraphs' tensors concatenated).
	Index int
	// Subgraph and Local locate it in the file.
	Subgraph, Local int
	Name            string
	// Type is the TFLite element type (FLOAT32, INT8, ...).
	Type  string
	Shape []int32
	// Bytes is the number of elements times the element width, -1 when the
	// type has no fixed width (STRING, RESOURCE, VARIANT, INT4).
	Bytes int64
	// Constant tensors point into a non-empty buffer of the file (weights);
	// TFLite Micro never places them in the arena.
	Constant bool
	// Variable tensors hold state across invocations; TFLite Micro
	// allocates them in its persistent section, outside the plan.
	Variable bool
	// First and Last are TFLite Micro's allocation scopes (inclusive): the
	// scope of the op that first writes the tensor and of the last op that
	// reads it; -1 when no op touches it. Subgraph inputs start at their
	// subgraph's entry scope and outputs end at its exit scope.
	First, Last int

	buffer int // its index in the model's buffer list
}

// Planned reports whether TFLite Micro's planner places the tensor in the
// arena (the non-persistent head): neither a constant nor a variable.
func (t *Tensor) Planned() bool { return !t.Constant && !t.Variable }

// ReadFile reads a .tflite file.
func ReadFile(path string) (*Model, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &model.InputError{File: path, Msg: "cannot open: " + unwrapPath(err)}
	}
	defer f.Close()
	return Read(f, path)
}

// Read reads a .tflite model from r. When r is an *os.File the buffer is
// sized by the file, so reading takes the file's size in memory once.
func Read(r io.Reader, name string) (*Model, error) {
	data, err := readAll(r)
	if err != nil {
		return nil, &model.InputError{File: name, Msg: err.Error()}
	}
	return Decode(data, name)
}

// readAll reads r whole, into a buffer of exactly the file's size when r is
// a regular file; it refuses more than maxFile bytes.
func readAll(r io.Reader) ([]byte, error) {
	if f, ok := r.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			if fi.Size() > maxFile {
				return nil, fmt.Errorf("%d bytes: a TFLite flatbuffer holds at most 2 GiB", fi.Size())
			}
			data := make([]byte, fi.Size())
			if _, err := io.ReadFull(f, data); err != nil {
				return nil, fmt.Errorf("cannot read: %v", err)
			}
			return data, nil
		}
	}
	data, err := io.ReadAll(io.LimitReader(r, maxFile+1))
	if err != nil {
		return nil, fmt.Errorf("cannot read: %v", err)
	}
	if len(data) > maxFile {
		return nil, fmt.Errorf("more than 2 GiB: a TFLite flatbuffer holds at most 2 GiB")
	}
	return data, nil
}

// Sniff reports whether data looks like a TFLite flatbuffer (its file
// identifier at bytes 4..8).
func Sniff(data []byte) bool {
	return len(data) >= 8 && string(data[4:8]) == Identifier
}

// Decode reads a model held in memory. data is kept, not copied: the
// caller must not change it while the model is in use.
func Decode(data []byte, name string) (m *Model, err error) {
	if len(data) < 8 {
		return nil, &model.InputError{File: name, Msg: fmt.Sprintf("not a TFLite model: %d bytes", len(data))}
	}
	if !Sniff(data) {
		return nil, &model.InputError{File: name, Msg: fmt.Sprintf("not a TFLite model: file identifier %q, want %q", printable(data[4:8]), Identifier)}
	}
	// The generated accessors index the buffer without bounds checks of
	// their own: a corrupted offset panics with an index error, which is
	// reported as a malformed file (checkTable bounds every table first,
	// so most damage is named precisely before this net catches it).
	defer func() {
		if r := recover(); r != nil {
			if re, ok := r.(runtime.Error); ok {
				m, err = nil, &model.InputError{File: name, Msg: fmt.Sprintf(
					"truncated or corrupted flatbuffer: an offset points outside the %d-byte file (%v)", len(data), re)}
				return
			}
			panic(r)
		}
	}()
	// The generated accessors slice the buffer, and Go lets a slice reach
	// past its length up to its capacity: cap the capacity, so that a
	// vector running past the file's end is always caught (a fuzzer's
	// inputs, slices of larger buffers, found one that read back only
	// where the capacity hid it).
	data = data[:len(data):len(data)]
	d := &decoder{name: name, data: data}
	return d.decode()
}

type decoder struct {
	name string
	data []byte
	m    *Model
}

func (d *decoder) fail(format string, args ...any) error {
	return &model.InputError{File: d.name, Msg: fmt.Sprintf(format, args...)}
}

// vecLen checks that a vector of n elements of at least size bytes each can
// fit in the file, so that no corrupted length makes us allocate or loop
// beyond what the file holds.
func (d *decoder) vecLen(n, size int, what string) (int, error) {
	if n < 0 || n > len(d.data)/size {
		return 0, d.fail("malformed flatbuffer: %s has %d entries in a %d-byte file", what, n, len(d.data))
	}
	return n, nil
}

func (d *decoder) decode() (*Model, error) {
	root := schema.GetRootAsModel(d.data, 0)
	if int(flatbuffers.GetUOffsetT(d.data)) >= len(d.data) {
		return nil, d.fail("malformed flatbuffer: root table outside the file")
	}
	d.m = &Model{Name: d.name, data: d.data, root: root}
	nsub, err := d.vecLen(root.SubgraphsLength(), 4, "the subgraph list")
	if err != nil {
		return nil, err
	}
	if nsub == 0 {
		return nil, d.fail("model has no subgraph")
	}
	nbuf, err := d.vecLen(root.BuffersLength(), 4, "the buffer list")
	if err != nil {
		return nil, err
	}
	constant := make([]bool, nbuf)
	var b schema.Buffer
	for i := range nbuf {
		root.Buffers(&b, i)
		constant[i] = b.DataLength() > 0 || b.Offset() > 1
	}
	var sg schema.SubGraph
	var t schema.Tensor
	for s := range nsub {
		root.Subgraphs(&sg, s)
		nt, err := d.vecLen(sg.TensorsLength(), 4, fmt.Sprintf("subgraph %d's tensor list", s))
		if err != nil {
			return nil, err
		}
		nops, err := d.vecLen(sg.OperatorsLength(), 4, fmt.Sprintf("subgraph %d's operator list", s))
		if err != nil {
			return nil, err
		}
		first := len(d.m.Tensors)
		if first+nt > len(d.data)/4 {
			return nil, d.fail("malformed flatbuffer: %d tensors in a %d-byte file", first+nt, len(d.data))
		}
		d.m.Subgraphs = append(d.m.Subgraphs, Subgraph{Name: string(sg.Name()), First: first, Count: nt, Ops: nops})
		for k := range nt {
			sg.Tensors(&t, k)
			tt, err := d.tensor(&t, s, k, len(d.m.Tensors))
			if err != nil {
				return nil, err
			}
			bi := int(t.Buffer())
			tt.Constant = bi > 0 && bi < nbuf && constant[bi]
			tt.buffer = bi
			d.m.Tensors = append(d.m.Tensors, tt)
		}
	}
	if err := d.lifetimes(); err != nil {
		return nil, err
	}
	sg0 := d.m.subgraph0()
	for i := range sg0.InputsLength() {
		d.m.Inputs = append(d.m.Inputs, int(sg0.Inputs(i)))
	}
	for i := range sg0.OutputsLength() {
		d.m.Outputs = append(d.m.Outputs, int(sg0.Outputs(i)))
	}
	off, err := d.offlinePlan()
	if err != nil {
		return nil, err
	}
	d.m.Offline = off
	// The tables a plan is written into must be sound too (the writer
	// relies on them; TFLite Micro reads them).
	if _, err := d.m.layout(); err != nil {
		return nil, d.fail("%v", err)
	}
	return d.m, nil
}

// tensor decodes one tensor's name, type, shape and byte size.
func (d *decoder) tensor(t *schema.Tensor, s, k, index int) (Tensor, error) {
	tt := Tensor{Index: index, Subgraph: s, Local: k, Name: string(t.Name()), Variable: t.IsVariable(), First: -1, Last: -1}
	tt.Type = t.Type().String()
	rank, err := d.vecLen(t.ShapeLength(), 4, fmt.Sprintf("tensor %s's shape", d.tensorName(tt)))
	if err != nil {
		return tt, err
	}
	tt.Shape = make([]int32, rank)
	elems := int64(1)
	for j := range rank {
		v := t.Shape(j)
		if v < 0 {
			return tt, d.fail("tensor %s: dimension %d is %d (dynamic shapes are not planned offline)", d.tensorName(tt), j, v)
		}
		tt.Shape[j] = v
		if v != 0 && elems > math.MaxInt64/int64(v) {
			return tt, d.fail("tensor %s: shape %v overflows int64 elements", d.tensorName(tt), tt.Shape)
		}
		elems *= int64(v)
	}
	w := typeWidth(t.Type())
	switch {
	case w < 0:
		tt.Bytes = -1
	case elems > math.MaxInt64/16/w:
		return tt, d.fail("tensor %s: %d elements of %s overflow int64 bytes", d.tensorName(tt), elems, tt.Type)
	default:
		tt.Bytes = elems * w
	}
	return tt, nil
}

func (d *decoder) tensorName(t Tensor) string {
	return fmt.Sprintf("%d (%q, subgraph %d)", t.Index, t.Name, t.Subgraph)
}

// typeWidth is the bytes per element of TFLite Micro's TfLiteTypeSizeOf;
// -1 for types without a fixed width.
func typeWidth(t schema.TensorType) int64 {
	switch t {
	case schema.TensorTypeBOOL, schema.TensorTypeINT8, schema.TensorTypeUINT8:
		return 1
	case schema.TensorTypeINT16, schema.TensorTypeUINT16, schema.TensorTypeFLOAT16, schema.TensorTypeBFLOAT16:
		return 2
	case schema.TensorTypeINT32, schema.TensorTypeUINT32, schema.TensorTypeFLOAT32:
		return 4
	case schema.TensorTypeINT64, schema.TensorTypeUINT64, schema.TensorTypeFLOAT64, schema.TensorTypeCOMPLEX64:
		return 8
	case schema.TensorTypeCOMPLEX128:
		return 16
	}
	return -1
}

func printable(b []byte) string {
	if bytes.IndexFunc(b, func(r rune) bool { return r < 0x20 || r > 0x7e }) >= 0 {
		return fmt.Sprintf("% x", b)
	}
	return string(b)
}

func unwrapPath(err error) string {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err.Error()
	}
	return err.Error()
}

func (m *Model) subgraph0() *schema.SubGraph {
	var sg schema.SubGraph
	m.root.Subgraphs(&sg, 0)
	return &sg
}
