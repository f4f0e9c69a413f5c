package jsonfmt

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/optalloc/optalloc/internal/jsonpos"
	"github.com/optalloc/optalloc/model"
)

// JSONPool is a pool in the JSON problem format.
type JSONPool struct {
	Name     string `json:"name"`
	Capacity int64  `json:"capacity,omitempty"`
	Align    int64  `json:"align,omitempty"`
	Rank     int    `json:"rank,omitempty"`
}

// JSONGap is a gap in the JSON problem format: during [start, end) the
// buffer is absent, or occupies only bytes [lo, hi) of itself when window.
type JSONGap struct {
	Start  int64 `json:"start"`
	End    int64 `json:"end"`
	Window bool  `json:"window,omitempty"`
	Lo     int64 `json:"lo,omitempty"`
	Hi     int64 `json:"hi,omitempty"`
}

// JSONAlias is an alias in the JSON problem format.
type JSONAlias struct {
	Parent string `json:"parent"`
	Delta  int64  `json:"delta"`
}

// JSONBuffer is a buffer in the JSON problem format.
type JSONBuffer struct {
	ID              string     `json:"id"`
	Start           int64      `json:"start"`
	End             int64      `json:"end"`
	Size            int64      `json:"size"`
	Align           *int64     `json:"align,omitempty"`
	Offset          *int64     `json:"offset,omitempty"`
	Hint            *int64     `json:"hint,omitempty"`
	Pools           []string   `json:"pools,omitempty"`
	Kind            model.Kind `json:"kind,omitempty"`
	MaxSize         int64      `json:"max_size,omitempty"`
	Alias           *JSONAlias `json:"alias,omitempty"`
	Gaps            []JSONGap  `json:"gaps,omitempty"`
	Weight          float64    `json:"weight,omitempty"`
	LatencyCritical bool       `json:"latency_critical,omitempty"`
}

// Read reads a problem in the JSON format:
//
//	{"pools": [{"name": "sram", "capacity": 65536, "align": 64, "rank": 0}, ...],
//	 "buffers": [{"id": "a", "start": 0, "end": 3, "size": 4, ...}, ...]}
//
// Unknown fields are an error (they are usually typos). Errors carry the
// line of the offending buffer. The problem is validated.
func Read(r io.Reader, name string) (*model.Problem, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, &model.InputError{File: name, Msg: err.Error()}
	}
	data = bytes.TrimPrefix(data, utf8BOM)
	lines := &lineCounter{data: data, line: 1}
	fail := func(off int64, format string, args ...any) error {
		return &model.InputError{File: name, Line: jsonpos.LineAt(data, off), Msg: fmt.Sprintf(format, args...)}
	}
	if k, off, dup := duplicateKey(data); dup {
		// encoding/json would keep the last value silently.
		return nil, fail(int64(off), "duplicate key %s (each key once per object)", model.Quote(k))
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fail(dec.InputOffset(), "expected a JSON object with \"buffers\" (and optionally \"pools\")")
	}
	p := &model.Problem{Name: name}
	seen := false
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, fail(dec.InputOffset(), "%s", jsonMsg(err))
		}
		key, _ := t.(string)
		switch key {
		case "pools":
			var raws []json.RawMessage
			if err := dec.Decode(&raws); err != nil {
				return nil, fail(dec.InputOffset(), "pools: %v", jsonMsg(err))
			}
			for k, raw := range raws {
				var q JSONPool
				if err := decodeStrict(raw, &q); err != nil {
					return nil, fail(dec.InputOffset(), "pools: pool %d: %v", k+1, jsonMsg(err))
				}
				if m, ok := missingKey(raw, "name"); ok {
					return nil, fail(dec.InputOffset(), "pools: pool %d: missing field %q", k+1, m)
				}
			}
		case "buffers":
			seen = true
			if t, err := dec.Token(); err != nil || t != json.Delim('[') {
				return nil, fail(dec.InputOffset(), "buffers must be an array")
			}
			for dec.More() {
				off := dec.InputOffset()
				var jb JSONBuffer
				if err := dec.Decode(&jb); err != nil {
					return nil, fail(dec.InputOffset(), "buffer %d: %v", len(p.Buffers)+1, jsonMsg(err))
				}
				raw := data[off:dec.InputOffset()] // the buffer's text
				if err := requiredFields(raw, &jb, len(p.Buffers)+1); err != "" {
					return nil, fail(jsonpos.SkipSpace(data, off), "%s", err)
				}
				b := jb.toBuffer()
				b.Line = lines.at(jsonpos.SkipSpace(data, off))
				if jb.Align != nil && *jb.Align <= 0 {
					return nil, fail(off, "buffer %q: alignment %d must be positive", jb.ID, *jb.Align)
				}
				p.Buffers = append(p.Buffers, b)
			}
			if _, err := dec.Token(); err != nil {
				return nil, fail(dec.InputOffset(), "%s", jsonMsg(err))
			}
		default:
			if top := topKeys(data); top["tensors"] || top["ops"] {
				// a model graph saved under a plain .json name
				return nil, fail(dec.InputOffset(), "unknown field %q (want buffers, pools): this looks like a model graph (tensors and ops); name it .graph.json", key)
			}
			return nil, fail(dec.InputOffset(), "unknown field %q (want buffers, pools)", key)
		}
	}
	// Pools are decoded again in a second pass so that their order in the
	// object does not matter.
	var whole struct {
		Pools   []JSONPool      `json:"pools"`
		Buffers json.RawMessage `json:"buffers"`
	}
	// (the pools were checked one by one above)
	if err := json.Unmarshal(data, &whole); err != nil {
		return nil, fail(0, "%v", jsonMsg(err))
	}
	for _, q := range whole.Pools {
		p.Pools = append(p.Pools, model.Pool(q))
	}
	if !seen || len(p.Buffers) == 0 {
		return nil, fail(0, "no buffers: expected a non-empty \"buffers\" array")
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return p, nil
}

