package graph

import (
	"fmt"
	"slices"
	"strings"

	"github.com/optalloc/optalloc/model"
)

// tinfo is what Build knows about one tensor of a model.
type tinfo struct {
	t        *Tensor
	kind     model.Kind
	bytes    int64 // exact: product(shape) × width, or Bytes
	size     int64 // rounded up to the alignment
	width    int64 // element width, 0 when only Bytes is known
	producer int   // op index, -1 for inputs and weights
	lastUse  int   // op index of the last consumer, -1 when unused
	firstUse int
	start    int64 // local lifetime [start, end) in op steps
	end      int64
	parent   int // alias parent (tensor index), -1 for none
	delta    int64
}

// minfo is a checked model.
type minfo struct {
	m       *Model
	name    string
	prefix  string // "name/" when there are several models
	tensors []tinfo
	byName  map[string]int
	steps   int64
	live    []bool // tensor gets a buffer
	made    []made // alias decisions in order
}

func (b *builder) errf(line int, format string, args ...any) error {
	return &model.InputError{File: b.file, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// checkModel checks names, sizes, kinds and the order of the ops, and
// records producers and uses.
func (b *builder) checkModel(m *Model, name string) (*minfo, error) {
	mi := &minfo{m: m, name: name, byName: make(map[string]int, len(m.Tensors)), steps: int64(len(m.Ops))}
	where := ""
	if b.several {
		where = fmt.Sprintf("model %q: ", name)
		mi.prefix = name + "/"
	}
	if len(m.Ops) == 0 {
		return nil, b.errf(m.Line, "%shas no ops", where)
	}
	mi.tensors = make([]tinfo, len(m.Tensors))
	for i := range m.Tensors {
		t := &m.Tensors[i]
		ti := &mi.tensors[i]
		*ti = tinfo{t: t, producer: -1, lastUse: -1, firstUse: -1, parent: -1}
		if t.Name == "" {
			return nil, b.errf(t.Line, "%stensor %d has no name", where, i+1)
		}
		// Insert and see whether the map grew: one hash instead of two.
		n := len(mi.byName)
		if mi.byName[t.Name] = i; len(mi.byName) == n {
			j := slices.IndexFunc(m.Tensors, func(u Tensor) bool { return u.Name == t.Name })
			return nil, b.errf(t.Line, "%stensor %q is defined twice (first on line %d)", where, t.Name, m.Tensors[j].Line)
		}
		if err := b.tensorSize(t, ti, where); err != nil {
			return nil, err
		}
	}
	opNames := make(map[string]int, len(m.Ops))
	for i := range m.Ops {
		o := &m.Ops[i]
		if o.Name == "" {
			return nil, b.errf(o.Line, "%sop %d has no name", where, i+1)
		}
		n := len(opNames)
		if opNames[o.Name] = i; len(opNames) == n {
			j := slices.IndexFunc(m.Ops, func(u Op) bool { return u.Name == o.Name })
			return nil, b.errf(o.Line, "%sop %q is defined twice (first on line %d)", where, o.Name, m.Ops[j].Line)
		}
		if o.Type == "" {
			return nil, b.errf(o.Line, "%sop %q has no type", where, o.Name)
		}
		var seen map[string]bool // for long lists; short ones are searched
		if len(o.Outputs) > 16 {
			seen = make(map[string]bool, len(o.Outputs))
		}
		for j, out := range o.Outputs {
			k, ok := mi.byName[out]
			if !ok {
				return nil, b.errf(o.Line, "%sop %q: output %q is not a declared tensor", where, o.Name, out)
			}
			if seen[out] || seen == nil && slices.Contains(o.Outputs[:j], out) {
				return nil, b.errf(o.Line, "%sop %q lists output %q twice", where, o.Name, out)
			}
			if seen != nil {
				seen[out] = true
			}
			ti := &mi.tensors[k]
			if ti.kind == model.Input || constant(ti.kind) {
				return nil, b.errf(o.Line, "%sop %q produces %q, which is a graph %s (only activations and outputs are produced by ops)", where, o.Name, out, ti.kind)
			}
			if ti.producer >= 0 {
				return nil, b.errf(o.Line, "%stensor %q is produced twice: by op %q (line %d) and op %q", where, out, m.Ops[ti.producer].Name, m.Ops[ti.producer].Line, o.Name)
			}
			ti.producer = i
		}
	}
	if b.order != OrderGiven && (b.order == OrderDepthFirst || needsOrder(mi)) && reorder(mi, b.order == OrderDepthFirst) {
		m = mi.m
		b.rep.Reordered = append(b.rep.Reordered, name)
	}
	for i := range m.Ops {
		o := &m.Ops[i]
		for _, in := range o.Inputs {
			k, ok := mi.byName[in]
			if !ok {
				return nil, b.errf(o.Line, "%sop %q: unknown tensor %q", where, o.Name, in)
			}
			ti := &mi.tensors[k]
			switch {
			case ti.kind == model.Input || constant(ti.kind):
			case ti.producer < 0:
				return nil, b.errf(o.Line, "%sop %q uses tensor %q, which no op produces (declare it kind \"input\" or \"weight\", or add its producer)", where, o.Name, in)
			case ti.producer == i:
				return nil, b.errf(o.Line, "%scycle: op %q uses its own output %q", where, o.Name, in)
			case ti.producer > i:
				p := &m.Ops[ti.producer]
				if path := opPath(mi, i, ti.producer); path != nil {
					return nil, b.errf(o.Line, "%scycle: op %q needs %q from op %q (line %d), which depends on op %q through %s", where, o.Name, in, p.Name, p.Line, o.Name, strings.Join(path, " → "))
				}
				return nil, b.errf(o.Line, "%sop %q uses tensor %q before it is produced by op %q (line %d): list the ops in execution order, or leave out \"order\": \"given\" to have one derived", where, o.Name, in, p.Name, p.Line)
			}
			if ti.firstUse < 0 {
				ti.firstUse = i
			}
			ti.lastUse = i
		}
	}
	for k := range mi.tensors {
		ti := &mi.tensors[k]
		if ti.kind == model.Output && ti.producer < 0 {
			return nil, b.errf(ti.t.Line, "%sgraph output %q is never produced", where, ti.t.Name)
		}
	}
	return mi, nil
}

// tensorSize checks a tensor's kind and size fields.
func (b *builder) tensorSize(t *Tensor, ti *tinfo, where string) error {
	switch strings.ToLower(t.Kind) {
	case "", "activation":
		ti.kind = model.Activation
	case "input":
		ti.kind = model.Input
	case "output":
		ti.kind = model.Output
	case "weight", "constant", "parameter":
		ti.kind = model.Weight
	case "code", "instructions":
		ti.kind = model.Code
	default:
		return b.errf(t.Line, "%stensor %q: unknown kind %q (want input, output, weight, code or activation)", where, t.Name, t.Kind)
	}
	if (t.Hash != "" || t.Data != "") && !constant(ti.kind) {
		return b.errf(t.Line, "%stensor %q: hash and data are only for weights and code", where, t.Name)
	}
	if t.Bytes != nil && *t.Bytes < 0 {
		return b.errf(t.Line, "%stensor %q: bytes %d is negative", where, t.Name, *t.Bytes)
	}
	if t.DType != "" {
		w, ok := DTypeWidth(t.DType)
		if !ok {
			return b.errf(t.Line, "%stensor %q: unknown dtype %q (want float32, float16, bfloat16, int8, uint8, int32, int64, ...)", where, t.Name, t.DType)
		}
		ti.width = w
	}
	switch {
	case t.Shape != nil && t.DType != "":
		n := ti.width
		for _, d := range t.Shape {
			if d < 0 {
				return b.errf(t.Line, "%stensor %q: dimension %d is negative", where, t.Name, d)
			}
			if d > 0 && n > (1<<62)/d {
				return b.errf(t.Line, "%stensor %q: shape %v is too large", where, t.Name, t.Shape)
			}
			n *= d
		}
		if t.Bytes != nil && *t.Bytes != n {
			return b.errf(t.Line, "%stensor %q: bytes %d disagrees with shape %v × %s = %d", where, t.Name, *t.Bytes, t.Shape, t.DType, n)
		}
		ti.bytes = n
	case t.Bytes != nil:
		ti.bytes = *t.Bytes
	case t.Shape != nil:
		return b.errf(t.Line, "%stensor %q: missing dtype (give dtype with the shape, or bytes)", where, t.Name)
	default:
		return b.errf(t.Line, "%stensor %q: missing size (give shape and dtype, or bytes)", where, t.Name)
	}
	if ti.bytes > 1<<52 {
		return b.errf(t.Line, "%stensor %q: %d bytes is too large", where, t.Name, ti.bytes)
	}
	ti.size = alignUp(ti.bytes, b.align)
	return nil
}

// opPath returns op names on a dependency path from op from to op to (from
// produces something that, transitively, op to consumes), or nil.
func opPath(mi *minfo, from, to int) []string {
	ops := mi.m.Ops
	prev := map[int]int{from: -1}
	queue := []int{from}
	for len(queue) > 0 {
		i := queue[0]
		queue = queue[1:]
		if i == to {
			var path []string
			for j := to; j >= 0; j = prev[j] {
				path = append([]string{ops[j].Name}, path...)
			}
			return path
		}
		outs := map[string]bool{}
		for _, o := range ops[i].Outputs {
			outs[o] = true
		}
		for j := range ops {
			if _, seen := prev[j]; seen {
				continue
			}
			for _, in := range ops[j].Inputs {
				if outs[in] {
					prev[j] = i
					queue = append(queue, j)
					break
				}
			}
		}
	}
	return nil
}
