package model

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// JSONPlacement is one buffer's placement in the JSON plan format.
type JSONPlacement struct {
	ID     string `json:"id"`
	Offset int64  `json:"offset"`
	Pool   string `json:"pool,omitempty"`
	Size   int64  `json:"size"`
	Start  int64  `json:"start"`
	End    int64  `json:"end"`
}

// JSONPlan is the JSON plan format: the peak of every pool and one
// placement per buffer, in the order of the problem.
type JSONPlan struct {
	Peak       int64            `json:"peak"`
	PoolPeaks  map[string]int64 `json:"pool_peaks,omitempty"`
	Placements []JSONPlacement  `json:"placements"`
}

// DecodeJSONPlan reads a JSON plan strictly: unknown fields and duplicate
// keys are errors, and messages name the JSON expected (not Go types).
func DecodeJSONPlan(data []byte, name string) (*JSONPlan, error) {
	data = bytes.TrimPrefix(data, utf8BOM)
	if k, off, dup := duplicateKey(data); dup {
		return nil, &InputError{File: name, Line: lineAt(data, int64(off)), Msg: fmt.Sprintf("plan: duplicate key %s (each key once per object)", Quote(k))}
	}
	var jp JSONPlan
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&jp); err != nil {
		return nil, &InputError{File: name, Line: lineAt(data, dec.InputOffset()), Msg: "plan: " + jsonMsg(err)}
	}
	return &jp, nil
}

// PlanToJSON converts a plan of p to its JSON form.
func PlanToJSON(p *Problem, pl *Plan) JSONPlan {
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
		if len(pools) > 1 {
			out.Placements[i].Pool = pools[q.Pool].Name
		}
	}
	return out
}

// WritePlanJSON writes a plan of p as indented JSON.
func WritePlanJSON(w io.Writer, p *Problem, pl *Plan) error {
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

// utf8BOM is the byte order mark some editors put at the start of a file.
var utf8BOM = []byte("\ufeff")

// MissingOffset marks a placement that a plan file did not give.
const MissingOffset = math.MinInt64

// ReadPlan reads a plan for problem p from a CSV file (any CSV with id and
// offset columns, optionally pool and granted) or a JSON plan. Buffers of p
// that the file does not mention get Offset MissingOffset so that the
// verifier reports them missing; ids the file has and p does not are an
// error.
func ReadPlan(r io.Reader, name string, p *Problem) (*Plan, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, &InputError{File: name, Msg: err.Error()}
	}
	pl := NewPlan(p)
	for i := range pl.Placements {
		pl.Placements[i].Offset = MissingOffset
	}
	index := p.Index()
	set := func(line int, id string, off int64, pool string, size int64, hasSize bool) error {
		i, ok := index[id]
		if !ok {
			return &InputError{File: name, Line: line, Msg: fmt.Sprintf("buffer %q is not in the problem", id)}
		}
		if pl.Placements[i].Offset != MissingOffset {
			return &InputError{File: name, Line: line, Msg: fmt.Sprintf("buffer %q is placed twice", id)}
		}
		pl.Placements[i].Offset = off
		if pool != "" {
			k := p.PoolIndex(pool)
			if k < 0 {
				return &InputError{File: name, Line: line, Msg: fmt.Sprintf("buffer %q: unknown pool %q", id, pool)}
			}
			pl.Placements[i].Pool = k
		}
		if hasSize {
			pl.Placements[i].Size = size
		}
		return nil
	}
	data = bytes.TrimPrefix(data, utf8BOM)
	if trimmed := bytes.TrimSpace(data); len(trimmed) > 0 && trimmed[0] == '{' {
		if k, off, dup := duplicateKey(data); dup {
			return nil, &InputError{File: name, Line: lineAt(data, int64(off)), Msg: fmt.Sprintf("plan: duplicate key %s (each key once per object)", Quote(k))}
		}
		var jp JSONPlan
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&jp); err != nil {
			return nil, &InputError{File: name, Msg: "plan: " + jsonMsg(err)}
		}
		for _, q := range jp.Placements {
			if err := set(0, q.ID, q.Offset, q.Pool, q.Size, q.Size != 0); err != nil {
				return nil, err
			}
		}
		if topKeys(data)["peak"] {
			peak := jp.Peak
			pl.StatedPeak = &peak
		}
		pl.StatedPoolPeaks = jp.PoolPeaks
		return pl, nil
	}
	if err := readPlanCSV(data, name, set); err != nil {
		return nil, err
	}
	return pl, nil
}

