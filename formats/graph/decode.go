package graph

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/optalloc/optalloc/model"
)

// decoder walks a .graph.json document token by token so that every model,
// tensor and op knows the line it starts on.
type decoder struct {
	name string
	data []byte
	nl   []int64 // offsets of the newlines, for line numbers
	dec  *json.Decoder
}

// lineAt returns the 1-based line of byte offset off.
func (d *decoder) lineAt(off int64) int {
	return sort.Search(len(d.nl), func(i int) bool { return d.nl[i] >= off }) + 1
}

func (d *decoder) failAt(off int64, format string, args ...any) error {
	return &model.InputError{File: d.name, Line: d.lineAt(off), Msg: fmt.Sprintf(format, args...)}
}

func (d *decoder) fail(format string, args ...any) error {
	return d.failAt(d.dec.InputOffset(), format, args...)
}

// Decode reads a .graph.json document without checking the graph (Build
// does that). Errors are *model.InputError with the line of the problem.
func Decode(r io.Reader, name string) (*File, error) {
	data, err := readAll(r)
	if err != nil {
		return nil, &model.InputError{File: name, Msg: err.Error()}
	}
	data = bytes.TrimPrefix(data, []byte("\ufeff")) // a byte order mark from some editors
	if f, ok := fastDecode(data); ok {
		return f, nil
	}
	return decodeSlow(data, name)
}

// decodeSlow reads data with encoding/json. It is the reference: it
// handles every form the format allows (escaped strings, null, numbers
// like 1e3, ...) and gives the messages of bad documents; fastDecode
// handles the common forms and leaves the rest to it.
func decodeSlow(data []byte, name string) (*File, error) {
	d := &decoder{name: name, data: data, dec: json.NewDecoder(bytes.NewReader(data))}
	for i, c := range data {
		if c == '\n' {
			d.nl = append(d.nl, int64(i))
		}
	}
	d.dec.DisallowUnknownFields()
	f := &File{}
	if err := d.object("a JSON object with \"models\" (or \"tensors\" and \"ops\")", func(key string, off int64) error {
		switch key {
		case "format":
			return d.value(key, &f.Format)
		case "comment":
			return d.value(key, &f.Comment)
		case "name":
			return d.value(key, &f.Name)
		case "alignment":
			return d.value(key, &f.Alignment)
		case "liveness":
			return d.value(key, &f.Liveness)
		case "in_place":
			return d.value(key, &f.InPlace)
		case "order":
			return d.value(key, &f.Order)
		case "schedule":
			f.scheduleLine = d.lineAt(skipSpace(data, d.dec.InputOffset()))
			return d.value(key, &f.Schedule)
		case "models":
			return d.array(key, func(off int64) error {
				var m Model
				m.Line = d.lineAt(off)
				err := d.object("a model object", func(key string, _ int64) error {
					switch key {
					case "name":
						return d.value(key, &m.Name)
					case "comment":
						return d.value(key, &m.Comment)
					case "tensors":
						return d.tensors(&m.Tensors)
					case "ops":
						return d.ops(&m.Ops)
					case "reload_weights":
						return d.value(key, &m.ReloadWeights)
					}
					return d.fail("model: unknown field %q (want name, tensors, ops, reload_weights, comment)", key)
				})
				f.Models = append(f.Models, m)
				return err
			})
		case "tensors":
			return d.tensors(&f.Tensors)
		case "ops":
			return d.ops(&f.Ops)
		}
		return d.fail("unknown field %q (want models, schedule, alignment, liveness, in_place, order, name, tensors, ops, comment)", key)
	}); err != nil {
		return nil, err
	}
	if _, err := d.dec.Token(); err != io.EOF {
		return nil, d.fail("unexpected data after the top-level object")
	}
	return f, nil
}

// object reads {"key": value, ...}, calling field for each key with the
// decoder positioned before the value.
func (d *decoder) object(what string, field func(key string, off int64) error) error {
	off := skipSpace(d.data, d.dec.InputOffset())
	if t, err := d.dec.Token(); err != nil || t != json.Delim('{') {
		return d.failAt(off, "expected %s", what)
	}
	for d.dec.More() {
		t, err := d.dec.Token()
		if err != nil {
			return d.fail("%s", jsonMsg(err))
		}
		key, ok := t.(string)
		if !ok {
			return d.fail("expected a field name")
		}
		if err := field(key, off); err != nil {
			return err
		}
	}
	if _, err := d.dec.Token(); err != nil {
		return d.fail("%s", jsonMsg(err))
	}
	return nil
}

// array reads [elem, ...], calling elem with the offset of each element.
func (d *decoder) array(key string, elem func(off int64) error) error {
	if t, err := d.dec.Token(); err != nil || t != json.Delim('[') {
		return d.fail("%s must be an array", key)
	}
	for d.dec.More() {
		if err := elem(skipSpace(d.data, d.dec.InputOffset())); err != nil {
			return err
		}
	}
	if _, err := d.dec.Token(); err != nil {
		return d.fail("%s", jsonMsg(err))
	}
	return nil
}

func (d *decoder) value(key string, v any) error {
	off := skipSpace(d.data, d.dec.InputOffset())
	if err := d.dec.Decode(v); err != nil {
		return d.failAt(off, "%s: %s", key, jsonMsg(err))
	}
	return nil
}

func (d *decoder) tensors(dst *[]Tensor) error {
	return elements(d, "tensors", "tensor", dst, func(t *Tensor, line int) { t.Line = line })
}

func (d *decoder) ops(dst *[]Op) error {
	return elements(d, "ops", "op", dst, func(o *Op, line int) { o.Line = line })
}

// elements decodes the array key into dst, each element (named what in
// messages) told the line it starts on.
func elements[T any](d *decoder, key, what string, dst *[]T, setLine func(*T, int)) error {
	return d.array(key, func(off int64) error {
		var e T
		if err := d.dec.Decode(&e); err != nil {
			return d.failAt(off, "%s %d: %s", what, len(*dst)+1, jsonMsg(err))
		}
		setLine(&e, d.lineAt(off))
		*dst = append(*dst, e)
		return nil
	})
}

// readAll is io.ReadAll with the buffer sized up front when r knows its
// length (a bytes.Reader, a regular file): growing it cost a tenth of
// reading a large graph.
func readAll(r io.Reader) ([]byte, error) {
	size := 0
	switch r := r.(type) {
	case interface{ Len() int }:
		size = r.Len()
	case *os.File:
		if st, err := r.Stat(); err == nil && st.Mode().IsRegular() && st.Size() < 1<<40 {
			size = int(st.Size())
		}
	}
	if size <= 0 {
		return io.ReadAll(r)
	}
	buf := bytes.NewBuffer(make([]byte, 0, size+bytes.MinRead))
	_, err := buf.ReadFrom(r)
	return buf.Bytes(), err
}

func jsonMsg(err error) string {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return "unexpected end of file (is a bracket or brace missing?)"
	}
	if te, ok := err.(*json.UnmarshalTypeError); ok {
		return fmt.Sprintf("field %s: expected %s, got JSON %s", te.Field, te.Type, te.Value)
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

func skipSpace(data []byte, off int64) int64 {
	for off < int64(len(data)) {
		switch data[off] {
		case ' ', '\t', '\n', '\r', ',', ':':
			off++
		default:
			return off
		}
	}
	return off
}
