package multi

import (
	"fmt"
	"slices"

	"github.com/optalloc/optalloc/model"
)

// Model is one model's memory problem, on its own time line: its buffers'
// lifetimes are local steps from 0.
type Model struct {
	// Name names the model in buffer ids ("NAME/id"), messages and
	// schedule files; names must be distinct.
	Name string
	// Problem holds the model's buffers (one pool).
	Problem *model.Problem
	// Online marks the buffers the runtime places itself around the
	// offline ones (TFLite Micro's kernel scratch); nil means none.
	Online []bool
	// Inputs and Outputs are the model's graph inputs and outputs, in
	// order, for handoffs.
	Inputs, Outputs []Port
	// Weights are the model's constant tensors (not buffers of Problem):
	// planned only when Options.WeightsInArena is set, and then stored
	// once across models when their contents are identical.
	Weights []Weight
}

// Port is a model input or output: the tensor's name, element type and
// bytes (unrounded), and the index of its buffer in the model's Problem
// (-1 when it is not planned, e.g. a zero-byte tensor).
type Port struct {
	Name   string
	Type   string
	Bytes  int64
	Buffer int
}

// Weight is a constant tensor: its name, its size in bytes (rounded up to
// the alignment the target needs) and a digest of its contents (two
// weights with the same Key hold the same bytes).
type Weight struct {
	Name  string
	Size  int64
	Align int64
	Key   string
}

// Handoff makes output From.Output of model From and input To.Input of
// model To one buffer: the first model writes it, the next reads it where
// it is, without a copy.
type Handoff struct {
	From, Output int
	To, Input    int
}

// Options tune Combine.
type Options struct {
	// Handoffs join an output of a model to an input of a later model.
	Handoffs []Handoff
	// WeightsInArena plans every model's weights in the arena (targets
	// that keep weights in the planned memory: an NPU's or a GPU's),
	// resident over the whole schedule, with byte-identical weights stored
	// once. A TFLite Micro arena never holds weights (they stay in the
	// flatbuffer), so its callers leave this off.
	WeightsInArena bool
}

// Combined is one problem over several models.
type Combined struct {
	// Problem holds every model's buffers, on the schedule's time line.
	Problem *model.Problem
	Models  []Model
	// Schedule is the schedule combined.
	Schedule Schedule
	// Index[k][i] is the buffer of Problem that holds model k's buffer i.
	Index [][]int
	// Owner[j] is the model whose buffer j of Problem is (the producer for
	// a handoff, -1 for a weight stored in the arena).
	Owner []int
	// Online marks the combined buffers the runtime places itself (nil
	// when no model has any).
	Online []bool
	// Spans[k] is model k's stage's interval on the global time line.
	Spans [][2]int64
	// Handoffs are the handoffs made, with the buffers joined.
	Handoffs []Joined
	// SameWeights lists the weights byte-identical across models
	// (whether or not they are planned); WeightBuffers the combined
	// buffers of the weights planned (WeightsInArena), each stored once.
	SameWeights   []SameWeight
	WeightBuffers []int
}

// Joined is one handoff made: the buffer of Problem that holds both
// tensors.
type Joined struct {
	Handoff
	Buffer int
	// From and To describe the two tensors ("kws:output0 (tensor "x")").
	FromName, ToName string
}

// SameWeight is a weight found in several models with the same contents.
type SameWeight struct {
	Key   string
	Size  int64
	Names []string // "model/tensor", one per occurrence
}

// Limits on the time line of a concurrent stage, as in the model-graph
// front end.
const (
	maxSteps = 1 << 40
	maxGaps  = 2_000_000
)

// layout places one model on the global time line: a serial stage's model
// runs on [base, base+steps); a concurrent stage of models M1..Mk runs every
// interleaving: its time line is the product of theirs (M1's coordinate
// most significant), so that any two buffers of different models meet
// while two buffers of one model meet exactly when their local lifetimes
// do (the model-graph front end's construction, formats/graph).
type layout struct{ base, outer, steps, inner int64 }

func (l layout) span() [2]int64 { return [2]int64{l.base, l.base + l.outer*l.steps*l.inner} }