func readPlanCSV(data []byte, name string, set func(int, string, int64, string, int64, bool) error) error {
	// encoding/csv, like ReadCSV: WriteCSV quotes ids holding commas or quotes.
	cr := csv.NewReader(bytes.NewReader(data))
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
				return &InputError{File: name, Line: line, Msg: "plan: missing column id"}
			}
			if _, ok := col["offset"]; !ok {
				return &InputError{File: name, Line: line, Msg: "plan: missing column offset"}
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
			return &InputError{File: name, Line: line, Msg: fmt.Sprintf("plan: offset %q is not an integer", get("offset"))}
		}
		var size int64
		granted := get("granted")
		if granted != "" {
			if size, err = strconv.ParseInt(granted, 10, 64); err != nil {
				return &InputError{File: name, Line: line, Msg: fmt.Sprintf("plan: granted %q is not an integer", granted)}
			}
		}
		if err := set(line, get("id"), off, get("pool"), size, granted != ""); err != nil {
			return err
		}
	}
	if len(col) == 0 {
		return &InputError{File: name, Msg: "plan: empty file"}
	}
	return nil
}

// Reader turns a file into a problem. Front ends (the graph format) register
// theirs with RegisterFormat.
type Reader func(r io.Reader, name string) (*Problem, error)

var formats = []struct {
	suffix string
	read   Reader
}{}

// RegisterFormat makes Load use read for file names ending in suffix. Longer
// suffixes win (".graph.json" over ".json").
func RegisterFormat(suffix string, read Reader) {
	formats = append(formats, struct {
		suffix string
		read   Reader
	}{suffix, read})
}

// Load reads a problem from a file chosen by its name: registered formats
// first (longest suffix), then ".json" (JSON problem), and CSV otherwise.
// The name "-" reads standard input and sniffs the format: a leading '{' is
// JSON, anything else CSV.
func Load(path string) (*Problem, error) {
	var r io.Reader
	name := path
	if path == "-" {
		data, err := io.ReadAll(os.Stdin)
		if err != nil {
			return nil, &InputError{File: "<stdin>", Msg: err.Error()}
		}
		return LoadBytes(data, "<stdin>")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, &InputError{File: path, Msg: "cannot open: " + unwrapPathError(err)}
	}
	defer f.Close()
	r = f
	lower := strings.ToLower(filepath.Base(path))
	best := -1
	for i, f := range formats {
		if strings.HasSuffix(lower, f.suffix) && (best < 0 || len(f.suffix) > len(formats[best].suffix)) {
			best = i
		}
	}
	switch {
	case best >= 0:
		return formats[best].read(r, name)
	case strings.HasSuffix(lower, ".json"):
		return ReadJSON(r, name)
	default:
		return ReadCSV(r, name)
	}
}

// LoadBytes reads a problem held in memory, sniffing the format: a leading
// '{' is JSON (a model graph when it has "ops" or "models" and a graph
// format is registered), anything else CSV.
func LoadBytes(data []byte, name string) (*Problem, error) {
	t := bytes.TrimSpace(bytes.TrimPrefix(data, utf8BOM))
	if len(t) == 0 || t[0] != '{' {
		return ReadCSV(bytes.NewReader(data), name)
	}
	if bytes.Contains(t, []byte(`"ops"`)) || bytes.Contains(t, []byte(`"models"`)) {
		for _, f := range formats {
			if f.suffix == ".graph.json" {
				return f.read(bytes.NewReader(data), name)
			}
		}
	}
	return ReadJSON(bytes.NewReader(data), name)
}

func unwrapPathError(err error) string {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err.Error()
	}
	return err.Error()
}
