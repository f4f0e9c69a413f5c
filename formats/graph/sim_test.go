package graph

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/heuristics"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/verify"
)

// The simulator executes a graph in a planned memory and checks that every
// op reads what the graph says it should: an independent check that
// liveness, the in-place rules, the weight sharing and the plan together
// are sound. Every byte holds a label: the source that produced it and its
// position there. Views (reshape, split, slice, concat) hold the labels of
// the bytes they view; every other op produces fresh labels. Values and
// memory are kept as runs of consecutive labels (segments), so that real
// models run in milliseconds.

// seg says that bytes [off, off+n) hold bytes [at, at+n) of source src.
type seg struct {
	off, n int64
	src    string
	at     int64
}

// sub returns the bytes [lo, hi) of a value, renumbered from 0.
func sub(v []seg, lo, hi int64) []seg {
	var out []seg
	for _, s := range v {
		a, b := max(s.off, lo), min(s.off+s.n, hi)
		if a < b {
			out = append(out, seg{a - lo, b - a, s.src, s.at + a - s.off})
		}
	}
	return out
}

func shift(v []seg, d int64) []seg {
	out := make([]seg, len(v))
	for i, s := range v {
		s.off += d
		out[i] = s
	}
	return out
}

// norm merges adjacent segments that continue each other.
func norm(v []seg) []seg {
	var out []seg
	for _, s := range v {
		if k := len(out) - 1; k >= 0 && out[k].src == s.src && out[k].off+out[k].n == s.off && out[k].at+out[k].n == s.at {
			out[k].n += s.n
			continue
		}
		out = append(out, s)
	}
	return out
}

// memory maps addresses of one pool to labels: sorted disjoint segments.
type memory struct{ segs []seg }

func (m *memory) write(addr int64, v []seg) {
	hi := addr
	for _, s := range v {
		hi = max(hi, addr+s.off+s.n)
	}
	var keep []seg
	for _, s := range m.segs {
		if s.off+s.n <= addr || s.off >= hi {
			keep = append(keep, s)
			continue
		}
		if s.off < addr {
			keep = append(keep, seg{s.off, addr - s.off, s.src, s.at})
		}
		if s.off+s.n > hi {
			keep = append(keep, seg{hi, s.off + s.n - hi, s.src, s.at + hi - s.off})
		}
	}
	keep = append(keep, shift(v, addr)...)
	slices.SortFunc(keep, func(a, b seg) int { return int(a.off - b.off) })
	m.segs = keep
}

func (m *memory) read(addr, n int64) []seg {
	return norm(shift(sub(m.segs, addr, addr+n), 0))
}

type simTensor struct {
	id    string // buffer id
	t     *Tensor
	width int64
	bytes int64
}

func simBytes(t *Tensor) (width, n int64) {
	if t.Bytes != nil {
		n = *t.Bytes
	}
	if w, ok := DTypeWidth(t.DType); ok {
		width = w
		if t.Shape != nil {
			n = w
			for _, d := range t.Shape {
				n *= d
			}
		}
	}
	return width, n
}

func prod(xs []int64) int64 {
	p := int64(1)
	for _, x := range xs {
		p *= x
	}
	return p
}

// simulate plans p with greedy-size, verifies the plan, and runs the graph
// f (serial stages only) in it.
func simulate(t *testing.T, p *model.Problem, f *File, r *Report) {
	t.Helper()
	pl, ok := heuristics.ByName("greedy-size")
	require.True(t, ok)
	plan, err := pl.Plan(context.Background(), p)
	require.NoError(t, err)
	require.Empty(t, verify.Check(p, plan))
	require.NoError(t, runPlan(p, plan, f, r))
}

type simError struct{ error }

