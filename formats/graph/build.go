package graph

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"slices"

	"github.com/optalloc/optalloc/formats"
	"github.com/optalloc/optalloc/model"
)

// DefaultAlignment is the alignment used when a file gives none (TFLite's
// tensor alignment).
const DefaultAlignment = 64

func init() {
	formats.Register(".graph.json", readProblem)
	formats.RegisterSniffer(Sniff, readProblem)
}

// readProblem is Read for formats.Load, which has no use for the report:
// it skips the report's figures where leaving them out cannot change the
// outcome (see buildGraph).
func readProblem(r io.Reader, name string) (*model.Problem, error) {
	f, err := Decode(r, name)
	if err != nil {
		return nil, err
	}
	p, _, err := buildGraph(f, name, false)
	return p, err
}

// Sniff reports whether data looks like a model graph: a JSON object whose
// own keys include "ops" or "models" (a JSON problem has "buffers"
// instead). Only the top-level keys count: a buffer named "ops" inside a
// JSON problem does not make it a graph.
func Sniff(data []byte) bool {
	t := bytes.TrimSpace(bytes.TrimPrefix(data, []byte("\ufeff")))
	if len(t) == 0 || t[0] != '{' {
		return false
	}
	graph := false
	topLevelKeys(t, func(k string) bool {
		switch k {
		case "ops", "models":
			graph = true
			return false
		case "buffers":
			return false
		}
		return true
	})
	return graph
}

