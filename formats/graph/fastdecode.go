package graph

import (
	"math"
	"unicode/utf16"
	"unicode/utf8"
)

// fastDecoder reads the common shape of a .graph.json document in one pass
// over the bytes, with no reflection and few allocations: strings without
// escapes are substrings of one copy of the document, numbers are parsed
// in place, and the small pointer fields and string lists come out of
// shared slabs.
//
// It accepts a strict subset of what the encoding/json path (decodeSlow)
// accepts and builds the identical File: anything it does not handle
// exactly — a syntax error, an unknown or duplicate field, a field name in
// another case, a wrong type, null, a bad escape or a lone surrogate,
// invalid UTF-8, a number that is not a plain integer, trailing data —
// makes it give up (bad), and Decode runs decodeSlow, whose messages are
// the reference. FuzzFastDecode checks the two agree.
type fastDecoder struct {
	data []byte
	s    string // string(data): the strings of the File are its substrings
	pos  int
	line int // 1-based line of data[pos]
	bad  bool

	ints []int64  // slab for *int64 fields
	strs []string // slab for inputs and outputs
}

// fastDecode returns the File of data, or false when data needs the
// encoding/json path (an error, or a form fastDecoder does not handle).
func fastDecode(data []byte) (*File, bool) {
	d := &fastDecoder{data: data, s: string(data), line: 1}
	f := &File{}
	d.ws()
	d.object(func(key string) {
		switch key {
		case "format":
			f.Format = d.str()
		case "comment":
			f.Comment = d.str()
		case "name":
			f.Name = d.str()
		case "alignment":
			f.Alignment = d.int64()
		case "liveness":
			f.Liveness = d.liveness()
		case "in_place":
			f.InPlace = d.inPlace()
		case "order":
			f.Order = d.str()
		case "schedule":
			f.scheduleLine = d.line
			f.Schedule = d.schedule()
		case "models":
			d.array(func() {
				m := Model{Line: d.line}
				d.object(func(key string) {
					switch key {
					case "name":
						m.Name = d.str()
					case "comment":
						m.Comment = d.str()
					case "tensors":
						m.Tensors = d.tensors()
					case "ops":
						m.Ops = d.ops()
					case "reload_weights":
						m.ReloadWeights = d.bool()
					default:
						d.bad = true
					}
				})
				f.Models = append(f.Models, m)
			})
		case "tensors":
			f.Tensors = d.tensors()
		case "ops":
			f.Ops = d.ops()
		default:
			d.bad = true
		}
	})
	if d.ws(); d.pos != len(d.data) {
		d.bad = true
	}
	return f, !d.bad
}

// ws skips JSON white space, counting lines (a valid document has line
// breaks only there).
func (d *fastDecoder) ws() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case '\n':
			d.line++
		case ' ', '\t', '\r':
		default:
			return
		}
		d.pos++
	}
}

// next skips white space and consumes c, or marks the document bad.
func (d *fastDecoder) next(c byte) bool {
	d.ws()
	if d.bad || d.pos >= len(d.data) || d.data[d.pos] != c {
		d.bad = true
		return false
	}
	d.pos++
	return true
}

// peek skips white space and reports whether c comes next (without
// consuming it).
func (d *fastDecoder) peek(c byte) bool {
	d.ws()
	return !d.bad && d.pos < len(d.data) && d.data[d.pos] == c
}

// object reads {"key": value, ...}, calling field with each key and the
// decoder before the value (and its white space skipped). A key seen twice
// makes the document bad: encoding/json's handling of duplicates is left
// to decodeSlow.
func (d *fastDecoder) object(field func(key string)) {
	if !d.next('{') {
		return
	}
	if d.peek('}') {
		d.pos++
		return
	}
	var seen [12]string // no object of the format has more fields
	n := 0
	for !d.bad {
		key := d.str()
		if !d.next(':') {
			return
		}
		for _, k := range seen[:min(n, len(seen))] {
			if k == key {
				d.bad = true
				return
			}
		}
		if n >= len(seen) { // more fields than any object of the format has: a duplicate
			d.bad = true
			return
		}
		seen[n] = key
		n++
		d.ws()
		field(key)
		if d.peek(',') {
			d.pos++
			continue
		}
		d.next('}')
		return
	}
}

// array reads [elem, ...], calling elem before each element (white space
// skipped, so d.line is the element's line). It returns false for an
// empty array.
func (d *fastDecoder) array(elem func()) bool {
	if !d.next('[') {
		return false
	}
	if d.peek(']') {
		d.pos++
		return false
	}
	for !d.bad {
		d.ws()
		elem()
		if d.peek(',') {
			d.pos++
			continue
		}
		d.next(']')
		break
	}
	return true
}

