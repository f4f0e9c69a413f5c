package executorch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"strconv"

	"github.com/optalloc/optalloc/formats"
	"github.com/optalloc/optalloc/internal/jsonpos"
	"github.com/optalloc/optalloc/model"
)

func init() {
	formats.RegisterSniffer(Sniff, readProblem)
	formats.RegisterJSONSniffer(Sniff, readProblem)
}

// MaxMemID is the largest mem_id accepted: a mem_id indexes the program's
// planned buffers, and bufsizes has an entry for every id up to the
// largest.
const MaxMemID = 255

// Key is the one top-level key of a specs file.
const Key = "executorch"

// File is a specs file: what ExecuTorch passes its planner.
type File struct {
	// Name is the file's name, used in messages.
	Name         string
	Alignment    int64
	ExtraPadding int64
	// InputMemBufferSizes is graph_module.input_mem_buffer_sizes (nil
	// when absent): planning in mem_id k starts at its entry k.
	InputMemBufferSizes []int64
	Specs               []Spec
	// Plan is the plan the file carries (a written plan: "bufsizes" and
	// each spec's mem_id, mem_obj_id and mem_offset); nil for specs alone.
	Plan *Plan
}

// Spec is one tensor spec.
type Spec struct {
	ID string
	// Size is allocated_memory, rounded up to the alignment.
	Size int64
	// First and Last are the inclusive lifetime.
	First, Last int64
	// MemID is the spec's mem_id (1 when the file gives none). A view
	// takes its base's.
	MemID int64
	// Base is the index of the storage_base spec, -1 for none.
	Base int
	// BaseOffset is storage_base_offset.
	BaseOffset int64
	// Line is the line of the spec in the file.
	Line int

	placed [2]*json.Number // a plan's mem_obj_id and mem_offset, until readPlan
}

type jsonFile struct {
	Alignment           *json.Number    `json:"alignment"`
	ExtraPadding        *json.Number    `json:"extra_padding"`
	InputMemBufferSizes []json.Number   `json:"input_mem_buffer_sizes"`
	Specs               json.RawMessage `json:"specs"`
	BufSizes            json.RawMessage `json:"bufsizes"` // a plan's
}

type jsonSpec struct {
	ID                *string       `json:"id"`
	Size              *json.Number  `json:"size"`
	Lifetime          []json.Number `json:"lifetime"`
	MemID             *json.Number  `json:"mem_id"`
	StorageBase       *string       `json:"storage_base"`
	StorageBaseOffset *json.Number  `json:"storage_base_offset"`
	MemObjID          *json.Number  `json:"mem_obj_id"` // a plan's
	MemOffset         *json.Number  `json:"mem_offset"` // a plan's
}

// Sniff reports whether data is a JSON object whose first key is
// "executorch" (a byte order mark and white space skipped).
func Sniff(data []byte) bool {
	data = bytes.TrimLeft(bytes.TrimPrefix(data, []byte("\ufeff")), " \t\r\n")
	if len(data) == 0 || data[0] != '{' {
		return false
	}
	data = bytes.TrimLeft(data[1:], " \t\r\n")
	return bytes.HasPrefix(data, []byte(`"`+Key+`"`))
}

// SniffFile reports whether the file at path is a specs file (Sniff on
// its first 4 KiB); false when it cannot be read.
func SniffFile(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 4096)
	n, _ := io.ReadFull(f, head)
	return Sniff(head[:n])
}

// ReadFile reads the specs file at path.
func ReadFile(path string) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, &model.InputError{File: path, Msg: "cannot open: " + err.Error()}
	}
	defer f.Close()
	return Read(f, path)
}

// readProblem is Read then the specs' problem: the formats.Reader.
func readProblem(r io.Reader, name string) (*model.Problem, error) {
	f, err := Read(r, name)
	if err != nil {
		return nil, err
	}
	return f.Arena().Problem, nil
}

