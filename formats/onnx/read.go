package onnx

import (
	"fmt"
	"io"
	"math"
	"os"
	"runtime/debug"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/optalloc/optalloc/formats/onnx/internal/onnxpb"
	"github.com/optalloc/optalloc/model"
)

// Model is a decoded ONNX model: the main graph with its nodes, value
// infos and initializers. Weight bytes are not copied: an initializer's
// raw data, when kept at all, points into the file's bytes.
type Model struct {
	Name      string
	IRVersion int64
	// Opset is the version of the default ("" or "ai.onnx") operator set.
	Opset int64
	Graph *Graph
	// FileBytes is the size of the file read.
	FileBytes int64

	nodes int // of every graph: Node.seq runs from 0 to nodes-1
}

// Graph is one ONNX graph: the main graph or a control-flow body.
type Graph struct {
	Name         string
	Nodes        []*Node
	Inputs       []*onnxpb.ValueInfoProto
	Outputs      []*onnxpb.ValueInfoProto
	ValueInfo    []*onnxpb.ValueInfoProto
	Initializers []*Tensor
}

// Node is one operator of a graph. Small attributes are decoded with the
// generated types; tensor attributes (Constant's value) are Tensors and
// graph attributes (If's branches, Loop's and Scan's bodies) Graphs.
type Node struct {
	Name, OpType, Domain string
	Inputs, Outputs      []string
	Attrs                []*onnxpb.AttributeProto
	Tensors              map[string]*Tensor
	Graphs               map[string]*Graph
	// Index is the node's position in its graph.
	Index int

	seq int // numbers the model's nodes, all graphs together, from 0
}

// Tensor is an initializer or a tensor attribute: its name, element type
// and shape, with the values of small numeric tensors (which shape
// inference needs: Reshape's shape, Slice's starts, Resize's scales).
// The weight bytes themselves are never copied.
type Tensor struct {
	Name     string
	DataType int32
	Dims     []int64
	// Ints holds the values of an integer or bool tensor of at most
	// maxValues elements; Floats those of a floating-point one.
	Ints   []int64
	Floats []float64
	// Bytes is the length of the raw data (0 when the values are in the
	// typed fields or stored outside the file).
	Bytes int64
}

// maxValues bounds the elements of a tensor whose values are decoded.
const maxValues = 1 << 12

// maxFloats bounds the elements of a floating-point tensor whose values
// are decoded (Resize's scales, Range's bounds).
const maxFloats = 64

// maxDepth bounds the nesting of control-flow graphs.
const maxDepth = 64

// ReadFile reads an ONNX model file. On Linux a regular file is mapped
// into memory, so the weights it holds are never read into the heap.
func ReadFile(path string) (*Model, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &model.InputError{File: path, Msg: "cannot open: " + unwrap(err)}
	}
	defer f.Close()
	return Read(f, path)
}

// Read decodes an ONNX model. When r is an *os.File of a regular file the
// file is memory-mapped (read-only) for the time of the decoding;
// otherwise it is read whole.
func Read(r io.Reader, name string) (*Model, error) {
	data, release, err := load(r)
	if err != nil {
		return nil, &model.InputError{File: name, Msg: "cannot read: " + unwrap(err)}
	}
	defer release()
	return decodeMapped(data, name)
}

// decodeMapped is Decode on a mapped file: a file truncated while it is
// read makes the pages past its new end fault (SIGBUS), which would end the
// process; here the fault is a panic turned into an error naming the file.
func decodeMapped(data []byte, name string) (m *Model, err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			// A fault under SetPanicOnFault is a runtime.Error with the
			// faulting address.
			if _, ok := r.(interface{ Addr() uintptr }); ok {
				m, err = nil, &model.InputError{File: name, Msg: "the file changed while it was read (truncated?): " + fmt.Sprint(r)}
				return
			}
			panic(r)
		}
	}()
	return Decode(data, name)
}