// str reads a string. Without escapes it is cut from the document; with
// escapes it is decoded like encoding/json does. A control character, an
// unknown escape, a surrogate that is not half of a valid pair, or invalid
// UTF-8 (all of which encoding/json rejects or replaces) makes the
// document bad.
func (d *fastDecoder) str() string {
	if !d.next('"') {
		return ""
	}
	start, ascii := d.pos, true
	for i := start; i < len(d.data); i++ {
		switch c := d.data[i]; {
		case c == '"':
			d.pos = i + 1
			if !ascii && !utf8.Valid(d.data[start:i]) {
				d.bad = true
			}
			return d.s[start:i]
		case c == '\\':
			return d.unescape(start)
		case c < 0x20:
			d.bad = true
			return ""
		case c >= 0x80:
			ascii = false
		}
	}
	d.bad = true
	return ""
}

// unescape decodes the string whose contents start at start and hold an
// escape.
func (d *fastDecoder) unescape(start int) string {
	var out []byte
	for i := start; i < len(d.data); {
		c := d.data[i]
		switch {
		case c == '"':
			if !utf8.Valid(d.data[start:i]) { // escapes are ASCII: this checks the literal bytes
				d.bad = true
				return ""
			}
			d.pos = i + 1
			return string(out)
		case c < 0x20:
			d.bad = true
			return ""
		case c != '\\':
			out = append(out, c)
			i++
			continue
		}
		if i+1 >= len(d.data) {
			d.bad = true
			return ""
		}
		switch e := d.data[i+1]; e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := d.hex4(i + 2)
			if !ok {
				d.bad = true
				return ""
			}
			i += 6
			if utf16.IsSurrogate(r) {
				r2, ok := d.hex4(i + 2)
				if !ok || i+1 >= len(d.data) || d.data[i] != '\\' || d.data[i+1] != 'u' {
					d.bad = true // a lone half: encoding/json writes U+FFFD
					return ""
				}
				if r = utf16.DecodeRune(r, r2); r == utf8.RuneError {
					d.bad = true
					return ""
				}
				i += 6
			}
			out = utf8.AppendRune(out, r)
			continue
		default:
			d.bad = true
			return ""
		}
		i += 2
	}
	d.bad = true
	return ""
}

