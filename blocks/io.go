package blocks

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/verify"
)

// ScheduleCSVHeader is the header of WriteScheduleCSV. One row per event:
//
//	time    the time step
//	op      new | take | release | retire (in that replay order: release,
//	        retire, new, take within one time)
//	block   the block id
//	buffer  take: the buffer; release: the alias root whose group held the
//	        block; empty for new and retire
//	size    new: the block size; take: the buffer size; else empty
//	offset  take: the byte offset inside the block (alias delta); else empty
//	model   the model of the buffer ("model/tensor" ids), of the creator for
//	        new, of the last holder for retire; empty when unqualified
var ScheduleCSVHeader = []string{"time", "op", "block", "buffer", "size", "offset", "model"}

// WriteScheduleCSV writes the schedule as one event per row (see
// ScheduleCSVHeader).
func WriteScheduleCSV(w io.Writer, s *Schedule) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(ScheduleCSVHeader); err != nil {
		return err
	}
	events := s.Events()
	creator, last := map[int]string{}, map[int]string{}
	for _, e := range events {
		if _, ok := creator[e.Block]; !ok && e.Op == "take" {
			creator[e.Block] = ModelOf(e.Buffer)
		}
	}
	for _, e := range events {
		size, off, m := "", "", ""
		switch e.Op {
		case "new":
			size, m = strconv.FormatInt(e.Size, 10), creator[e.Block]
		case "take":
			size, off = strconv.FormatInt(e.Size, 10), strconv.FormatInt(e.Offset, 10)
			m = ModelOf(e.Buffer)
		case "release":
			m = ModelOf(e.Buffer)
			last[e.Block] = m
		case "retire":
			m = last[e.Block]
		}
		rec := []string{strconv.FormatInt(e.Time, 10), e.Op, strconv.Itoa(e.Block), e.Buffer, size, off, m}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteScheduleJSON writes the schedule (blocks, steps, per-model views) as
// indented JSON.
func WriteScheduleJSON(w io.Writer, s *Schedule) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(s)
}

// ReadScheduleCSV reads the events of a schedule written by
// WriteScheduleCSV (columns by name, any order; model is ignored), for
// verify.BlockCheckSchedule. Errors name file:line.
func ReadScheduleCSV(r io.Reader, name string) ([]verify.BlockEvent, error) {
	cr := csv.NewReader(bufio.NewReader(r))
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err != nil {
		return nil, &model.InputError{File: name, Line: 1, Msg: "empty schedule: expected the header " + strings.Join(ScheduleCSVHeader, ",")}
	}
	col := map[string]int{}
	for i, h := range header {
		col[strings.ToLower(strings.TrimSpace(h))] = i
	}
	for _, c := range []string{"time", "op", "block"} {
		if _, ok := col[c]; !ok {
			return nil, &model.InputError{File: name, Line: 1, Msg: "missing column " + c}
		}
	}
	var out []verify.BlockEvent
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, csvReadError(name, err)
		}
		line, _ := cr.FieldPos(0)
		get := func(c string) string {
			if i, ok := col[c]; ok && i < len(rec) {
				return strings.TrimSpace(rec[i])
			}
			return ""
		}
		num := func(c string) (int64, error) {
			s := get(c)
			if s == "" {
				return 0, nil
			}
			v, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				return 0, &model.InputError{File: name, Line: line, Msg: fmt.Sprintf("column %s: %q is not an integer", c, s)}
			}
			return v, nil
		}
		var e verify.BlockEvent
		var blk int64
		if e.Time, err = num("time"); err != nil {
			return nil, err
		}
		if blk, err = num("block"); err != nil {
			return nil, err
		}
		if e.Size, err = num("size"); err != nil {
			return nil, err
		}
		if e.Offset, err = num("offset"); err != nil {
			return nil, err
		}
		e.Block, e.Op, e.Buffer = int(blk), get("op"), get("buffer")
		out = append(out, e)
	}
}

// PlanCSVHeader is the header of WritePlanCSV: the problem's columns, then
// block (-1 for a buffer of size 0), block_size, and offset (the byte
// offset inside the block: the alias delta, 0 otherwise).
var PlanCSVHeader = []string{"id", "lower", "upper", "size", "block", "block_size", "offset"}