// Decode decodes an ONNX model held in memory. The returned model does not
// refer to data.
func Decode(data []byte, name string) (m *Model, err error) {
	d := &decoder{name: name}
	m = &Model{Name: name, FileBytes: int64(len(data))}
	if len(data) == 0 {
		return nil, d.fail("empty file: not an ONNX model")
	}
	var graph []byte
	err = walk(data, func(num protowire.Number, typ protowire.Type, v []byte, x uint64) error {
		switch {
		case num == 1 && typ == protowire.VarintType:
			m.IRVersion = int64(x)
		case num == 8 && typ == protowire.BytesType:
			var op onnxpb.OperatorSetIdProto
			if err := proto.Unmarshal(v, &op); err != nil {
				return fmt.Errorf("opset_import: %v", err)
			}
			if dom := op.GetDomain(); dom == "" || dom == "ai.onnx" {
				m.Opset = op.GetVersion()
			}
		case num == 7 && typ == protowire.BytesType:
			graph = v
		}
		return nil
	})
	if err != nil {
		return nil, d.fail("not an ONNX model, or truncated or corrupted: %v", err)
	}
	if graph == nil {
		return nil, d.fail("not an ONNX model: it has no graph")
	}
	if m.Graph, err = d.graph(graph, 0); err != nil {
		return nil, err
	}
	m.nodes = d.nodes
	return m, nil
}

type decoder struct {
	name  string
	nodes int
}

func (d *decoder) fail(format string, args ...any) error {
	return &model.InputError{File: d.name, Msg: fmt.Sprintf(format, args...)}
}

// maxNodes bounds the nodes of all graphs together.
const maxNodes = 1 << 22

// graph decodes a GraphProto field by field: nodes, inputs, outputs and
// value infos with the generated types, initializers by hand so that
// their data is not copied.
func (d *decoder) graph(data []byte, depth int) (*Graph, error) {
	if depth > maxDepth {
		return nil, d.fail("control-flow graphs nested more than %d deep", maxDepth)
	}
	g := &Graph{}
	vi := func(v []byte, what string) (*onnxpb.ValueInfoProto, error) {
		var x onnxpb.ValueInfoProto
		if err := proto.Unmarshal(v, &x); err != nil {
			return nil, fmt.Errorf("graph %s: %v", what, err)
		}
		return &x, nil
	}
	err := walk(data, func(num protowire.Number, typ protowire.Type, v []byte, _ uint64) error {
		if typ != protowire.BytesType {
			return nil
		}
		switch num {
		case 1:
			seq := d.nodes // before its bodies' nodes
			if d.nodes++; d.nodes > maxNodes {
				return fmt.Errorf("more than %d nodes", maxNodes)
			}
			n, err := d.node(v, depth)
			if err != nil {
				return err
			}
			n.Index, n.seq = len(g.Nodes), seq
			g.Nodes = append(g.Nodes, n)
		case 2:
			g.Name = string(v)
		case 5:
			t, err := tensor(v)
			if err != nil {
				return fmt.Errorf("initializer: %v", err)
			}
			g.Initializers = append(g.Initializers, t)
		case 15: // sparse_initializer: its values tensor carries the name
			err := walk(v, func(num protowire.Number, typ protowire.Type, v []byte, _ uint64) error {
				if num == 1 && typ == protowire.BytesType {
					t, err := tensor(v)
					if err != nil {
						return err
					}
					g.Initializers = append(g.Initializers, t)
				}
				return nil
			})
			if err != nil {
				return fmt.Errorf("sparse initializer: %v", err)
			}
		case 11, 12, 13:
			x, err := vi(v, map[protowire.Number]string{11: "input", 12: "output", 13: "value_info"}[num])
			if err != nil {
				return err
			}
			switch num {
			case 11:
				g.Inputs = append(g.Inputs, x)
			case 12:
				g.Outputs = append(g.Outputs, x)
			default:
				g.ValueInfo = append(g.ValueInfo, x)
			}
		}
		return nil
	})
	if err != nil {
		if ie, ok := err.(*model.InputError); ok {
			return nil, ie
		}
		return nil, d.fail("corrupted graph: %v", err)
	}
	// ONNX requires initializer names to be unique in a graph; with two,
	// which one a runtime keeps is anyone's guess, so the model is refused.
	seen := make(map[string]bool, len(g.Initializers))
	for _, t := range g.Initializers {
		if seen[t.Name] {
			return nil, d.fail("graph %s: initializer %s is given twice (ONNX requires unique names)", model.Quote(g.Name), model.Quote(t.Name))
		}
		seen[t.Name] = true
	}
	return g, nil
}