// life sets b's global lifetime from its local [s, e).
func (l layout) life(b *model.Buffer, s, e int64) {
	switch {
	case l.outer == 1:
		b.Start, b.End, b.Gaps = l.base+s*l.inner, l.base+e*l.inner, nil
	case s == 0 && e == l.steps:
		sp := l.span()
		b.Start, b.End, b.Gaps = sp[0], sp[1], nil
	default:
		b.Start = l.base + s*l.inner
		b.End = l.base + ((l.outer-1)*l.steps+e)*l.inner
		b.Gaps = make([]model.Gap, 0, l.outer-1)
		for o := int64(0); o+1 < l.outer; o++ {
			b.Gaps = append(b.Gaps, model.Gap{Start: l.base + (o*l.steps+e)*l.inner, End: l.base + ((o+1)*l.steps+s)*l.inner})
		}
	}
}

// steps is a model's local time line length: the end of its last buffer
// (at least 1).
func steps(p *model.Problem) int64 {
	n := int64(1)
	for i := range p.Buffers {
		n = max(n, p.Buffers[i].End)
	}
	return n
}

// layouts places the stages one after another.
func layouts(models []Model, s Schedule) ([]layout, error) {
	out := make([]layout, len(models))
	var base int64
	for _, st := range s.Stages {
		// The models with the most buffers first: their buffers get no gaps.
		order := slices.Clone(st)
		slices.SortStableFunc(order, func(x, y int) int { return len(models[y].Problem.Buffers) - len(models[x].Problem.Buffers) })
		total := int64(1)
		for _, k := range order {
			n := steps(models[k].Problem)
			if total > maxSteps/n {
				return nil, fmt.Errorf("concurrent models: their product time line has more than 2^40 steps; run fewer models at once")
			}
			total *= n
		}
		outer := int64(1)
		var gaps int64
		for _, k := range order {
			n := steps(models[k].Problem)
			out[k] = layout{base: base, outer: outer, steps: n, inner: total / outer / n}
			gaps += int64(len(models[k].Problem.Buffers)) * (outer - 1)
			outer *= n
		}
		if gaps > maxGaps {
			return nil, fmt.Errorf("concurrent models: expressing them exactly needs %d lifetime gaps (limit %d); run fewer or smaller models at once", gaps, maxGaps)
		}
		base += total
	}
	return out, nil
}