// Read reads a specs file. Malformed input (a missing or unknown field, a
// negative size, offset or padding, a mem_id outside 1..255, a lifetime
// reversed, a storage_base that does not exist, is the spec itself or
// forms a cycle, a view that passes the end of its base) is a
// *model.InputError naming the line, the spec and the field.
func Read(r io.Reader, name string) (*File, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, &model.InputError{File: name, Msg: err.Error()}
	}
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	fail := func(line int, format string, args ...any) error {
		return &model.InputError{File: name, Line: line, Msg: fmt.Sprintf(format, args...)}
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, fail(lineOfError(data, err), "%s", jsonMsg(err))
	}
	for k := range top {
		if k != Key {
			return nil, fail(0, "unknown field %q: a specs file is one object {%q: {...}}", k, Key)
		}
	}
	body, ok := top[Key]
	if !ok {
		return nil, fail(0, "missing field %q", Key)
	}
	base := int64(bytes.Index(data, body)) // the body's offset, for lines
	var jf jsonFile
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&jf); err != nil {
		return nil, fail(lineOfError(data, err), "%s: %s", Key, jsonMsg(err))
	}
	f := &File{Name: name, Alignment: 1}
	if jf.Alignment != nil {
		if f.Alignment, err = intOf(*jf.Alignment, "alignment", 1, model.MaxAlign); err != nil {
			return nil, fail(0, "%v", err)
		}
	}
	if jf.ExtraPadding != nil {
		if f.ExtraPadding, err = intOf(*jf.ExtraPadding, "extra_padding", 0, maxBytes); err != nil {
			return nil, fail(0, "%v", err)
		}
	}
	if jf.InputMemBufferSizes != nil {
		f.InputMemBufferSizes = make([]int64, len(jf.InputMemBufferSizes))
		for k, v := range jf.InputMemBufferSizes {
			if f.InputMemBufferSizes[k], err = intOf(v, fmt.Sprintf("input_mem_buffer_sizes[%d]", k), 0, maxBytes); err != nil {
				return nil, fail(0, "%v", err)
			}
		}
	}
	if err := f.readSpecs(data, base, body, jf.Specs, fail); err != nil {
		return nil, err
	}
	if jf.BufSizes != nil {
		if err := f.readPlan(jf.BufSizes, fail); err != nil {
			return nil, err
		}
	}
	for i := range f.Specs {
		f.Specs[i].placed = [2]*json.Number{}
	}
	return f, nil
}

// readPlan reads the plan of a written file: bufsizes and every spec's
// mem_obj_id and mem_offset (its mem_id is the one read).
func (f *File) readPlan(raw json.RawMessage, fail func(int, string, ...any) error) error {
	var sizes []json.Number
	if err := json.Unmarshal(raw, &sizes); err != nil {
		return fail(0, "bufsizes: %s", jsonMsg(err))
	}
	pl := &Plan{BufSizes: make([]int64, len(sizes)), Specs: make([]Placement, len(f.Specs))}
	for k, v := range sizes {
		var err error
		if pl.BufSizes[k], err = intOf(v, fmt.Sprintf("bufsizes[%d]", k), 0, maxBytes); err != nil {
			return fail(0, "%v", err)
		}
	}
	for i, s := range f.Specs {
		if s.placed[0] == nil || s.placed[1] == nil {
			return fail(s.Line, "spec %s: a plan (the file has bufsizes) gives every spec a mem_obj_id and a mem_offset", model.Quote(s.ID))
		}
		obj, err := intOf(*s.placed[0], "mem_obj_id", 0, maxBytes)
		if err != nil {
			return fail(s.Line, "spec %s: %v", model.Quote(s.ID), err)
		}
		off, err := intOf(*s.placed[1], "mem_offset", 0, maxBytes)
		if err != nil {
			return fail(s.Line, "spec %s: %v", model.Quote(s.ID), err)
		}
		pl.Specs[i] = Placement{MemID: s.MemID, MemObjID: obj, MemOffset: off}
	}
	f.Plan = pl
	return nil
}

// maxBytes bounds every size, offset and padding (2^50, a petabyte):
// their sums stay far inside int64.
const maxBytes = 1 << 50