func (jb *JSONBuffer) toBuffer() model.Buffer {
	b := model.Buffer{ID: jb.ID, Start: jb.Start, End: jb.End, Size: jb.Size, Pin: jb.Offset, Hint: jb.Hint,
		Pools: jb.Pools, Kind: jb.Kind, MaxSize: jb.MaxSize, Weight: jb.Weight, LatencyCritical: jb.LatencyCritical}
	if jb.Align != nil {
		b.Align = *jb.Align
	}
	if jb.Alias != nil {
		b.Alias = &model.Alias{Parent: jb.Alias.Parent, Delta: jb.Alias.Delta}
	}
	for _, g := range jb.Gaps {
		b.Gaps = append(b.Gaps, model.Gap(g))
	}
	return b
}

// ToJSON converts a buffer to its JSON form.
func ToJSON(b *model.Buffer) JSONBuffer {
	jb := JSONBuffer{ID: b.ID, Start: b.Start, End: b.End, Size: b.Size, Offset: b.Pin, Hint: b.Hint,
		Pools: b.Pools, Kind: b.Kind, MaxSize: b.MaxSize, Weight: b.Weight, LatencyCritical: b.LatencyCritical}
	if b.Align > 1 {
		a := b.Align
		jb.Align = &a
	}
	if b.Alias != nil {
		jb.Alias = &JSONAlias{Parent: b.Alias.Parent, Delta: b.Alias.Delta}
	}
	for _, g := range b.Gaps {
		jb.Gaps = append(jb.Gaps, JSONGap(g))
	}
	return jb
}

// Write writes the problem in the JSON format read by Read.
func Write(w io.Writer, p *model.Problem) error {
	out := struct {
		Pools   []JSONPool   `json:"pools,omitempty"`
		Buffers []JSONBuffer `json:"buffers"`
	}{}
	for _, q := range p.Pools {
		out.Pools = append(out.Pools, JSONPool(q))
	}
	out.Buffers = make([]JSONBuffer, len(p.Buffers))
	for i := range p.Buffers {
		out.Buffers[i] = ToJSON(&p.Buffers[i])
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(out)
}

// decodeStrict decodes one JSON value, refusing unknown fields.
func decodeStrict(raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// requiredFields checks that a buffer object names the fields the format
// requires (a missing one would read as 0), and those of its alias and
// gaps, in one scan of its text. It returns the message, or "".
func requiredFields(raw []byte, jb *JSONBuffer, k int) string {
	const (
		fID = 1 << iota
		fStart
		fEnd
		fSize
		fParent
	)
	bit := func(key []byte) int {
		switch string(key) { // no allocation: the conversion is only compared
		case "id":
			return fID
		case "start":
			return fStart
		case "end":
			return fEnd
		case "size":
			return fSize
		case "parent":
			return fParent
		}
		return 0
	}
	top, inner := 0, 0
	depth, under, msg, gap := 0, "", "", 0
	walkJSON(raw, func() {
		depth++
		inner = 0
	}, func() {
		if depth == 2 && msg == "" {
			switch under {
			case "alias":
				if inner&fParent == 0 {
					msg = fmt.Sprintf("buffer %s: alias: missing field %q", model.Quote(jb.ID), "parent")
				}
			case "gaps":
				gap++
				if inner&fStart == 0 {
					msg = fmt.Sprintf("buffer %s: gap %d: missing field %q", model.Quote(jb.ID), gap, "start")
				} else if inner&fEnd == 0 {
					msg = fmt.Sprintf("buffer %s: gap %d: missing field %q", model.Quote(jb.ID), gap, "end")
				}
			}
		}
		depth--
	}, func(key []byte, _ int) {
		switch depth {
		case 1:
			top |= bit(key)
			switch string(key) {
			case "alias":
				under = "alias"
			case "gaps":
				under = "gaps"
			default:
				under = ""
			}
		case 2:
			inner |= bit(key)
		}
	})
	if top&fID == 0 {
		return fmt.Sprintf("buffer %d: missing field %q", k, "id")
	}
	for _, f := range []struct {
		bit  int
		name string
	}{{fStart, "start"}, {fEnd, "end"}, {fSize, "size"}} {
		if top&f.bit == 0 {
			return fmt.Sprintf("buffer %s: missing field %q (id, start, end and size are required)", model.Quote(jb.ID), f.name)
		}
	}
	return msg
}

func jsonMsg(err error) string {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return "unexpected end of file (is a bracket or brace missing?)"
	}
	if te, ok := err.(*json.UnmarshalTypeError); ok {
		got := te.Value
		if len(got) > maxQuoted {
			got = fmt.Sprintf("%s… (%d bytes)", got[:maxQuoted], len(got))
		}
		if te.Field == "" {
			return fmt.Sprintf("expected %s, got JSON %s", jsonTypeName(te.Type), got)
		}
		return fmt.Sprintf("field %s: expected %s, got JSON %s", te.Field, jsonTypeName(te.Type), got)
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

// lineCounter turns increasing byte offsets into line numbers in linear
// total time.
type lineCounter struct {
	data []byte
	off  int64
	line int
}

func (c *lineCounter) at(off int64) int {
	off = min(off, int64(len(c.data)))
	if off < c.off {
		return jsonpos.LineAt(c.data, off)
	}
	c.line += bytes.Count(c.data[c.off:off], []byte{'\n'})
	c.off = off
	return c.line
}

// utf8BOM is the byte order mark some editors put at the start of a file.
var utf8BOM = []byte("\ufeff")
