package csv

import (
	"bufio"
	"bytes"
	stdcsv "encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/optalloc/optalloc/model"
)

// The MiniMalloc CSV dialect: a header row, then one buffer per row. Columns
// come in any order; names are case-insensitive.
var csvColumnNames = map[string]string{
	"id": "id", "buffer": "id", "buffer_id": "id",
	"lower": "lower", "start": "lower", "begin": "lower",
	"upper": "upper", "end": "end",
	"size":      "size",
	"alignment": "alignment", "align": "alignment",
	"offset": "offset",
	"hint":   "hint",
	"gaps":   "gaps",
	// A plan CSV's alias groups (plan -o writes them): read back, a plan
	// file is its own problem (its offsets are pins, a member follows its
	// root). Without them the views of a plan read as overlapping pins.
	"alias": "alias", "alias_delta": "alias_delta",
}

// OptionalColumns are the optional columns, in the order they are written.
var OptionalColumns = []string{"alignment", "hint", "gaps"}

// Read reads a problem in MiniMalloc's CSV format from r; name is used in
// error messages (file:line). It streams: memory is linear in the number of
// rows. Required columns are id (or buffer, buffer_id), lower (or start,
// begin), upper (exclusive) or end (inclusive: upper = end+1), and size.
// Optional: alignment, offset (a pin; -1 or empty means free), hint (-1 or
// empty means none), gaps (space-separated "l-u" or "l-u@a:b"). Columns it
// does not know are ignored. The problem is validated before it is returned.
func Read(r io.Reader, name string) (*model.Problem, error) {
	fail := func(line int, format string, args ...any) error {
		return &model.InputError{File: name, Line: line, Msg: fmt.Sprintf(format, args...)}
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, &model.InputError{File: name, Msg: err.Error()}
	}
	next := csvRows(data, name)
	header, _, err := next()
	if err == io.EOF {
		return nil, fail(0, "empty file: expected a header row such as id,lower,upper,size")
	}
	if err != nil {
		return nil, err
	}
	nHeader := len(header)
	col := map[string]int{}
	for i, h := range header {
		h = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))
		c, ok := csvColumnNames[h]
		if !ok {
			continue
		}
		if _, dup := col[c]; dup {
			return nil, fail(1, "column %q appears twice (or under two names)", h)
		}
		col[c] = i
	}
	_, hasUpper := col["upper"]
	_, hasEnd := col["end"]
	switch {
	case hasUpper && hasEnd:
		return nil, fail(1, "both upper and end columns given; use one")
	case !hasUpper && !hasEnd:
		return nil, fail(1, "missing column upper (or end)")
	}
	for _, c := range []string{"id", "lower", "size"} {
		if _, ok := col[c]; !ok {
			return nil, fail(1, "missing column %s", c)
		}
	}
	// One buffer per line at most: no growing and copying.
	p := &model.Problem{Name: name, Buffers: make([]model.Buffer, 0, bytes.Count(data, []byte{'\n'})+1)}
	for _, c := range []string{"alignment", "offset", "hint", "gaps"} {
		if _, ok := col[c]; ok && c != "offset" {
			p.CSVColumns = append(p.CSVColumns, c)
		}
	}
	// Column indices, looked up once: -1 when absent.
	idx := func(c string) int {
		if i, ok := col[c]; ok {
			return i
		}
		return -1
	}
	cID, cLower, cUpper, cEnd, cSize := idx("id"), idx("lower"), idx("upper"), idx("end"), idx("size")
	cAlign, cOffset, cHint, cGaps := idx("alignment"), idx("offset"), idx("hint"), idx("gaps")
	cAlias, cDelta := idx("alias"), idx("alias_delta")
	names := map[int]string{cID: "id", cLower: "lower", cUpper: "upper", cEnd: "end", cSize: "size",
		cAlign: "alignment", cOffset: "offset", cHint: "hint", cGaps: "gaps", cAlias: "alias", cDelta: "alias_delta"}
	// The row being read; the helpers below are made once, not per row.
	var rec []string
	var line int
	field := func(i int) (string, bool) {
		if i < 0 {
			return "", false
		}
		if i >= len(rec) {
			return "", true
		}
		return strings.TrimSpace(rec[i]), true
	}
	num := func(i int) (int64, error) {
		s, _ := field(i)
		if s == "" {
			return 0, fail(line, "column %s is empty", names[i])
		}
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, fail(line, "column %s: %s is not an integer in the int64 range", names[i], model.Quote(s))
		}
		return v, nil
	}
	optional := func(i int) (*int64, error) {
		s, ok := field(i)
		if !ok || s == "" || s == "-1" {
			return nil, nil
		}
		v, err := num(i)
		return &v, err
	}
	for {
		rec, line, err = next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue
		}
		if len(rec) > nHeader {
			// A field without a column would be dropped silently.
			return nil, fail(line, "%d fields in the header, %d on this row", nHeader, len(rec))
		}
		var b model.Buffer
		b.Line = line
		id, _ := field(cID)
		b.ID = strings.Clone(id) // not a slice of the whole row
		if b.ID == "" {
			return nil, fail(line, "column id is empty")
		}
		if !utf8.ValidString(b.ID) {
			// Written into a JSON plan it would become U+FFFD and no
			// longer match; refuse rather than write a plan that does
			// not verify.
			return nil, fail(line, "column id: %s is not valid UTF-8 (save the file as UTF-8)", model.Quote(b.ID))
		}
		if b.Start, err = num(cLower); err != nil {
			return nil, err
		}
		if hasEnd {
			if b.End, err = num(cEnd); err != nil {
				return nil, err
			}
			if b.End == 1<<63-1 {
				return nil, fail(line, "end %d overflows when made exclusive", b.End)
			}
			b.End++
		} else if b.End, err = num(cUpper); err != nil {
			return nil, err
		}
		if b.Size, err = num(cSize); err != nil {
			return nil, err
		}
		if s, ok := field(cAlign); ok && s != "" {
			if b.Align, err = num(cAlign); err != nil {
				return nil, err
			}
			if b.Align <= 0 {
				return nil, fail(line, "buffer %q: alignment %d must be positive", b.ID, b.Align)
			}
		}
		if b.Pin, err = optional(cOffset); err != nil {
			return nil, err
		}
		if b.Hint, err = optional(cHint); err != nil {
			return nil, err
		}
		if s, _ := field(cGaps); s != "" {
			if b.Gaps, err = ParseGaps(s); err != nil {
				return nil, fail(line, "buffer %q: %v", b.ID, err)
			}
		}
		if s, _ := field(cAlias); s != "" {
			b.Alias = &model.Alias{Parent: strings.Clone(s)}
			if d, _ := field(cDelta); d != "" {
				if b.Alias.Delta, err = num(cDelta); err != nil {
					return nil, err
				}
			}
			b.Pin = nil // the member's offset is its root's plus the delta
		}
		p.Buffers = append(p.Buffers, b)
	}
	if len(p.Buffers) == 0 {
		return nil, fail(0, "no buffers: the file has a header but no rows")
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return p, nil
}