// Combine builds one problem over the models run on schedule s: each
// model's buffers on its stage's time span ("NAME/id"; aliases follow
// their parents), the handoffs joined into one buffer each, and, with
// opt.WeightsInArena, the weights resident over the whole schedule, each
// content stored once. Every model's problem must have a single pool.
func Combine(models []Model, s Schedule, opt Options) (*Combined, error) {
	if len(models) == 0 {
		return nil, fmt.Errorf("no models")
	}
	if err := s.Check(len(models)); err != nil {
		return nil, err
	}
	names := map[string]bool{}
	for _, m := range models {
		if names[m.Name] {
			return nil, fmt.Errorf("two models are named %q", m.Name)
		}
		names[m.Name] = true
		if len(m.Problem.Pools) > 1 {
			return nil, fmt.Errorf("model %s: %d pools; several models are combined in one", m.Name, len(m.Problem.Pools))
		}
		if m.Online != nil && len(m.Online) != len(m.Problem.Buffers) {
			return nil, fmt.Errorf("model %s: %d online flags for %d buffers", m.Name, len(m.Online), len(m.Problem.Buffers))
		}
	}
	lay, err := layouts(models, s)
	if err != nil {
		return nil, err
	}
	stageOf := make([]int, len(models))
	for i, st := range s.Stages {
		for _, k := range st {
			stageOf[k] = i
		}
	}
	c := &Combined{Problem: &model.Problem{Name: models[0].Problem.Name}, Models: models, Schedule: s,
		Index: make([][]int, len(models)), Spans: make([][2]int64, len(models))}
	// joinTo[k][i] = producer buffer (model, index) that model k's input
	// buffer i is joined to.
	type ref struct{ k, i int }
	joinTo := map[ref]ref{}
	for _, h := range opt.Handoffs {
		j, err := checkHandoff(models, stageOf, h)
		if err != nil {
			return nil, err
		}
		from, to := models[h.From].Outputs[h.Output].Buffer, models[h.To].Inputs[h.Input].Buffer
		if _, dup := joinTo[ref{h.To, to}]; dup {
			return nil, fmt.Errorf("handoff to %s: the input is given twice", j.ToName)
		}
		joinTo[ref{h.To, to}] = ref{h.From, from}
		c.Handoffs = append(c.Handoffs, j)
	}
	anyOnline := false
	for k, m := range models {
		l := lay[k]
		c.Spans[k] = l.span()
		c.Index[k] = make([]int, len(m.Problem.Buffers))
		for i := range m.Problem.Buffers {
			if _, joined := joinTo[ref{k, i}]; joined {
				c.Index[k][i] = -1 // filled below, once the producer is in
				continue
			}
			b := m.Problem.Buffers[i]
			b.ID = m.Name + "/" + b.ID
			b.Pools = nil
			if b.Alias != nil {
				al := *b.Alias
				al.Parent = m.Name + "/" + al.Parent
				b.Alias = &al
			}
			if len(b.Gaps) > 0 {
				return nil, fmt.Errorf("model %s: buffer %s has lifetime gaps; several models combine buffers without", m.Name, model.Quote(b.ID))
			}
			l.life(&b, b.Start, b.End)
			c.Index[k][i] = len(c.Problem.Buffers)
			c.Problem.Buffers = append(c.Problem.Buffers, b)
			c.Owner = append(c.Owner, k)
			on := m.Online != nil && m.Online[i]
			anyOnline = anyOnline || on
		}
	}
	for _, h := range opt.Handoffs {
		from, to := models[h.From].Outputs[h.Output].Buffer, models[h.To].Inputs[h.Input].Buffer
		j := c.Index[h.From][from]
		b := &c.Problem.Buffers[j]
		var in model.Buffer = models[h.To].Problem.Buffers[to]
		lay[h.To].life(&in, in.Start, in.End)
		// One buffer from the producer's write to the consumer's last read;
		// the gaps each has inside its own concurrent stage are kept.
		b.End = max(b.End, in.End)
		b.Gaps = append(b.Gaps, in.Gaps...)
		c.Index[h.To][to] = j
		for n := range c.Handoffs {
			if c.Handoffs[n].Handoff == h {
				c.Handoffs[n].Buffer = j
			}
		}
	}
	if anyOnline {
		c.Online = make([]bool, len(c.Problem.Buffers))
		for k, m := range models {
			for i, j := range c.Index[k] {
				if m.Online != nil && m.Online[i] {
					c.Online[j] = true
				}
			}
		}
	}
	c.sameWeights()
	if opt.WeightsInArena {
		c.addWeights(lay)
	}
	if err := c.Problem.Validate(); err != nil {
		return nil, err
	}
	return c, nil
}

// checkHandoff checks that the two tensors exist, agree in type and size,
// have buffers of their own, and that the producer runs in an earlier
// stage than the consumer.
func checkHandoff(models []Model, stageOf []int, h Handoff) (Joined, error) {
	j := Joined{Handoff: h}
	if h.From < 0 || h.From >= len(models) || h.To < 0 || h.To >= len(models) {
		return j, fmt.Errorf("handoff: no such model")
	}
	mf, mt := &models[h.From], &models[h.To]
	if h.Output < 0 || h.Output >= len(mf.Outputs) {
		return j, fmt.Errorf("handoff: %s has %d outputs; output%d does not exist", mf.Name, len(mf.Outputs), h.Output)
	}
	if h.Input < 0 || h.Input >= len(mt.Inputs) {
		return j, fmt.Errorf("handoff: %s has %d inputs; input%d does not exist", mt.Name, len(mt.Inputs), h.Input)
	}
	o, in := mf.Outputs[h.Output], mt.Inputs[h.Input]
	j.FromName = fmt.Sprintf("%s:output%d (tensor %s, %s, %d bytes)", mf.Name, h.Output, model.Quote(o.Name), o.Type, o.Bytes)
	j.ToName = fmt.Sprintf("%s:input%d (tensor %s, %s, %d bytes)", mt.Name, h.Input, model.Quote(in.Name), in.Type, in.Bytes)
	switch {
	case o.Type != in.Type && o.Bytes != in.Bytes:
		return j, fmt.Errorf("handoff %s = %s: the types and sizes differ", j.FromName, j.ToName)
	case o.Type != in.Type:
		return j, fmt.Errorf("handoff %s = %s: the types differ", j.FromName, j.ToName)
	case o.Bytes != in.Bytes:
		return j, fmt.Errorf("handoff %s = %s: the sizes differ", j.FromName, j.ToName)
	case o.Buffer < 0 || in.Buffer < 0:
		return j, fmt.Errorf("handoff %s = %s: a tensor is not planned in the arena (zero bytes?)", j.FromName, j.ToName)
	case stageOf[h.From] >= stageOf[h.To]:
		return j, fmt.Errorf("handoff %s = %s: %s must run before %s (an earlier stage of the schedule)", j.FromName, j.ToName, mf.Name, mt.Name)
	}
	bo, bi := &mf.Problem.Buffers[o.Buffer], &mt.Problem.Buffers[in.Buffer]
	if bo.Alias != nil || bi.Alias != nil || bo.Pin != nil || bi.Pin != nil || isParent(mf.Problem, bo.ID) || isParent(mt.Problem, bi.ID) {
		return j, fmt.Errorf("handoff %s = %s: a tensor is pinned or placed inside another one (a carried offline plan); a handoff needs buffers of their own", j.FromName, j.ToName)
	}
	if bo.Size != bi.Size || bo.Alignment() != bi.Alignment() {
		return j, fmt.Errorf("handoff %s = %s: the planned buffers differ (%d and %d bytes)", j.FromName, j.ToName, bo.Size, bi.Size)
	}
	return j, nil
}

