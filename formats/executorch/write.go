package executorch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// Placement is where a plan puts one spec: ExecuTorch's SpecAllocResult.
type Placement struct {
	MemID, MemObjID, MemOffset int64
}

// Plan is a plan of a specs file: a placement per spec (in the file's
// order) and the buffer sizes (index 0 stays 0).
type Plan struct {
	Specs    []Placement
	BufSizes []int64
}

type outSpec struct {
	ID                string   `json:"id"`
	Size              int64    `json:"size"`
	Lifetime          [2]int64 `json:"lifetime"`
	MemID             int64    `json:"mem_id"`
	StorageBase       *string  `json:"storage_base,omitempty"`
	StorageBaseOffset *int64   `json:"storage_base_offset,omitempty"`
	MemObjID          int64    `json:"mem_obj_id"`
	MemOffset         int64    `json:"mem_offset"`
}

type outBody struct {
	Alignment, ExtraPadding       int64
	InputMemBufferSizes, BufSizes []int64
	Specs                         []outSpec
}

// Write writes f with plan filled in: the same object, each spec with its
// mem_id, mem_obj_id and mem_offset, and "bufsizes". Read reads it back
// as f.
func Write(w io.Writer, f *File, plan *Plan) error {
	if len(plan.Specs) != len(f.Specs) {
		return fmt.Errorf("%d placements for %d specs (a bug)", len(plan.Specs), len(f.Specs))
	}
	body := outBody{Alignment: f.Alignment, ExtraPadding: f.ExtraPadding, InputMemBufferSizes: f.InputMemBufferSizes,
		BufSizes: plan.BufSizes, Specs: make([]outSpec, len(f.Specs))}
	for i, s := range f.Specs {
		p := plan.Specs[i]
		o := outSpec{ID: s.ID, Size: s.Size, Lifetime: [2]int64{s.First, s.Last}, MemID: p.MemID, MemObjID: p.MemObjID, MemOffset: p.MemOffset}
		if s.Base >= 0 {
			id, off := f.Specs[s.Base].ID, s.BaseOffset
			o.StorageBase, o.StorageBaseOffset = &id, &off
		}
		body.Specs[i] = o
	}
	// One spec per line: readable, and a diff shows the specs that moved.
	head, err := json.Marshal(struct {
		Alignment           int64   `json:"alignment"`
		ExtraPadding        int64   `json:"extra_padding"`
		InputMemBufferSizes []int64 `json:"input_mem_buffer_sizes,omitempty"`
		BufSizes            []int64 `json:"bufsizes"`
	}{body.Alignment, body.ExtraPadding, body.InputMemBufferSizes, body.BufSizes})
	if err != nil {
		return err
	}
	var b bytes.Buffer
	b.WriteString("{\"" + Key + "\": ")
	b.Write(head[:len(head)-1])
	b.WriteString(",\n \"specs\": [")
	for i, s := range body.Specs {
		line, err := json.Marshal(s)
		if err != nil {
			return err
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n  ")
		b.Write(line)
	}
	b.WriteString("\n ]}}\n")
	_, err = w.Write(b.Bytes())
	return err
}
