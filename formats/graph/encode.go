package graph

import (
	"bufio"
	"encoding/json"
	"io"
)

// Write writes f as .graph.json with one tensor or op per line, so that
// files stay small, diff well, and error lines point at one element.
func Write(w io.Writer, f *File) error {
	bw := bufio.NewWriter(w)
	enc := func(v any) {
		b, _ := json.Marshal(v)
		bw.Write(b)
	}
	field := func(first *bool, key string, v any) {
		if !*first {
			bw.WriteString(",\n")
		}
		*first = false
		bw.WriteString(" ")
		enc(key)
		bw.WriteString(": ")
		enc(v)
	}
	list := func(indent string, n int, item func(i int)) {
		bw.WriteString("[")
		for i := range n {
			if i > 0 {
				bw.WriteString(",")
			}
			bw.WriteString("\n" + indent + " ")
			item(i)
		}
		bw.WriteString("\n" + indent + "]")
	}
	body := func(indent string, ts []Tensor, ops []Op) {
		bw.WriteString(indent + "\"tensors\": ")
		list(indent, len(ts), func(i int) { enc(ts[i]) })
		bw.WriteString(",\n" + indent + "\"ops\": ")
		list(indent, len(ops), func(i int) { enc(ops[i]) })
	}
	bw.WriteString("{\n")
	first := true
	if f.Format != "" {
		field(&first, "format", f.Format)
	}
	if f.Comment != "" {
		field(&first, "comment", f.Comment)
	}
	if f.Name != "" {
		field(&first, "name", f.Name)
	}
	if f.Alignment != 0 {
		field(&first, "alignment", f.Alignment)
	}
	if f.Liveness != nil {
		field(&first, "liveness", f.Liveness)
	}
	if f.Schedule != nil {
		field(&first, "schedule", f.Schedule)
	}
	if f.InPlace != nil {
		field(&first, "in_place", f.InPlace)
	}
	if len(f.Models) > 0 {
		if !first {
			bw.WriteString(",\n")
		}
		bw.WriteString(" \"models\": ")
		list(" ", len(f.Models), func(i int) {
			m := &f.Models[i]
			bw.WriteString("{\"name\": ")
			enc(m.Name)
			if m.Comment != "" {
				bw.WriteString(", \"comment\": ")
				enc(m.Comment)
			}
			bw.WriteString(",\n")
			body("   ", m.Tensors, m.Ops)
			bw.WriteString("}")
		})
	} else {
		if !first {
			bw.WriteString(",\n")
		}
		body(" ", f.Tensors, f.Ops)
	}
	bw.WriteString("\n}\n")
	return bw.Flush()
}
