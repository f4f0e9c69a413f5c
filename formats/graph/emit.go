package graph

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/optalloc/optalloc/model"
)

// maxSteps bounds the length of the timeline of a concurrent stage (the
// product of its models' op counts) and maxGaps the gaps it creates.
const (
	maxSteps = 1 << 40
	maxGaps  = 2_000_000
)

// layout places one model on the global timeline. A serial stage holds one
// model: local step t is global step base+t. A concurrent stage of models
// M1..Mk runs every interleaving: its timeline is the product of their
// timelines, point (t1, ..., tk) at base + mixed-radix index (t1 most
// significant). A buffer of Mj live on local [s, e) is live at every point
// whose j-th coordinate is in [s, e): one interval per value of the
// coordinates before j, i.e. an interval with gaps. Any two buffers of
// different models then meet (at some point both coordinates are in range),
// so concurrent models never share memory, while two buffers of one model
// meet exactly when their local lifetimes do, so each model keeps its own
// reuse.
type layout struct {
	base, outer, steps, inner int64
}

// intervals maps local [s, e) to sorted, disjoint global intervals.
func (l layout) intervals(s, e int64) [][2]int64 {
	if s == 0 && e == l.steps {
		return [][2]int64{{l.base, l.base + l.outer*l.steps*l.inner}}
	}
	out := make([][2]int64, 0, l.outer)
	for o := range l.outer {
		out = append(out, [2]int64{l.base + (o*l.steps+s)*l.inner, l.base + (o*l.steps+e)*l.inner})
	}
	return out
}

// setLife gives buf the global lifetime of local [s, e): one interval
// when the model's stage is serial (no list of intervals to allocate,
// which cost a tenth of reading a large graph), else intervals with gaps.
func (l layout) setLife(buf *model.Buffer, s, e int64) {
	switch {
	case l.outer == 1:
		buf.Start, buf.End, buf.Gaps = l.base+s*l.inner, l.base+e*l.inner, nil
	case s == 0 && e == l.steps:
		sp := l.span()
		buf.Start, buf.End, buf.Gaps = sp[0], sp[1], nil
	default:
		setLife(buf, l.intervals(s, e))
	}
}

// span is the global interval of the model's stage.
func (l layout) span() [2]int64 { return [2]int64{l.base, l.base + l.outer*l.steps*l.inner} }

// layouts places the models of the stages one stage after another. Inside
// a concurrent stage the models with the most buffers come first (their
// buffers get no gaps).
func (b *builder) layouts(infos []*minfo, stages [][]int) (map[int]layout, error) {
	out := map[int]layout{}
	var base int64
	for _, st := range stages {
		order := slices.Clone(st)
		counts := map[int]int{}
		for _, k := range st {
			for _, l := range infos[k].live {
				if l {
					counts[k]++
				}
			}
		}
		nbuf := func(k int) int { return counts[k] }
		slices.SortStableFunc(order, func(x, y int) int { return nbuf(y) - nbuf(x) })
		total := int64(1)
		for _, k := range order {
			if total > maxSteps/infos[k].steps {
				return nil, b.errf(0, "concurrent models %v: their product timeline has more than 2^40 steps; run fewer models at once", st)
			}
			total *= infos[k].steps
		}
		outer := int64(1)
		var gaps int64
		for _, k := range order {
			inner := total / outer / infos[k].steps
			out[k] = layout{base: base, outer: outer, steps: infos[k].steps, inner: inner}
			gaps += int64(nbuf(k)) * (outer - 1)
			outer *= infos[k].steps
		}
		if gaps > maxGaps {
			return nil, b.errf(0, "concurrent models: expressing them exactly needs %d lifetime gaps (limit %d); run fewer or smaller models at once", gaps, maxGaps)
		}
		base += total
	}
	return out, nil
}

