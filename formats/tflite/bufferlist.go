package tflite

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/optalloc/optalloc/model"
)

// ReadBufferList reads the scratch requests of a target's kernel library
// from a buffer list recorded on that target, in the CSV form
// `tflm_run --dump-buffers` writes: a header `id,lower,upper,size`, then
// one row per buffer TFLite Micro's planner got, in the order it got them
// — the tensors first (ids `tSG_IDX`), then the scratch requests (ids
// `sK`) — with TFLite Micro's inclusive lifetimes [first, last] written as
// lower = first+1, upper = last+2 and sizes rounded up to 16. Other ids
// (a device's recording, docs/tflite.md) are read by position. The tensor
// rows are checked against the model (a list recorded from another model is
// an error naming the first row that differs); the scratch rows are
// returned.
func ReadBufferList(path string, m *Model) ([]ScratchRequest, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &model.InputError{File: path, Msg: "cannot open: " + unwrapPath(err)}
	}
	defer f.Close()
	return DecodeBufferList(f, path, m)
}

// DecodeBufferList is ReadBufferList on a reader.
func DecodeBufferList(r io.Reader, name string, m *Model) ([]ScratchRequest, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	fail := func(line int, format string, args ...any) error {
		return &model.InputError{File: name, Line: line, Msg: fmt.Sprintf(format, args...)}
	}
	col := map[string]int{}
	var out []ScratchRequest
	planned := m.plannedTensors()
	row := 0
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return nil, fail(pe.Line, "%v", pe.Err)
			}
			return nil, fail(0, "cannot read: %v", err)
		}
		line, _ := cr.FieldPos(0)
		if len(col) == 0 {
			for i, h := range rec {
				col[strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))] = i
			}
			for _, h := range []string{"id", "lower", "upper", "size"} {
				if _, ok := col[h]; !ok {
					return nil, fail(line, "header has no %q column (want id,lower,upper,size as tflm_run --dump-buffers writes)", h)
				}
			}
			continue
		}
		field := func(h string) string {
			if i := col[h]; i < len(rec) {
				return strings.TrimSpace(rec[i])
			}
			return ""
		}
		var v [3]int64
		for k, h := range []string{"lower", "upper", "size"} {
			if v[k], err = strconv.ParseInt(field(h), 10, 64); err != nil || v[k] < 0 && h == "size" {
				return nil, fail(line, "%s %q is not a non-negative integer", h, field(h))
			}
		}
		lower, upper, size := v[0], v[1], v[2]
		if upper < lower || lower < 0 || upper > int64(m.Ops)+2 {
			return nil, fail(line, "lifetime [%d, %d) does not fit the model's %d operator scopes", lower, upper, m.Ops)
		}
		if upper == lower {
			return nil, fail(line, "lifetime [%d, %d) is empty (TFLite Micro writes upper = last+2 > lower = first+1)", lower, upper)
		}
		if size > maxScratch {
			return nil, fail(line, "size %d is more than any arena holds (at most %d)", size, int64(maxScratch))
		}
		id := field("id")
		if row < len(planned) {
			// The first rows are the tensors, in global order.
			if err := m.checkTensorRow(planned[row], id, lower, upper, size); err != nil {
				return nil, fail(line, "%v: the list was recorded from another model", err)
			}
		} else {
			k := row - len(planned)
			if strings.HasPrefix(id, "t") {
				return nil, fail(line, "row %q: the model has %d tensors TFLite Micro plans, this is one more: the list was recorded from another model", id, len(planned))
			}
			if strings.HasPrefix(id, "s") && id != "s"+strconv.Itoa(k) {
				return nil, fail(line, "scratch row %q: want s%d (scratch rows in request order)", id, k)
			}
			out = append(out, ScratchRequest{Bytes: size, Node: -1, Subgraph: -1, Op: "recorded", First: int(lower) - 1, Last: int(upper) - 2})
		}
		row++
	}
	if len(col) == 0 {
		return nil, fail(0, "empty: want the header id,lower,upper,size and a row per buffer")
	}
	if row < len(planned) {
		return nil, fail(0, "%d rows, the model has %d tensors TFLite Micro plans: the list was recorded from another model", row, len(planned))
	}
	if out == nil {
		out = []ScratchRequest{}
	}
	return out, nil
}

// checkTensorRow checks a recorded tensor row against the model's tensor i
// (its id, when of the form tSG_IDX, must name that tensor).
func (m *Model) checkTensorRow(i int, id string, lower, upper, size int64) error {
	t := &m.Tensors[i]
	if want := fmt.Sprintf("t%d_%d", t.Subgraph, t.Local); strings.HasPrefix(id, "t") && id != want {
		return fmt.Errorf("row %q where tensor %s (%q) comes", id, want, t.Name)
	}
	if lower != int64(t.First)+1 || upper != int64(t.Last)+2 || size != alignUp(t.Bytes) {
		return fmt.Errorf("tensor t%d_%d (%q) is [%d, %d) of %d bytes here, [%d, %d) of %d in the list", t.Subgraph, t.Local, t.Name,
			t.First+1, t.Last+2, alignUp(t.Bytes), lower, upper, size)
	}
	return nil
}

// plannedTensors lists the tensors TFLite Micro's planner gets, in the
// order it gets them: planned ones of a non-zero size, in global order.
func (m *Model) plannedTensors() []int {
	var out []int
	for i := range m.Tensors {
		if t := &m.Tensors[i]; t.Planned() && t.Bytes != 0 {
			out = append(out, i)
		}
	}
	return out
}