// csvRows returns an iterator over the records of data: each call gives the
// next record, its line and io.EOF at the end. Records are those of
// encoding/csv with TrimLeadingSpace (fields are trimmed by the caller) and
// blank lines skipped. Files without a quote take a fast path: fields are
// substrings of one copy of the text, with no allocation per row (the
// reader keeps no reference to them beyond the row).
func csvRows(data []byte, name string) func() ([]string, int, error) {
	if bytes.IndexByte(data, '"') >= 0 {
		cr := stdcsv.NewReader(bytes.NewReader(data))
		cr.FieldsPerRecord = -1
		cr.ReuseRecord = true
		cr.TrimLeadingSpace = true
		return func() ([]string, int, error) {
			rec, err := cr.Read()
			if err == io.EOF {
				return nil, 0, err
			}
			if err != nil {
				return nil, 0, csvError(name, err)
			}
			line, _ := cr.FieldPos(0)
			return rec, line, nil
		}
	}
	text := string(data)
	line := 0
	var rec []string
	return func() ([]string, int, error) {
		for len(text) > 0 {
			line++
			row := text
			if k := strings.IndexByte(text, '\n'); k >= 0 {
				row, text = text[:k], text[k+1:]
			} else {
				text = ""
			}
			if len(row) > 0 && row[len(row)-1] == '\r' {
				row = row[:len(row)-1]
			}
			if row == "" {
				continue // encoding/csv skips empty lines
			}
			rec = rec[:0]
			for {
				k := strings.IndexByte(row, ',')
				if k < 0 {
					rec = append(rec, row)
					break
				}
				rec = append(rec, row[:k])
				row = row[k+1:]
			}
			return rec, line, nil
		}
		return nil, 0, io.EOF
	}
}

func csvError(name string, err error) error {
	var pe *stdcsv.ParseError
	if errors.As(err, &pe) {
		return &model.InputError{File: name, Line: pe.Line, Msg: pe.Err.Error()}
	}
	return &model.InputError{File: name, Msg: err.Error()}
}