func setLife(buf *model.Buffer, ivs [][2]int64) {
	buf.Start, buf.End = ivs[0][0], ivs[len(ivs)-1][1]
	buf.Gaps = nil
	for k := 1; k < len(ivs); k++ {
		if ivs[k][0] > ivs[k-1][1] {
			buf.Gaps = append(buf.Gaps, model.Gap{Start: ivs[k-1][1], End: ivs[k][0]})
		}
	}
}

// emit builds the problem of the given stages and, for every buffer, the
// index of its alias parent (-1 for none), which maxLiveOf uses instead
// of an index of the ids. With record it fills the report's weight sharing
// and scratch lists.
func (b *builder) emit(infos []*minfo, stages [][]int, record bool) (*model.Problem, []int, error) {
	lay, err := b.layouts(infos, stages)
	if err != nil {
		return nil, nil, err
	}
	// Room for every tensor and scratch buffer: growing a slice of 100 000
	// buffers one append at a time cost a fifth of reading a large graph.
	room, checked := 0, 0
	for _, mi := range infos {
		room += len(mi.tensors)
		if mi.prefix != "" {
			checked += len(mi.tensors)
		}
		for o := range mi.m.Ops {
			room += len(mi.m.Ops[o].Scratch)
			checked += len(mi.m.Ops[o].Scratch)
		}
	}
	p := &model.Problem{Name: b.file, Buffers: make([]model.Buffer, 0, room)}
	parents := make([]int, 0, room)
	idLine := make(map[string]int, checked)
	var align int64
	if b.align > 1 {
		align = b.align
	}
	// add appends a buffer, checking that its id is new. An id without
	// ":" of a single-model file's tensor is its tensor's name: distinct
	// from the other tensors' (checkModel) and from every scratch id (they
	// have ":"), so it skips the map (a tenth of reading a large graph).
	add := func(buf model.Buffer, distinct bool) error {
		if distinct {
			p.Buffers = append(p.Buffers, buf)
			parents = append(parents, -1)
			return nil
		}
		if l, dup := idLine[buf.ID]; dup {
			return b.errf(buf.Line, "buffer id %q is used twice (also line %d): rename the tensor, op or scratch", buf.ID, l)
		}
		idLine[buf.ID] = buf.Line
		p.Buffers = append(p.Buffers, buf)
		parents = append(parents, -1)
		return nil
	}
	// Resident weights live over the whole timeline of every stage.
	var whole [2]int64
	for _, l := range lay {
		whole[1] = max(whole[1], l.span()[1])
	}
	weights := map[string]int{} // content key -> buffer index
	shares := map[int]int{}     // buffer index -> index in rep.SharedWeights
	var open []int              // variable scratch without a maximum
	for k, mi := range infos {
		l, ok := lay[k]
		if !ok {
			continue
		}
		ids := make([]string, len(mi.tensors))
		bidx := make([]int, len(mi.tensors))
		for t := range mi.tensors {
			ti := &mi.tensors[t]
			if !mi.live[t] {
				continue
			}
			id := mi.prefix + ti.t.Name
			if constant(ti.kind) {
				key, err := b.weightKey(ti)
				if err != nil {
					return nil, nil, err
				}
				sp := l.span()
				if b.resident(mi) {
					sp = whole
				}
				if w, seen := weights[key]; seen && key != "" {
					wb := &p.Buffers[w]
					wb.Start, wb.End = min(wb.Start, sp[0]), max(wb.End, sp[1])
					ids[t], bidx[t] = wb.ID, w
					if record {
						b.renamed[id] = wb.ID
						s, ok := shares[w]
						if !ok {
							s = len(b.rep.SharedWeights)
							shares[w] = s
							b.rep.SharedWeights = append(b.rep.SharedWeights, WeightShare{Kept: wb.ID, Bytes: wb.Size})
						}
						b.rep.SharedWeights[s].Also = append(b.rep.SharedWeights[s].Also, id)
						b.rep.WeightBytesSaved += wb.Size
					}
					continue
				}
				if key != "" {
					weights[key] = len(p.Buffers)
				}
			}
			ids[t] = id
			buf := model.Buffer{ID: id, Size: ti.size, Align: align, Kind: ti.kind, Line: ti.t.Line}
			if ti.parent >= 0 {
				buf.Size = ti.bytes // a view covers its bytes; padding belongs to the parent
			}
			if constant(ti.kind) && b.resident(mi) {
				setLife(&buf, [][2]int64{whole})
			} else {
				l.setLife(&buf, ti.start, ti.end)
			}
			bidx[t] = len(p.Buffers)
			if err := add(buf, mi.prefix == "" && !strings.Contains(id, ":")); err != nil {
				return nil, nil, err
			}
		}
		for t := range mi.tensors {
			if ti := &mi.tensors[t]; ti.parent >= 0 {
				p.Buffers[bidx[t]].Alias = &model.Alias{Parent: ids[ti.parent], Delta: ti.delta}
				parents[bidx[t]] = bidx[ti.parent]
			}
		}
		for i := range mi.m.Ops {
			o := &mi.m.Ops[i]
			bufs := make([]model.Buffer, len(o.Scratch))
			variable := make([]bool, len(o.Scratch))
			for s, sc := range o.Scratch {
				buf, v, err := b.scratch(mi, o, s, sc)
				if err != nil {
					return nil, nil, err
				}
				buf.Align = align
				l.setLife(&buf, int64(i), int64(i)+1)
				bufs[s], variable[s] = buf, v
			}
			if err := b.shareScratch(mi, o, bufs, variable); err != nil {
				return nil, nil, err
			}
			first := len(p.Buffers)
			for s, buf := range bufs {
				if variable[s] && o.Scratch[s].MaxSize == nil {
					open = append(open, len(p.Buffers))
				}
				if err := add(buf, false); err != nil {
					return nil, nil, err
				}
				if buf.Alias != nil { // shared scratch: its parent is a scratch buffer of this op
					parents[first+s] = first + slices.IndexFunc(bufs, func(x model.Buffer) bool { return x.ID == buf.Alias.Parent })
				}
			}
		}
	}
	if len(open) > 0 {
		var total int64
		for i := range p.Buffers {
			if p.Buffers[i].Alias == nil {
				total += max(p.Buffers[i].Size, p.Buffers[i].MaxSize)
			}
		}
		for _, i := range open {
			if c := alignDown(total, b.align); c > p.Buffers[i].Size {
				p.Buffers[i].MaxSize = c
			}
		}
	}
	if record {
		for i := range p.Buffers {
			if bf := &p.Buffers[i]; bf.Kind == model.Scratch {
				b.rep.Scratch = append(b.rep.Scratch, ScratchInfo{ID: bf.ID, Size: bf.Size, MaxSize: bf.MaxSize, LatencyCritical: bf.LatencyCritical})
			}
		}
	}
	if err := p.Validate(); err != nil {
		return nil, nil, fmt.Errorf("graph: internal error, the built problem is invalid: %w", err)
	}
	return p, parents, nil
}