// node decodes a NodeProto. Attributes holding tensors or graphs are
// decoded by hand; the others with the generated AttributeProto.
func (d *decoder) node(data []byte, depth int) (*Node, error) {
	n := &Node{}
	err := walk(data, func(num protowire.Number, typ protowire.Type, v []byte, _ uint64) error {
		if typ != protowire.BytesType {
			return nil
		}
		switch num {
		case 1:
			n.Inputs = append(n.Inputs, string(v))
		case 2:
			n.Outputs = append(n.Outputs, string(v))
		case 3:
			n.Name = string(v)
		case 4:
			n.OpType = string(v)
		case 7:
			n.Domain = string(v)
		case 5:
			return d.attribute(n, v, depth)
		}
		return nil
	})
	if err != nil {
		if ie, ok := err.(*model.InputError); ok {
			return nil, ie
		}
		return nil, fmt.Errorf("node %q: %v", n.Name, err)
	}
	return n, nil
}

func (d *decoder) attribute(n *Node, data []byte, depth int) error {
	var small []byte // the attribute without its tensor and graph fields
	var tens, graphs [][]byte
	err := walk(data, func(num protowire.Number, typ protowire.Type, v []byte, x uint64) error {
		switch {
		case (num == 5 || num == 10) && typ == protowire.BytesType:
			tens = append(tens, v)
		case (num == 6 || num == 11) && typ == protowire.BytesType:
			graphs = append(graphs, v)
		case num == 22 || num == 23:
			// sparse tensors: not needed for shapes; dropped
		default:
			small = protowire.AppendTag(small, num, typ)
			switch typ {
			case protowire.VarintType:
				small = protowire.AppendVarint(small, x)
			case protowire.Fixed32Type:
				small = protowire.AppendFixed32(small, uint32(x))
			case protowire.Fixed64Type:
				small = protowire.AppendFixed64(small, x)
			case protowire.BytesType:
				small = protowire.AppendBytes(small, v)
			default:
				return fmt.Errorf("attribute: unexpected wire type %d", typ)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	a := &onnxpb.AttributeProto{}
	if err := proto.Unmarshal(small, a); err != nil {
		return fmt.Errorf("attribute: %v", err)
	}
	n.Attrs = append(n.Attrs, a)
	for _, v := range tens {
		t, err := tensor(v)
		if err != nil {
			return fmt.Errorf("attribute %q: %v", a.GetName(), err)
		}
		if n.Tensors == nil {
			n.Tensors = map[string]*Tensor{}
		}
		n.Tensors[a.GetName()] = t
	}
	for _, v := range graphs {
		g, err := d.graph(v, depth+1)
		if err != nil {
			return err
		}
		if n.Graphs == nil {
			n.Graphs = map[string]*Graph{}
		}
		if _, dup := n.Graphs[a.GetName()]; dup {
			return fmt.Errorf("attribute %q holds several graphs", a.GetName())
		}
		n.Graphs[a.GetName()] = g
	}
	return nil
}

// tensor decodes a TensorProto's name, type and dims, and the values of a
// small numeric tensor. Its raw data is looked at, not copied.
func tensor(data []byte) (*Tensor, error) {
	t := &Tensor{}
	var raw []byte
	var ints []int64
	var floats []float64
	err := walk(data, func(num protowire.Number, typ protowire.Type, v []byte, x uint64) error {
		switch num {
		case 1:
			return appendInts(&t.Dims, typ, v, x, math.MaxInt) // every dimension: a rank is bounded by the file
		case 2:
			t.DataType = int32(x)
		case 8:
			t.Name = string(v)
		case 9:
			raw = v
			t.Bytes = int64(len(v))
		case 5, 7, 11: // int32_data, int64_data, uint64_data
			return appendInts(&ints, typ, v, x, maxValues+1)
		case 4: // float_data
			return appendFloats(&floats, typ, v, x, 4)
		case 10: // double_data
			return appendFloats(&floats, typ, v, x, 8)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, d := range t.Dims {
		if d < 0 {
			return nil, fmt.Errorf("tensor %q has a negative dimension %d", t.Name, d)
		}
	}
	n, ok := elements(t.Dims)
	if !ok || n > maxValues {
		return t, nil
	}
	w := typeWidth(t.DataType)
	switch {
	case isFloat(t.DataType) && n > maxFloats:
		// float weights: shape inference needs only short float lists
	case raw != nil && w > 0 && int64(len(raw)) == n*w:
		t.Ints, t.Floats = rawValues(t.DataType, raw, int(n))
	case len(ints) == int(n) && isInt(t.DataType):
		t.Ints = ints
		if t.DataType == TypeUint64 {
			for i := range ints {
				if ints[i] < 0 {
					t.Ints = nil
				}
			}
		}
	case len(floats) == int(n) && isFloat(t.DataType):
		t.Floats = floats
	case len(ints) == int(n) && (t.DataType == TypeFloat16 || t.DataType == TypeBFloat16):
		t.Floats = make([]float64, n)
		for i, b := range ints {
			t.Floats[i] = halfToFloat(t.DataType, uint16(b))
		}
	}
	return t, nil
}

// elements multiplies dims; false on overflow.
func elements(dims []int64) (int64, bool) {
	n := int64(1)
	for _, d := range dims {
		if d < 0 || d > 0 && n > math.MaxInt64/d {
			return 0, false
		}
		n *= d
	}
	return n, true
}

func appendInts(dst *[]int64, typ protowire.Type, v []byte, x uint64, limit int) error {
	if typ == protowire.VarintType {
		if len(*dst) < limit {
			*dst = append(*dst, int64(x))
		}
		return nil
	}
	if typ != protowire.BytesType {
		return nil
	}
	for len(v) > 0 {
		y, n := protowire.ConsumeVarint(v)
		if n < 0 {
			return protowire.ParseError(n)
		}
		v = v[n:]
		if len(*dst) < limit {
			*dst = append(*dst, int64(y))
		}
	}
	return nil
}

func appendFloats(dst *[]float64, typ protowire.Type, v []byte, x uint64, width int) error {
	conv := func(u uint64) float64 {
		if width == 4 {
			return float64(math.Float32frombits(uint32(u)))
		}
		return math.Float64frombits(u)
	}
	switch typ {
	case protowire.Fixed32Type, protowire.Fixed64Type:
		if len(*dst) <= maxValues {
			*dst = append(*dst, conv(x))
		}
	case protowire.BytesType:
		if len(v)%width != 0 {
			return fmt.Errorf("packed floats of %d bytes", len(v))
		}
		for i := 0; i+width <= len(v) && len(*dst) <= maxValues; i += width {
			if width == 4 {
				*dst = append(*dst, conv(uint64(le32(v[i:]))))
			} else {
				*dst = append(*dst, conv(le64(v[i:])))
			}
		}
	}
	return nil
}

// walk calls f for every field of a protobuf message; v holds a
// length-delimited field's bytes, x a scalar field's value. Groups are
// skipped.
func walk(b []byte, f func(num protowire.Number, typ protowire.Type, v []byte, x uint64) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		var v []byte
		var x uint64
		switch typ {
		case protowire.VarintType:
			x, n = protowire.ConsumeVarint(b)
		case protowire.Fixed32Type:
			var y uint32
			y, n = protowire.ConsumeFixed32(b)
			x = uint64(y)
		case protowire.Fixed64Type:
			x, n = protowire.ConsumeFixed64(b)
		case protowire.BytesType:
			v, n = protowire.ConsumeBytes(b)
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
			if n < 0 {
				return protowire.ParseError(n)
			}
			b = b[n:]
			continue
		}
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		if err := f(num, typ, v, x); err != nil {
			return err
		}
	}
	return nil
}

func le32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

func le64(b []byte) uint64 { return uint64(le32(b)) | uint64(le32(b[4:]))<<32 }

func unwrap(err error) string {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err.Error()
	}
	return err.Error()
}