// hex4 reads the four hexadecimal digits at data[i:].
func (d *fastDecoder) hex4(i int) (rune, bool) {
	if i+4 > len(d.data) {
		return 0, false
	}
	var r rune
	for _, c := range d.data[i : i+4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// int64 reads an integer -?(0|[1-9][0-9]*) that fits in an int64; a
// fraction, an exponent or an overflow makes the document bad.
func (d *fastDecoder) int64() int64 {
	d.ws()
	i, neg := d.pos, false
	if i < len(d.data) && d.data[i] == '-' {
		neg = true
		i++
	}
	digits := i
	var v uint64
	for ; i < len(d.data) && '0' <= d.data[i] && d.data[i] <= '9'; i++ {
		if v > (math.MaxUint64-9)/10 {
			d.bad = true
			return 0
		}
		v = v*10 + uint64(d.data[i]-'0')
	}
	switch {
	case i == digits, d.data[digits] == '0' && i > digits+1:
		d.bad = true // no digits, or a leading zero
		return 0
	case i < len(d.data) && (d.data[i] == '.' || d.data[i] == 'e' || d.data[i] == 'E'):
		d.bad = true
		return 0
	case !neg && v > math.MaxInt64, neg && v > 1<<63:
		d.bad = true
		return 0
	}
	d.pos = i
	if neg {
		return -int64(v)
	}
	return int64(v)
}

// intPtr reads an integer into the slab and returns its address.
func (d *fastDecoder) intPtr() *int64 {
	v := d.int64()
	if len(d.ints) == cap(d.ints) {
		d.ints = make([]int64, 0, 1024)
	}
	d.ints = append(d.ints, v)
	return &d.ints[len(d.ints)-1]
}

// bool reads true or false.
func (d *fastDecoder) bool() bool {
	d.ws()
	rest := d.data[d.pos:]
	switch {
	case len(rest) >= 4 && string(rest[:4]) == "true":
		d.pos += 4
		return true
	case len(rest) >= 5 && string(rest[:5]) == "false":
		d.pos += 5
		return false
	}
	d.bad = true
	return false
}

func (d *fastDecoder) boolPtr() *bool {
	v := d.bool()
	return &v
}

// ints reads a list of integers (non-nil when empty, like encoding/json).
func (d *fastDecoder) intList() []int64 {
	out := []int64{}
	d.array(func() { out = append(out, d.int64()) })
	return out
}

// strList reads a list of strings into the slab (non-nil when empty). The
// result's capacity is its length, so appending to it never reaches the
// slab's other lists.
func (d *fastDecoder) strList() []string {
	if len(d.strs) > cap(d.strs)-64 {
		d.strs = make([]string, 0, 4096)
	}
	start := len(d.strs)
	d.array(func() { d.strs = append(d.strs, d.str()) })
	// A list that outgrew the slab was copied by append: still a list of
	// its own, so cutting it as below stays sound.
	return d.strs[start:len(d.strs):len(d.strs)]
}

func (d *fastDecoder) liveness() *Liveness {
	l := &Liveness{}
	d.object(func(key string) {
		switch key {
		case "inputs_from_start":
			l.InputsFromStart = d.boolPtr()
		case "outputs_to_end":
			l.OutputsToEnd = d.boolPtr()
		default:
			d.bad = true
		}
	})
	return l
}

func (d *fastDecoder) inPlace() *InPlace {
	ip := &InPlace{}
	d.object(func(key string) {
		switch key {
		case "reshape":
			ip.Reshape = d.boolPtr()
		case "concat":
			ip.Concat = d.boolPtr()
		case "split":
			ip.Split = d.boolPtr()
		case "slice":
			ip.Slice = d.boolPtr()
		default:
			d.bad = true
		}
	})
	return ip
}

// schedule reads "serial", "concurrent" or a list of stages; other strings
// are left to decodeSlow's message.
func (d *fastDecoder) schedule() *Schedule {
	if d.peek('"') {
		mode := d.str()
		if mode != "serial" && mode != "concurrent" {
			d.bad = true
		}
		return &Schedule{Mode: mode}
	}
	stages := [][]string{}
	d.array(func() {
		st := []string{}
		d.array(func() { st = append(st, d.str()) })
		stages = append(stages, st)
	})
	return &Schedule{Stages: stages}
}

// count returns the number of objects in the array that starts at the
// next '[', so that the lists of tensors and ops are allocated once at
// their size (growing them by append allocated five times their final
// size for 100 000 ops). It only counts '{' at the array's level: a
// malformed document gets no more room than a valid one of its size would.
func (d *fastDecoder) count() int {
	if !d.peek('[') {
		return 0
	}
	data := d.data
	depth, n := 0, 0
	for i := d.pos; i < len(data); i++ {
		switch data[i] {
		case '"':
			for i++; i < len(data) && data[i] != '"'; i++ {
				if data[i] == '\\' {
					i++
				}
			}
		case '{':
			if depth == 1 {
				n++
			}
			depth++
		case '[':
			depth++
		case ']', '}':
			if depth--; depth == 0 {
				return n
			}
		}
	}
	return n
}

func (d *fastDecoder) tensors() []Tensor {
	out := make([]Tensor, 0, d.count())
	d.array(func() {
		out = append(out, Tensor{Line: d.line})
		t := &out[len(out)-1]
		d.object(func(key string) {
			switch key {
			case "name":
				t.Name = d.str()
			case "shape":
				t.Shape = d.intList()
			case "dtype":
				t.DType = d.str()
			case "bytes":
				t.Bytes = d.intPtr()
			case "kind":
				t.Kind = d.str()
			case "hash":
				t.Hash = d.str()
			case "data":
				t.Data = d.str()
			default:
				d.bad = true
			}
		})
	})
	if len(out) == 0 {
		return nil // like encoding/json's path, which appends
	}
	return out
}

func (d *fastDecoder) ops() []Op {
	out := make([]Op, 0, d.count())
	d.array(func() {
		out = append(out, Op{Line: d.line})
		o := &out[len(out)-1]
		d.object(func(key string) {
			switch key {
			case "name":
				o.Name = d.str()
			case "type":
				o.Type = d.str()
			case "inputs":
				o.Inputs = d.strList()
			case "outputs":
				o.Outputs = d.strList()
			case "axis":
				v := d.int64()
				if v < math.MinInt || v > math.MaxInt {
					d.bad = true
				}
				a := int(v)
				o.Axis = &a
			case "begin":
				o.Begin = d.intList()
			case "scratch":
				o.Scratch = d.scratch()
			case "latency_critical":
				o.LatencyCritical = d.bool()
			default:
				d.bad = true
			}
		})
	})
	if len(out) == 0 {
		return nil
	}
	return out
}

func (d *fastDecoder) scratch() []Scratch {
	out := []Scratch{}
	d.array(func() {
		var s Scratch
		d.object(func(key string) {
			switch key {
			case "name":
				s.Name = d.str()
			case "size":
				s.Size = d.intPtr()
			case "min_size":
				s.MinSize = d.intPtr()
			case "max_size":
				s.MaxSize = d.intPtr()
			case "latency_critical":
				s.LatencyCritical = d.boolPtr()
			case "shares":
				s.Shares = d.str()
			default:
				d.bad = true
			}
		})
		out = append(out, s)
	})
	return out
}