func isParent(p *model.Problem, id string) bool {
	return slices.ContainsFunc(p.Buffers, func(b model.Buffer) bool { return b.Alias != nil && b.Alias.Parent == id })
}

// sameWeights lists the weights whose contents appear in more than one
// model.
func (c *Combined) sameWeights() {
	type occ struct {
		size  int64
		names []string
		ms    map[int]bool
	}
	by := map[string]*occ{}
	var keys []string
	for k, m := range c.Models {
		for _, w := range m.Weights {
			if w.Key == "" {
				continue
			}
			o := by[w.Key]
			if o == nil {
				o = &occ{size: w.Size, ms: map[int]bool{}}
				by[w.Key] = o
				keys = append(keys, w.Key)
			}
			o.names = append(o.names, m.Name+"/"+w.Name)
			o.ms[k] = true
		}
	}
	for _, key := range keys {
		if o := by[key]; len(o.ms) > 1 {
			c.SameWeights = append(c.SameWeights, SameWeight{Key: key, Size: o.size, Names: o.names})
		}
	}
}

// addWeights appends the weights, resident over the whole schedule, each
// content once (weights without a key are never merged).
func (c *Combined) addWeights(lay []layout) {
	var end int64
	for _, l := range lay {
		end = max(end, l.span()[1])
	}
	stored := map[string]int{}
	for _, m := range c.Models {
		for _, w := range m.Weights {
			if _, ok := stored[w.Key]; ok && w.Key != "" {
				continue
			}
			id := m.Name + "/" + w.Name
			stored[w.Key] = len(c.Problem.Buffers)
			c.WeightBuffers = append(c.WeightBuffers, len(c.Problem.Buffers))
			c.Problem.Buffers = append(c.Problem.Buffers, model.Buffer{ID: id, Start: 0, End: end, Size: w.Size, Align: w.Align, Kind: model.Weight})
			c.Owner = append(c.Owner, -1)
			if c.Online != nil {
				c.Online = append(c.Online, false)
			}
		}
	}
}

// Split returns each model's plan (of its own Problem) from a plan of the
// combined problem: every buffer at its combined offset, so that every
// model's plan is relative to the shared arena.
func (c *Combined) Split(pl *model.Plan) []*model.Plan {
	out := make([]*model.Plan, len(c.Models))
	for k, m := range c.Models {
		p := model.NewPlan(m.Problem)
		for i, j := range c.Index[k] {
			p.Placements[i] = pl.Placements[j]
			p.Placements[i].Pool = 0
		}
		out[k] = p
	}
	return out
}

// Join is Split's inverse: the combined plan made of each model's plan
// (a handoff's buffer takes the producer's placement).
func (c *Combined) Join(plans []*model.Plan) *model.Plan {
	pl := model.NewPlan(c.Problem)
	for k := range c.Models {
		for i, j := range c.Index[k] {
			pl.Placements[j] = plans[k].Placements[i]
		}
	}
	for _, h := range c.Handoffs {
		pl.Placements[h.Buffer] = plans[h.From].Placements[c.Models[h.From].Outputs[h.Output].Buffer]
	}
	return pl
}