// resident reports whether a model's weights stay in memory between its
// runs (see Model.ReloadWeights); Report.Reload is built with every model
// reloading.
func (b *builder) resident(mi *minfo) bool { return !mi.m.ReloadWeights && !b.reloadAll }

// shareScratch turns the "shares" links among an op's scratch buffers into
// aliases: each group of linked buffers becomes a chain, largest first,
// every member at delta 0 inside the one before it (a chain, so that no two
// members are unrelated siblings on the same bytes).
func (b *builder) shareScratch(mi *minfo, o *Op, bufs []model.Buffer, variable []bool) error {
	if !slices.ContainsFunc(o.Scratch, func(sc Scratch) bool { return sc.Shares != "" }) {
		return nil
	}
	byName := map[string]int{}
	for s := range bufs {
		byName[scratchName(o, s)] = s
	}
	group := make([]int, len(bufs)) // union-find
	for s := range group {
		group[s] = s
	}
	find := func(s int) int {
		for group[s] != s {
			group[s], s = group[group[s]], group[s]
		}
		return s
	}
	linked := false
	for s, sc := range o.Scratch {
		if sc.Shares == "" {
			continue
		}
		where := b.opWhere(mi, o) + ": scratch " + scratchName(o, s)
		t, ok := byName[sc.Shares]
		switch {
		case !ok:
			return b.errf(o.Line, "%s shares %q, which is not a scratch buffer of this op", where, sc.Shares)
		case t == s:
			return b.errf(o.Line, "%s shares itself", where)
		}
		for _, x := range []int{s, t} {
			if variable[x] {
				return b.errf(o.Line, "%s: scratch %s: shared scratch needs fixed sizes (size), not min_size/max_size", b.opWhere(mi, o), scratchName(o, x))
			}
		}
		group[find(s)] = find(t)
		linked = true
	}
	if !linked {
		return nil
	}
	members := map[int][]int{}
	for s := range bufs {
		r := find(s)
		members[r] = append(members[r], s)
	}
	for _, ms := range members {
		slices.SortStableFunc(ms, func(x, y int) int { return cmp.Compare(bufs[y].Size, bufs[x].Size) })
		for k := 1; k < len(ms); k++ {
			bufs[ms[k]].Alias = &model.Alias{Parent: bufs[ms[k-1]].ID}
		}
	}
	return nil
}