// ParseGaps parses MiniMalloc's gaps field: space-separated "l-u" (absent
// during [l,u)) or "l-u@a:b" (during [l,u) only bytes [a,b) are used).
func ParseGaps(s string) ([]model.Gap, error) {
	var gaps []model.Gap
	for _, tok := range strings.Fields(s) {
		var g model.Gap
		span, window, hasWindow := strings.Cut(tok, "@")
		l, u, ok := strings.Cut(span, "-")
		if !ok {
			return nil, fmt.Errorf("gap %q: want l-u or l-u@a:b", tok)
		}
		var err error
		if g.Start, err = strconv.ParseInt(l, 10, 64); err != nil {
			return nil, fmt.Errorf("gap %q: bad start %q", tok, l)
		}
		if g.End, err = strconv.ParseInt(u, 10, 64); err != nil {
			return nil, fmt.Errorf("gap %q: bad end %q", tok, u)
		}
		if hasWindow {
			a, b, ok := strings.Cut(window, ":")
			if !ok {
				return nil, fmt.Errorf("gap %q: window must be a:b", tok)
			}
			g.Window = true
			if g.Lo, err = strconv.ParseInt(a, 10, 64); err != nil {
				return nil, fmt.Errorf("gap %q: bad window start %q", tok, a)
			}
			if g.Hi, err = strconv.ParseInt(b, 10, 64); err != nil {
				return nil, fmt.Errorf("gap %q: bad window end %q", tok, b)
			}
		}
		gaps = append(gaps, g)
	}
	return gaps, nil
}

// FormatGaps is the inverse of ParseGaps.
func FormatGaps(gaps []model.Gap) string {
	parts := make([]string, len(gaps))
	for i, g := range gaps {
		parts[i] = fmt.Sprintf("%d-%d", g.Start, g.End)
		if g.Window {
			parts[i] += fmt.Sprintf("@%d:%d", g.Lo, g.Hi)
		}
	}
	return strings.Join(parts, " ")
}

// Write writes the problem in MiniMalloc's CSV format: id, lower, upper,
// size, the optional columns the input had (or that the buffers need), and —
// when plan is non-nil — the offset of every buffer (plus pool, granted and
// max_size columns when the problem has several pools or elastic buffers,
// and alias and alias_delta when it has aliases). Without a
// plan, pins are written in the offset column.
func Write(w io.Writer, p *model.Problem, plan *model.Plan) error {
	if plan != nil && len(plan.Placements) != len(p.Buffers) {
		return fmt.Errorf("the plan has %d placements for %d buffers", len(plan.Placements), len(p.Buffers))
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	cols := map[string]bool{}
	for _, c := range p.CSVColumns {
		cols[c] = true
	}
	elastic, pinned, aliased := false, false, false
	for i := range p.Buffers {
		b := &p.Buffers[i]
		cols["alignment"] = cols["alignment"] || b.Align > 1
		cols["hint"] = cols["hint"] || b.Hint != nil
		cols["gaps"] = cols["gaps"] || len(b.Gaps) > 0
		elastic = elastic || b.Elastic()
		pinned = pinned || b.Pin != nil
		aliased = aliased || b.Alias != nil
	}
	header := []string{"id", "lower", "upper", "size"}
	for _, c := range OptionalColumns {
		if cols[c] {
			header = append(header, c)
		}
	}
	multiPool := len(p.PoolList()) > 1
	if plan != nil || pinned {
		header = append(header, "offset")
	}
	if plan != nil && multiPool {
		header = append(header, "pool")
	}
	// a plan carries what checking it needs (optalloc viz PLAN): the
	// elastic buffers' largest size and the alias groups
	if plan != nil && elastic {
		header = append(header, "granted", "max_size")
	}
	if plan != nil && aliased {
		header = append(header, "alias", "alias_delta")
	}
	bw.WriteString(strings.Join(header, ","))
	bw.WriteByte('\n')
	pools := p.PoolList()
	for i := range p.Buffers {
		b := &p.Buffers[i]
		row := []string{csvQuote(b.ID), itoa(b.Start), itoa(b.End), itoa(b.Size)}
		for _, c := range OptionalColumns {
			if !cols[c] {
				continue
			}
			switch c {
			case "alignment":
				row = append(row, itoa(b.Alignment()))
			case "hint":
				row = append(row, optString(b.Hint))
			case "gaps":
				row = append(row, FormatGaps(b.Gaps))
			}
		}
		switch {
		case plan != nil:
			pl := plan.Placements[i]
			row = append(row, itoa(pl.Offset))
			if multiPool {
				if pl.Pool < 0 || pl.Pool >= len(pools) {
					return fmt.Errorf("buffer %q: pool #%d does not exist", b.ID, pl.Pool)
				}
				row = append(row, pools[pl.Pool].Name)
			}
			if elastic {
				row = append(row, itoa(pl.Size), itoa(max(b.MaxSize, b.Size)))
			}
			if aliased {
				if b.Alias != nil {
					row = append(row, csvQuote(b.Alias.Parent), itoa(b.Alias.Delta))
				} else {
					row = append(row, "", "")
				}
			}
		case pinned:
			row = append(row, optString(b.Pin))
		}
		bw.WriteString(strings.Join(row, ","))
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

func optString(v *int64) string {
	if v == nil {
		return "-1"
	}
	return itoa(*v)
}

func csvQuote(s string) string {
	if strings.ContainsAny(s, ",\"\n\r") {
		return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
	}
	return s
}
