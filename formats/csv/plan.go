package csv

import (
	"bytes"
	stdcsv "encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/optalloc/optalloc/model"
)

// ReadPlacements reads the rows of a CSV plan (columns id and offset,
// optionally pool and granted), calling set for each; plan.Read uses it.
func ReadPlacements(data []byte, name string, set func(int, string, int64, string, int64, bool) error) error {
	// encoding/csv, like Read: Write quotes ids holding commas or quotes.
	cr := stdcsv.NewReader(bytes.NewReader(data))
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	cr.TrimLeadingSpace = true
	col := map[string]int{}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return csvError(name, err)
		}
		line, _ := cr.FieldPos(0)
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue
		}
		if len(col) == 0 {
			for i, h := range rec {
				h = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))
				if c, ok := csvColumnNames[h]; ok {
					h = c
				}
				col[h] = i
			}
			if _, ok := col["id"]; !ok {
				return &model.InputError{File: name, Line: line, Msg: "plan: missing column id"}
			}
			if _, ok := col["offset"]; !ok {
				return &model.InputError{File: name, Line: line, Msg: "plan: missing column offset"}
			}
			continue
		}
		get := func(c string) string {
			if i, ok := col[c]; ok && i < len(rec) {
				return strings.TrimSpace(rec[i])
			}
			return ""
		}
		off, err := strconv.ParseInt(get("offset"), 10, 64)
		if err != nil {
			return &model.InputError{File: name, Line: line, Msg: fmt.Sprintf("plan: offset %q is not an integer", get("offset"))}
		}
		var size int64
		granted := get("granted")
		if granted != "" {
			if size, err = strconv.ParseInt(granted, 10, 64); err != nil {
				return &model.InputError{File: name, Line: line, Msg: fmt.Sprintf("plan: granted %q is not an integer", granted)}
			}
		}
		if err := set(line, get("id"), off, get("pool"), size, granted != ""); err != nil {
			return err
		}
	}
	if len(col) == 0 {
		return &model.InputError{File: name, Msg: "plan: empty file"}
	}
	return nil
}
