package jsonfmt

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/optalloc/optalloc/internal/jsonpos"
	"github.com/optalloc/optalloc/model"
)

// JSONPlacement is one buffer's placement in the JSON plan format. Size is
// the size placed (for elastic scratch, the size granted, between MinSize
// and MaxSize); Alias and Gaps are the buffer's own, so that the plan alone
// can be checked (plans written before they were added read as before).
type JSONPlacement struct {
	ID      string     `json:"id"`
	Offset  int64      `json:"offset"`
	Pool    string     `json:"pool,omitempty"`
	Size    int64      `json:"size"`
	Start   int64      `json:"start"`
	End     int64      `json:"end"`
	MinSize int64      `json:"min_size,omitempty"`
	MaxSize int64      `json:"max_size,omitempty"`
	Alias   *JSONAlias `json:"alias,omitempty"`
	Gaps    []JSONGap  `json:"gaps,omitempty"`
}

// JSONPlan is the JSON plan format: the peak of every pool and one
// placement per buffer, in the order of the problem.
type JSONPlan struct {
	Peak       int64            `json:"peak"`
	PoolPeaks  map[string]int64 `json:"pool_peaks,omitempty"`
	Placements []JSONPlacement  `json:"placements"`
}

// DecodePlan reads a JSON plan strictly: unknown fields and duplicate
// keys are errors, and messages name the JSON expected (not Go types).
func DecodePlan(data []byte, name string) (*JSONPlan, error) {
	data = bytes.TrimPrefix(data, utf8BOM)
	if k, off, dup := duplicateKey(data); dup {
		return nil, &model.InputError{File: name, Line: jsonpos.LineAt(data, int64(off)), Msg: fmt.Sprintf("plan: duplicate key %s (each key once per object)", model.Quote(k))}
	}
	var jp JSONPlan
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&jp); err != nil {
		return nil, &model.InputError{File: name, Line: jsonpos.LineAt(data, dec.InputOffset()), Msg: "plan: " + jsonMsg(err)}
	}
	return &jp, nil
}

// PlanToJSON converts a plan of p to its JSON form.
func PlanToJSON(p *model.Problem, pl *model.Plan) JSONPlan {
	pools := p.PoolList()
	out := JSONPlan{Peak: pl.Peak(p), Placements: make([]JSONPlacement, len(pl.Placements))}
	if len(pools) > 1 {
		out.PoolPeaks = map[string]int64{}
		for i, v := range pl.PoolPeaks(p) {
			out.PoolPeaks[pools[i].Name] = v
		}
	}
	for i, q := range pl.Placements {
		b := &p.Buffers[i]
		out.Placements[i] = JSONPlacement{ID: b.ID, Offset: q.Offset, Size: q.Size, Start: b.Start, End: b.End}
		if b.Elastic() {
			out.Placements[i].MinSize, out.Placements[i].MaxSize = b.Size, b.MaxSize
		}
		if b.Alias != nil {
			out.Placements[i].Alias = &JSONAlias{Parent: b.Alias.Parent, Delta: b.Alias.Delta}
		}
		for _, g := range b.Gaps {
			out.Placements[i].Gaps = append(out.Placements[i].Gaps, JSONGap(g))
		}
		if len(pools) > 1 {
			out.Placements[i].Pool = pools[q.Pool].Name
		}
	}
	return out
}

// WritePlan writes a plan of p as indented JSON.
func WritePlan(w io.Writer, p *model.Problem, pl *model.Plan) error {
	if len(pl.Placements) != len(p.Buffers) {
		return fmt.Errorf("the plan has %d placements for %d buffers", len(pl.Placements), len(p.Buffers))
	}
	for i, q := range pl.Placements {
		if q.Pool < 0 || q.Pool >= len(p.PoolList()) {
			return fmt.Errorf("buffer %q: pool #%d does not exist", p.Buffers[i].ID, q.Pool)
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(PlanToJSON(p, pl))
}

// ParsePlan decodes the JSON plan data (without a byte order mark) for
// plan.Read: like DecodePlan, but a decoding error names no line; peak
// tells whether the plan states its peak.
func ParsePlan(data []byte, name string) (jp *JSONPlan, peak bool, err error) {
	if k, off, dup := duplicateKey(data); dup {
		return nil, false, &model.InputError{File: name, Line: jsonpos.LineAt(data, int64(off)), Msg: fmt.Sprintf("plan: duplicate key %s (each key once per object)", model.Quote(k))}
	}
	jp = &JSONPlan{}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(jp); err != nil {
		return nil, false, &model.InputError{File: name, Msg: "plan: " + jsonMsg(err)}
	}
	return jp, topKeys(data)["peak"], nil
}