// runPlan executes the graph in the plan and returns the first corrupted
// read.
func runPlan(p *model.Problem, plan *model.Plan, f *File, r *Report) (err error) {
	defer func() {
		if e, ok := recover().(simError); ok {
			err = e
		}
	}()
	fail := func(format string, args ...any) { panic(simError{fmt.Errorf(format, args...)}) }
	idx := p.Index()
	kept := map[string]string{}
	for _, s := range r.SharedWeights {
		for _, a := range s.Also {
			kept[a] = s.Kept
		}
	}
	models := f.Models
	if len(models) == 0 {
		models = []Model{{Name: r.Models[0].Name, Tensors: f.Tensors, Ops: f.Ops}}
	}
	byModel := map[string]*Model{}
	for i := range models {
		byModel[models[i].Name] = &models[i]
	}
	for _, st := range r.Stages {
		if len(st) != 1 {
			return fmt.Errorf("the simulator runs serial schedules only")
		}
	}
	mems := make([]memory, len(p.PoolList()))
	for _, mr := range r.Models {
		m := byModel[mr.Name]
		prefix := ""
		if len(models) > 1 {
			prefix = m.Name + "/"
		}
		ts := map[string]*simTensor{}
		for i := range m.Tensors {
			tt := &m.Tensors[i]
			w, n := simBytes(tt)
			id := prefix + tt.Name
			if k, ok := kept[id]; ok {
				id = k
			}
			ts[tt.Name] = &simTensor{id: id, t: tt, width: w, bytes: n}
		}
		producer := map[string]*Op{}
		for i := range m.Ops {
			for _, o := range m.Ops[i].Outputs {
				producer[o] = &m.Ops[i]
			}
		}
		memo := map[string][]seg{}
		// value returns the labels tensor name must hold.
		var value func(name string) []seg
		value = func(name string) []seg {
			if v, ok := memo[name]; ok {
				return v
			}
			st := ts[name]
			v := []seg{{0, st.bytes, "op:" + prefix + name, 0}}
			switch strings.ToLower(st.t.Kind) {
			case "weight":
				v[0].src = "weight:" + st.id
				if st.t.Hash != "" {
					v[0].src = "hash:" + st.t.Hash
				}
			case "input":
				v[0].src = "input:" + prefix + name
			default:
				o := producer[name]
				axis := func(rank int) int {
					a := 0
					if o.Axis != nil {
						a = *o.Axis
					}
					if a < 0 {
						a += rank
					}
					return a
				}
				switch ruleOf(o.Type) {
				case "reshape":
					v = value(o.Inputs[0])
				case "concat":
					a := axis(len(st.t.Shape))
					outer := prod(st.t.Shape[:a])
					v = nil
					var pos int64
					for blk := range outer {
						for _, in := range o.Inputs {
							ti := ts[in]
							chunk := prod(ti.t.Shape[a:]) * ti.width
							v = append(v, shift(sub(value(in), blk*chunk, (blk+1)*chunk), pos)...)
							pos += chunk
						}
					}
				case "split":
					in := ts[o.Inputs[0]]
					a := axis(len(in.t.Shape))
					outer := prod(in.t.Shape[:a])
					whole := prod(in.t.Shape[a:]) * in.width
					var before int64
					for _, out := range o.Outputs {
						if out == name {
							break
						}
						before += prod(ts[out].t.Shape[a:]) * in.width
					}
					chunk := prod(st.t.Shape[a:]) * st.width
					v = nil
					for blk := range outer {
						v = append(v, shift(sub(value(o.Inputs[0]), blk*whole+before, blk*whole+before+chunk), blk*chunk)...)
					}
				case "slice":
					if o.Begin == nil {
						break
					}
					in := ts[o.Inputs[0]]
					rank := len(st.t.Shape)
					row := st.t.Shape[rank-1] * st.width
					v = nil
					for r := range prod(st.t.Shape[:rank-1]) {
						ix := make([]int64, rank)
						k := r
						for d := rank - 2; d >= 0; d-- {
							ix[d] = k%st.t.Shape[d] + o.Begin[d]
							k /= st.t.Shape[d]
						}
						ix[rank-1] = o.Begin[rank-1]
						var e int64
						for d := range rank {
							e = e*in.t.Shape[d] + ix[d]
						}
						v = append(v, shift(sub(value(o.Inputs[0]), e*in.width, e*in.width+row), r*row)...)
					}
				}
			}
			v = norm(v)
			memo[name] = v
			return v
		}
		where := func(name string) model.Placement {
			i, ok := idx[ts[name].id]
			if !ok {
				fail("tensor %s has no buffer", name)
			}
			return plan.Placements[i]
		}
		write := func(name string) {
			q := where(name)
			mems[q.Pool].write(q.Offset, value(name))
		}
		check := func(name, when string) {
			q := where(name)
			got, want := mems[q.Pool].read(q.Offset, ts[name].bytes), value(name)
			if !slices.Equal(got, want) {
				fail("model %s %s: tensor %s holds %v, want %v", m.Name, when, name, got, want)
			}
		}
		written := map[string]bool{}
		var names []string
		for i := range m.Tensors {
			names = append(names, m.Tensors[i].Name)
		}
		for i := range m.Ops {
			o := &m.Ops[i]
			step := mr.Start + int64(i)
			for _, name := range names {
				st := ts[name]
				kind := strings.ToLower(st.t.Kind)
				if (kind == "input" || kind == "weight") && !written[name] {
					if q, ok := idx[st.id]; ok && p.Buffers[q].Start <= step {
						write(name)
						written[name] = true
					}
				}
			}
			for s := range o.Scratch {
				for _, b := range p.Buffers {
					if b.Kind == model.Scratch && b.Start == step && strings.HasPrefix(b.ID, prefix+o.Name+":") {
						q := plan.Placements[idx[b.ID]]
						mems[q.Pool].write(q.Offset, []seg{{0, q.Size, "scratch:" + b.ID, int64(s)}})
					}
				}
			}
			for _, out := range o.Outputs {
				write(out)
			}
			for _, in := range o.Inputs {
				check(in, "op "+o.Name)
			}
		}
		for _, name := range names {
			if strings.ToLower(ts[name].t.Kind) == "output" {
				check(name, "at the end")
			}
		}
	}
	return nil
}

// TestSimulatorCatchesCorruption: the simulator accepts a verified plan and
// rejects one that puts everything at offset 0.
func TestSimulatorCatchesCorruption(t *testing.T) {
	src := g(1, l(ten("x", "input", 1, 2), ten("a", "", 1, 2), ten("b", "", 1, 2), ten("c", "output", 1, 4)),
		l(op("f", "Relu", l("x"), l("a"), ""), op("h", "Relu", l("x"), l("b"), ""), op("cat", "Concat", l("a", "b"), l("c"), `"axis": 1`)))
	p, r := build(t, src)
	f := mustDecode(t, src)
	simulate(t, p, f, r)
	bad := model.NewPlan(p)
	assert.Error(t, runPlan(p, bad, f, r))
}

// TestExamplesExecute runs every shipped example in its greedy-size plan:
// no op reads a corrupted byte.
func TestExamplesExecute(t *testing.T) {
	files, err := filepath.Glob("../../examples/*.graph.json")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, path := range files {
		t.Run(path, func(t *testing.T) {
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			f, err := Decode(strings.NewReader(string(data)), path)
			require.NoError(t, err)
			p, r, err := Build(f, path)
			require.NoError(t, err)
			simulate(t, p, f, r)
		})
	}
}