// WritePlanCSV writes one row per buffer (see PlanCSVHeader).
func WritePlanCSV(w io.Writer, p *model.Problem, bp *BlockPlan) error {
	in, err := prepare(p)
	if err != nil {
		return err
	}
	if len(bp.Assign) != len(p.Buffers) {
		return fmt.Errorf("blocks: the plan assigns %d buffers; the problem has %d", len(bp.Assign), len(p.Buffers))
	}
	cw := csv.NewWriter(w)
	if err := cw.Write(PlanCSVHeader); err != nil {
		return err
	}
	for i := range p.Buffers {
		b := &p.Buffers[i]
		k := bp.Assign[i]
		bs := int64(0)
		if k >= 0 && k < len(bp.Blocks) {
			bs = bp.Blocks[k].Size
		}
		rec := []string{b.ID, strconv.FormatInt(b.Start, 10), strconv.FormatInt(b.End, 10), strconv.FormatInt(b.Size, 10),
			strconv.Itoa(k), strconv.FormatInt(bs, 10), strconv.FormatInt(in.delta[i], 10)}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// ReadPlanCSV reads a block plan written by WritePlanCSV for problem p:
// rows are matched to buffers by id; a block's size is its block_size
// column (rows of one block must agree). Errors name file:line and buffer.
func ReadPlanCSV(r io.Reader, name string, p *model.Problem) (*BlockPlan, error) {
	cr := csv.NewReader(bufio.NewReader(r))
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err != nil {
		return nil, &model.InputError{File: name, Line: 1, Msg: "empty plan: expected the header " + strings.Join(PlanCSVHeader, ",")}
	}
	col := map[string]int{}
	for i, h := range header {
		col[strings.ToLower(strings.TrimSpace(h))] = i
	}
	for _, c := range []string{"id", "block", "block_size"} {
		if _, ok := col[c]; !ok {
			return nil, &model.InputError{File: name, Line: 1, Msg: "missing column " + c}
		}
	}
	index := p.Index()
	bp := &BlockPlan{Assign: make([]int, len(p.Buffers))}
	seen := make([]bool, len(p.Buffers))
	sizes := map[int]int64{}
	nb := 0
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, csvReadError(name, err)
		}
		line, _ := cr.FieldPos(0)
		get := func(c string) string {
			if i := col[c]; i < len(rec) {
				return strings.TrimSpace(rec[i])
			}
			return ""
		}
		id := get("id")
		i, ok := index[id]
		if !ok {
			return nil, &model.InputError{File: name, Line: line, Msg: fmt.Sprintf("buffer %q is not in the problem", id)}
		}
		if seen[i] {
			return nil, &model.InputError{File: name, Line: line, Msg: fmt.Sprintf("buffer %q appears twice", id)}
		}
		seen[i] = true
		k, err1 := strconv.Atoi(get("block"))
		s, err2 := strconv.ParseInt(get("block_size"), 10, 64)
		if err1 != nil || err2 != nil || k < -1 || k > len(p.Buffers) {
			return nil, &model.InputError{File: name, Line: line, Msg: fmt.Sprintf("buffer %q: block %q and block_size %q must be integers, block in -1..%d", id, get("block"), get("block_size"), len(p.Buffers))}
		}
		bp.Assign[i] = k
		if k >= 0 {
			if old, ok := sizes[k]; ok && old != s {
				return nil, &model.InputError{File: name, Line: line, Msg: fmt.Sprintf("buffer %q: block %d has size %d here and %d above", id, k, s, old)}
			}
			sizes[k] = s
			nb = max(nb, k+1)
		}
	}
	for i, ok := range seen {
		if !ok {
			return nil, &model.InputError{File: name, Msg: fmt.Sprintf("buffer %q has no row", p.Buffers[i].ID)}
		}
	}
	for k := 0; k < nb; k++ {
		bp.Blocks = append(bp.Blocks, Block{ID: k, Size: sizes[k]})
	}
	return bp, nil
}

// resultJSON is the JSON form of a Result.
type resultJSON struct {
	Layout     string        `json:"layout"`
	Status     Status        `json:"status"`
	Reason     string        `json:"reason,omitempty"`
	Method     string        `json:"method"`
	TotalBytes int64         `json:"total_bytes"`
	LowerBound int64         `json:"lower_bound"`
	MinBlocks  int           `json:"min_blocks"`
	BlocksUsed int           `json:"blocks_used"`
	ElapsedS   float64       `json:"time_s"`
	Blocks     []Block       `json:"blocks"`
	Assign     []assignEntry `json:"assign"`
	// InUse is the number of blocks holding a live buffer, per run of
	// time steps (BlockPlan.InUse).
	InUse []StepCount `json:"blocks_in_use"`
}

type assignEntry struct {
	Buffer string `json:"buffer"`
	Block  int    `json:"block"`
}

// WriteResultJSON writes a result with its plan (buffer → block) as JSON.
func WriteResultJSON(w io.Writer, p *model.Problem, r *Result) error {
	out := resultJSON{Layout: "blocks", Status: r.Status, Reason: r.Reason, Method: r.Method, TotalBytes: r.TotalBytes,
		LowerBound: r.LowerBound, MinBlocks: r.MinBlocks, BlocksUsed: r.BlocksUsed, ElapsedS: r.Elapsed.Seconds()}
	if r.Plan != nil {
		out.Blocks = r.Plan.Blocks
		out.InUse = r.Plan.InUse(p)
		for i, k := range r.Plan.Assign {
			out.Assign = append(out.Assign, assignEntry{Buffer: p.Buffers[i].ID, Block: k})
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// Summary is the one-line summary of a result, in the CLI's style.
func (r *Result) Summary() string {
	return fmt.Sprintf("total_bytes=%d lower_bound=%d gap=%.2f%% blocks=%d min_blocks=%d status=%s method=%s time=%.3fs",
		r.TotalBytes, r.LowerBound, 100*r.Gap(), r.BlocksUsed, r.MinBlocks, r.Status, r.Method, r.Elapsed.Seconds())
}

// csvReadError turns a CSV read error into a file:line InputError.
func csvReadError(name string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &model.InputError{File: name, Line: pe.Line, Msg: pe.Err.Error()}
	}
	return &model.InputError{File: name, Msg: err.Error()}
}