// topLevelKeys calls key with each key of the JSON object t, in order,
// until it returns false, skipping the values by counting brackets (it
// reads no further than the keys it reports).
func topLevelKeys(t []byte, key func(string) bool) {
	depth := 0
	expectKey := false
	for i := 0; i < len(t); i++ {
		switch c := t[i]; c {
		case '{', '[':
			depth++
			expectKey = c == '{' && depth == 1
		case '}', ']':
			depth--
		case ',':
			expectKey = depth == 1
		case '"':
			j := i + 1
			for j < len(t) && t[j] != '"' {
				if t[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(t) {
				return
			}
			if expectKey && depth == 1 && !key(string(t[i+1:j])) {
				return
			}
			expectKey = false
			i = j
		}
	}
}

// Read decodes a .graph.json model graph and builds the buffer problem (see
// Build). name is used in error messages. Errors are *model.InputError with
// the file and line of the offending model, tensor or op.
func Read(r io.Reader, name string) (*model.Problem, *Report, error) {
	f, err := Decode(r, name)
	if err != nil {
		return nil, nil, err
	}
	return Build(f, name)
}

type builder struct {
	reloadAll                     bool   // every model's weights reloaded per run (Report.Reload)
	order                         string // File.Order
	file                          string
	align                         int64
	inputsFromStart, outputsToEnd bool
	several                       bool
	rules                         *InPlace
	renamed                       map[string]string // shared weight -> the buffer that holds it
	rep                           *Report
}

// Build checks a decoded graph and turns it into a problem: one buffer per
// live tensor (id = tensor name, "model/tensor" when there are several
// models), one per scratch area (id "op:scratch"), lifetimes from the
// schedule, aliases from the in-place rules and one buffer per distinct
// weight content. The problem is validated. name is used in messages.
func Build(f *File, name string) (*model.Problem, *Report, error) {
	return buildGraph(f, name, true)
}

// buildGraph is Build; without withReport, the report of a single model lacks
// its max-live and separate problem (summarise): a tenth of reading a
// large graph, and nothing there can fail for one model, whose layout emit
// already made. Several models are always summarised: emitting each one
// alone may fail where the whole problem did not.
func buildGraph(f *File, name string, withReport bool) (*model.Problem, *Report, error) {
	b := &builder{file: name, align: f.Alignment, inputsFromStart: true, outputsToEnd: true, rules: f.InPlace, rep: &Report{File: name}, renamed: map[string]string{}}
	if b.align == 0 {
		b.align = DefaultAlignment
	}
	if b.align < 0 || b.align > 1<<30 {
		return nil, nil, b.errf(0, "alignment %d must be between 1 and 2^30 (0 means %d)", f.Alignment, DefaultAlignment)
	}
	b.rep.Alignment = b.align
	if err := checkOrder(f.Order); err != nil {
		return nil, nil, b.errf(0, "%v", err)
	}
	b.order = f.Order
	if l := f.Liveness; l != nil {
		if l.InputsFromStart != nil {
			b.inputsFromStart = *l.InputsFromStart
		}
		if l.OutputsToEnd != nil {
			b.outputsToEnd = *l.OutputsToEnd
		}
	}
	models := f.Models
	switch {
	case len(models) > 0 && (len(f.Tensors) > 0 || len(f.Ops) > 0):
		return nil, nil, b.errf(0, "give either \"models\" or top-level \"tensors\" and \"ops\", not both")
	case len(models) == 0 && len(f.Ops) == 0:
		return nil, nil, b.errf(0, "no models: give \"models\", or \"tensors\" and \"ops\"")
	case len(models) == 0:
		n := f.Name
		if n == "" {
			n = "model"
		}
		models = []Model{{Name: n, Tensors: f.Tensors, Ops: f.Ops, Line: 1}}
	}
	b.several = len(models) > 1
	infos := make([]*minfo, len(models))
	byName := map[string]int{}
	for i := range models {
		m := &models[i]
		if b.several && m.Name == "" {
			return nil, nil, b.errf(m.Line, "model %d has no name (every model needs one when there are several)", i+1)
		}
		if j, dup := byName[m.Name]; dup {
			return nil, nil, b.errf(m.Line, "model %q is defined twice (first on line %d)", m.Name, models[j].Line)
		}
		byName[m.Name] = i
		mi, err := b.checkModel(m, m.Name)
		if err != nil {
			return nil, nil, err
		}
		mi.live = make([]bool, len(mi.tensors))
		for k := range mi.tensors {
			mi.live[k] = b.liveness(mi, k)
		}
		if err := b.inPlace(mi); err != nil {
			return nil, nil, err
		}
		b.resolveOverlaps(mi)
		b.report(mi)
		infos[i] = mi
	}
	stages, err := b.stages(f, infos, byName)
	if err != nil {
		return nil, nil, err
	}
	p, parents, err := b.emit(infos, stages, true)
	if err != nil {
		return nil, nil, err
	}
	if len(stages) > 1 && slices.ContainsFunc(infos, func(mi *minfo) bool { return !mi.m.ReloadWeights }) {
		b.reloadAll = true
		b.rep.Reload, _, err = b.emit(infos, stages, false)
		b.reloadAll = false
		if err != nil {
			return nil, nil, err
		}
	}
	for i := range b.rep.Aliases {
		a := &b.rep.Aliases[i]
		for _, s := range []*string{&a.Child, &a.Parent, &a.Tensor} {
			if k, ok := b.renamed[*s]; ok {
				*s = k
			}
		}
	}
	b.rep.Stages = make([][]string, len(stages))
	for s, st := range stages {
		for _, k := range st {
			b.rep.Stages[s] = append(b.rep.Stages[s], infos[k].name)
		}
	}
	if withReport || len(infos) > 1 {
		if err := b.summarise(p, parents, infos); err != nil {
			return nil, nil, err
		}
	}
	return p, b.rep, nil
}

// stages resolves the schedule into stages of model indices.
func (b *builder) stages(f *File, infos []*minfo, byName map[string]int) ([][]int, error) {
	s := f.Schedule
	if s == nil || s.Mode == "serial" {
		out := make([][]int, len(infos))
		for i := range infos {
			out[i] = []int{i}
		}
		return out, nil
	}
	if s.Mode == "concurrent" {
		all := make([]int, len(infos))
		for i := range infos {
			all[i] = i
		}
		return [][]int{all}, nil
	}
	seen := map[string]bool{}
	var out [][]int
	for _, st := range s.Stages {
		if len(st) == 0 {
			return nil, b.errf(f.scheduleLine, "schedule: a stage is empty")
		}
		var ks []int
		for _, n := range st {
			k, ok := byName[n]
			if !ok {
				return nil, b.errf(f.scheduleLine, "schedule: unknown model %q", n)
			}
			if seen[n] {
				return nil, b.errf(f.scheduleLine, "schedule: model %q appears twice", n)
			}
			seen[n] = true
			ks = append(ks, k)
		}
		out = append(out, ks)
	}
	for _, mi := range infos {
		if !seen[mi.name] {
			return nil, b.errf(f.scheduleLine, "schedule: model %q is not scheduled", mi.name)
		}
	}
	return out, nil
}

// weightKey identifies a weight's or code tensor's content: its hash or
// its data, with its size (and "code:" before a code tensor's key: code and
// weights are never merged); "" when it has neither.
func (b *builder) weightKey(ti *tinfo) (string, error) {
	kind := ""
	if ti.kind == model.Code {
		kind = "code:"
	}
	switch {
	case ti.t.Hash != "":
		return fmt.Sprintf("%shash:%s/%d", kind, ti.t.Hash, ti.bytes), nil
	case ti.t.Data != "":
		raw, err := base64.StdEncoding.DecodeString(ti.t.Data)
		if err != nil {
			return "", b.errf(ti.t.Line, "%s %q: data is not base64: %v", ti.kind, ti.t.Name, err)
		}
		if int64(len(raw)) != ti.bytes {
			return "", b.errf(ti.t.Line, "%s %q: data has %d bytes, its size is %d", ti.kind, ti.t.Name, len(raw), ti.bytes)
		}
		sum := sha256.Sum256(raw)
		return fmt.Sprintf("%sdata:%s/%d", kind, hex.EncodeToString(sum[:]), ti.bytes), nil
	}
	return "", nil
}

// constant reports whether a tensor kind holds constant bytes (weights and
// code): no op produces them, they live over their model's whole run (or
// resident over every model's), and identical ones are stored once.
func constant(k model.Kind) bool { return k == model.Weight || k == model.Code }
