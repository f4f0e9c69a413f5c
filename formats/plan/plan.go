package plan

import (
	"bytes"
	"fmt"
	"io"

	"github.com/optalloc/optalloc/formats/csv"
	"github.com/optalloc/optalloc/formats/jsonfmt"
	"github.com/optalloc/optalloc/model"
)

// utf8BOM is the byte order mark some editors put at the start of a file.
var utf8BOM = []byte("\ufeff")

// Read reads a plan for problem p from a CSV file (any CSV with id and
// offset columns, optionally pool and granted) or a JSON plan. Buffers of p
// that the file does not mention get Offset model.MissingOffset so that the
// verifier reports them missing; ids the file has and p does not are an
// error.
func Read(r io.Reader, name string, p *model.Problem) (*model.Plan, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, &model.InputError{File: name, Msg: err.Error()}
	}
	pl := model.NewPlan(p)
	for i := range pl.Placements {
		pl.Placements[i].Offset = model.MissingOffset
	}
	index := p.Index()
	set := func(line int, id string, off int64, pool string, size int64, hasSize bool) error {
		i, ok := index[id]
		if !ok {
			return &model.InputError{File: name, Line: line, Msg: fmt.Sprintf("buffer %q is not in the problem", id)}
		}
		if pl.Placements[i].Offset != model.MissingOffset {
			return &model.InputError{File: name, Line: line, Msg: fmt.Sprintf("buffer %q is placed twice", id)}
		}
		pl.Placements[i].Offset = off
		if pool != "" {
			k := p.PoolIndex(pool)
			if k < 0 {
				return &model.InputError{File: name, Line: line, Msg: fmt.Sprintf("buffer %q: unknown pool %q", id, pool)}
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
		jp, statedPeak, err := jsonfmt.ParsePlan(data, name)
		if err != nil {
			return nil, err
		}
		for _, q := range jp.Placements {
			if err := set(0, q.ID, q.Offset, q.Pool, q.Size, q.Size != 0); err != nil {
				return nil, err
			}
		}
		if statedPeak {
			peak := jp.Peak
			pl.StatedPeak = &peak
		}
		pl.StatedPoolPeaks = jp.PoolPeaks
		return pl, nil
	}
	if err := csv.ReadPlacements(data, name, set); err != nil {
		return nil, err
	}
	return pl, nil
}
