package events

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/optalloc/optalloc/formats"
	"github.com/optalloc/optalloc/model"
)

func init() {
	formats.Register(".events", Read)
	formats.RegisterSniffer(Sniff, Read)
}

// Sniff reports whether data looks like an allocation trace: its first
// line that is not blank and not a # comment starts with alloc, malloc or
// free. A byte order mark is skipped, as Read skips it (a trace with one
// was read as CSV on standard input).
func Sniff(data []byte) bool {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	for len(data) > 0 {
		line := data
		if k := bytes.IndexByte(data, '\n'); k >= 0 {
			line, data = data[:k], data[k+1:]
		} else {
			data = nil
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		f := bytes.Fields(line)
		switch strings.ToLower(string(f[0])) {
		case "alloc", "malloc", "free":
			return true
		}
		return false
	}
	return false
}

// maxLine bounds one line of a trace.
const maxLine = 1 << 20

// Read turns an allocation trace into a problem (see the package
// documentation for the format). The problem is validated.
func Read(r io.Reader, name string) (*model.Problem, error) {
	p := &model.Problem{Name: name}
	live := map[string]int{}  // ID -> buffer index while allocated
	count := map[string]int{} // ID -> buffers made for it so far
	used := map[string]bool{} // buffer ids given
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	step := int64(0)
	line := 0
	fail := func(format string, args ...any) error {
		return &model.InputError{File: name, Line: line, Msg: fmt.Sprintf(format, args...)}
	}
	for sc.Scan() {
		line++
		text := sc.Text()
		if line == 1 {
			text = strings.TrimPrefix(text, "\ufeff") // a byte order mark
		}
		text = strings.TrimSpace(text)
		if text == "" || text[0] == '#' {
			continue
		}
		f := strings.Fields(text)
		switch strings.ToLower(f[0]) {
		case "alloc", "malloc":
			if len(f) < 3 || len(f) > 4 {
				return nil, fail("want \"alloc ID SIZE [align=A]\", got %d fields", len(f))
			}
			id := f[1]
			if !utf8.ValidString(id) {
				// Written into a JSON plan it would no longer match (as
				// for CSV ids).
				return nil, fail("id %s is not valid UTF-8 (save the file as UTF-8)", quote(id))
			}
			if _, ok := live[id]; ok {
				return nil, fail("%s is allocated again before it is freed", quote(id))
			}
			size, err := strconv.ParseInt(f[2], 10, 64)
			if err != nil || size < 0 {
				return nil, fail("size %s is not a byte count", quote(f[2]))
			}
			b := model.Buffer{ID: id, Start: step, Size: size, Line: line}
			if len(f) == 4 {
				a, ok := strings.CutPrefix(f[3], "align=")
				v, err := strconv.ParseInt(a, 10, 64)
				if !ok || err != nil || v <= 0 {
					return nil, fail("want align=A with A a positive integer, got %s", quote(f[3]))
				}
				b.Align = v
			}
			// An id allocated again gets "#N"; an id that some other
			// buffer already has (a literal "a#2" beside a renamed "a")
			// counts on until it is unique.
			n := count[id] + 1
			b.ID = id
			if n > 1 {
				b.ID = id + "#" + strconv.Itoa(n)
			}
			for used[b.ID] {
				n++
				b.ID = id + "#" + strconv.Itoa(n)
			}
			count[id] = n
			used[b.ID] = true
			live[id] = len(p.Buffers)
			p.Buffers = append(p.Buffers, b)
		case "free":
			if len(f) != 2 {
				return nil, fail("want \"free ID\", got %d fields", len(f))
			}
			i, ok := live[f[1]]
			if !ok {
				return nil, fail("free of %s, which is not allocated", quote(f[1]))
			}
			p.Buffers[i].End = step // after its alloc's step: End > Start
			delete(live, f[1])
		default:
			return nil, fail("unknown event %s (want alloc, malloc or free)", quote(f[0]))
		}
		step++
	}
	if err := sc.Err(); err != nil {
		line++
		return nil, fail("%v", err)
	}
	if len(p.Buffers) == 0 {
		return nil, &model.InputError{File: name, Msg: "no alloc events"}
	}
	for _, i := range live {
		p.Buffers[i].End = step
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return p, nil
}

// quote quotes a token from the input, cut to 40 bytes.
func quote(s string) string {
	if len(s) > 40 {
		return strconv.Quote(s[:40]) + "…"
	}
	return strconv.Quote(s)
}