// readSpecs decodes the specs array, its elements one by one for their
// lines, then checks their references.
func (f *File) readSpecs(data []byte, base int64, body, raw json.RawMessage, fail func(int, string, ...any) error) error {
	if raw == nil {
		return fail(0, "%s: missing field %q", Key, "specs")
	}
	off := base + int64(bytes.Index(body, raw))
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('[') {
		return fail(jsonpos.LineAt(data, off), "specs must be an array")
	}
	var js []jsonSpec
	for dec.More() {
		start := jsonpos.SkipSpace(raw, dec.InputOffset())
		at := off + start
		var s jsonSpec
		d := json.NewDecoder(bytes.NewReader(raw[start:]))
		d.DisallowUnknownFields()
		if err := d.Decode(&s); err != nil {
			return fail(jsonpos.LineAt(data, jsonpos.SkipSpace(data, at)), "spec %d: %s", len(js)+1, jsonMsg(err))
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return fail(jsonpos.LineAt(data, at), "spec %d: %s", len(js)+1, jsonMsg(err))
		}
		js = append(js, s)
		f.Specs = append(f.Specs, Spec{Line: jsonpos.LineAt(data, jsonpos.SkipSpace(data, at)), Base: -1})
	}
	index := make(map[string]int, len(js))
	for i := range js {
		s, fs := &js[i], &f.Specs[i]
		bad := func(format string, args ...any) error {
			who := fmt.Sprintf("spec %d", i+1)
			if s.ID != nil {
				who = "spec " + model.Quote(*s.ID)
			}
			return fail(fs.Line, "%s: %s", who, fmt.Sprintf(format, args...))
		}
		if s.ID == nil || *s.ID == "" {
			return bad("missing field %q (id, size and lifetime are required)", "id")
		}
		fs.ID = *s.ID
		if j, dup := index[fs.ID]; dup {
			return bad("duplicate id (first on line %d)", f.Specs[j].Line)
		}
		index[fs.ID] = i
		if s.Size == nil {
			return bad("missing field %q (id, size and lifetime are required)", "size")
		}
		size, err := intOf(*s.Size, "size", 0, maxBytes)
		if err != nil {
			return bad("%v", err)
		}
		fs.Size = (size + f.Alignment - 1) / f.Alignment * f.Alignment
		if s.Lifetime == nil {
			return bad("missing field %q (id, size and lifetime are required)", "lifetime")
		}
		if len(s.Lifetime) != 2 {
			return bad("lifetime must be [first, last], not %d values", len(s.Lifetime))
		}
		if fs.First, err = intOf(s.Lifetime[0], "lifetime[0]", 0, maxBytes); err != nil {
			return bad("%v", err)
		}
		if fs.Last, err = intOf(s.Lifetime[1], "lifetime[1]", 0, maxBytes); err != nil {
			return bad("%v", err)
		}
		if fs.Last < fs.First {
			return bad("lifetime[1] %d is before lifetime[0] %d: a lifetime is [first, last], both inclusive", fs.Last, fs.First)
		}
		fs.MemID = 1
		if s.MemID != nil {
			if fs.MemID, err = intOf(*s.MemID, "mem_id", 1, MaxMemID); err != nil {
				return bad("%v (None means 1)", err)
			}
		}
		fs.placed = [2]*json.Number{s.MemObjID, s.MemOffset}
		if s.StorageBaseOffset != nil {
			if fs.BaseOffset, err = intOf(*s.StorageBaseOffset, "storage_base_offset", 0, maxBytes); err != nil {
				return bad("%v", err)
			}
		}
	}
	for i := range js {
		s, fs := &js[i], &f.Specs[i]
		bad := func(format string, args ...any) error {
			return fail(fs.Line, "spec %s: %s", model.Quote(fs.ID), fmt.Sprintf(format, args...))
		}
		if s.StorageBase == nil {
			if fs.BaseOffset != 0 {
				return bad("storage_base_offset %d without a storage_base", fs.BaseOffset)
			}
			continue
		}
		j, ok := index[*s.StorageBase]
		switch {
		case !ok:
			return bad("storage_base %s is not a spec of the file", model.Quote(*s.StorageBase))
		case j == i:
			return bad("storage_base is the spec itself")
		}
		fs.Base = j
		if b := &f.Specs[j]; fs.BaseOffset+fs.Size > b.Size {
			return bad("its %d bytes at storage_base_offset %d pass the end of its storage_base %s (%d bytes)", fs.Size, fs.BaseOffset, model.Quote(b.ID), b.Size)
		}
	}
	for i := range f.Specs { // cycles
		seen := 0
		for j := i; f.Specs[j].Base >= 0; j = f.Specs[j].Base {
			if seen++; seen > len(f.Specs) {
				return fail(f.Specs[i].Line, "spec %s: its storage_base specs form a cycle", model.Quote(f.Specs[i].ID))
			}
		}
	}
	return nil
}

// intOf reads n as an integer in [lo, hi].
func intOf(n json.Number, what string, lo, hi int64) (int64, error) {
	if n == "" {
		return 0, fmt.Errorf("%s must be an integer, not null", what)
	}
	v, err := strconv.ParseInt(string(n), 10, 64)
	if err != nil {
		if _, ferr := strconv.ParseFloat(string(n), 64); ferr == nil && !isIntText(string(n)) {
			return 0, fmt.Errorf("%s must be an integer, not %s", what, n)
		}
		return 0, fmt.Errorf("%s %s is out of range (%d to %d)", what, n, lo, hi)
	}
	if v < lo || v > hi {
		if v < 0 && lo == 0 {
			return 0, fmt.Errorf("%s %d is negative", what, v)
		}
		return 0, fmt.Errorf("%s must be between %d and %d, not %d", what, lo, hi, v)
	}
	return v, nil
}

// isIntText reports whether s is written as an integer (digits, a sign).
func isIntText(s string) bool {
	for i, c := range s {
		if !(c >= '0' && c <= '9' || i == 0 && c == '-') {
			return false
		}
	}
	return s != ""
}

func jsonMsg(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		want := te.Type.String()
		switch te.Type.Kind() {
		case reflect.String:
			want = "a number" // json.Number
			if te.Type.Name() == "string" {
				want = "a string"
			}
		case reflect.Slice:
			want = "an array"
		case reflect.Struct, reflect.Map:
			want = "an object"
		}
		if te.Field == "" {
			return fmt.Sprintf("expected %s, got JSON %s", want, te.Value)
		}
		return fmt.Sprintf("field %s: expected %s, got JSON %s", te.Field, want, te.Value)
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return "unexpected end of file (is a bracket or brace missing?)"
	}
	msg := err.Error()
	if len(msg) > 5 && msg[:6] == "json: " {
		msg = msg[6:]
	}
	return msg
}

// lineOfError is the line of a JSON syntax error (0 when unknown).
func lineOfError(data []byte, err error) int {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return jsonpos.LineAt(data, se.Offset)
	}
	return 0
}