// scratchName is the name of scratch area s of op o: its own, else
// "scratch" (or "scratchS" when the op has several).
func scratchName(o *Op, s int) string {
	switch {
	case o.Scratch[s].Name != "":
		return o.Scratch[s].Name
	case len(o.Scratch) > 1:
		return fmt.Sprintf("scratch%d", s)
	}
	return "scratch"
}

// scratch builds the buffer of scratch area s of op o (without lifetime).
func (b *builder) scratch(mi *minfo, o *Op, s int, sc Scratch) (model.Buffer, bool, error) {
	name := scratchName(o, s)
	id := mi.prefix + o.Name + ":" + name
	buf := model.Buffer{ID: id, Kind: model.Scratch, Line: o.Line, LatencyCritical: o.LatencyCritical}
	if sc.LatencyCritical != nil {
		buf.LatencyCritical = *sc.LatencyCritical
	}
	fail := func(format string, args ...any) (model.Buffer, bool, error) {
		where := b.opWhere(mi, o) + ": scratch " + name
		return buf, false, b.errf(o.Line, "%s: "+format, append([]any{where}, args...)...)
	}
	for _, v := range []*int64{sc.Size, sc.MinSize, sc.MaxSize} {
		if v != nil && *v > 1<<52 {
			return fail("%d bytes is too large", *v)
		}
	}
	switch {
	case sc.Size != nil && (sc.MinSize != nil || sc.MaxSize != nil):
		return fail("give size (fixed) or min_size/max_size (variable), not both")
	case sc.Size != nil:
		if *sc.Size < 0 {
			return fail("size %d is negative", *sc.Size)
		}
		buf.Size = alignUp(*sc.Size, b.align)
		return buf, false, nil
	case sc.MinSize != nil:
		if *sc.MinSize < 0 {
			return fail("min_size %d is negative", *sc.MinSize)
		}
		buf.Size = alignUp(*sc.MinSize, b.align)
		if sc.MaxSize != nil {
			if *sc.MaxSize < *sc.MinSize {
				return fail("max_size %d is below min_size %d", *sc.MaxSize, *sc.MinSize)
			}
			if m := alignDown(*sc.MaxSize, b.align); m > buf.Size {
				buf.MaxSize = m
			}
		}
		return buf, true, nil
	}
	return fail("missing size (give size, or min_size and optionally max_size)")
}
