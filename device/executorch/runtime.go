package executorch

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/optalloc/optalloc/device"
	etfmt "github.com/optalloc/optalloc/formats/executorch"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/solve"
	"github.com/optalloc/optalloc/verify"
)

var _ device.Runtime = (*Runtime)(nil)

// Runtime is ExecuTorch's memory planning of a specs file
// (device.Runtime): one arena per mem_id, the views inside their bases,
// mem_obj_ids and bufsizes as ExecuTorch's MemoryPlanningPass wants them.
type Runtime struct {
	Arena *etfmt.Arena
}

// New is the runtime of a specs file.
func New(f *etfmt.File) *Runtime { return &Runtime{Arena: f.Arena()} }

// Name implements device.Runtime.
func (r *Runtime) Name() string { return "executorch" }

// Format is the suffix of the runtime's own file: a plan written to a
// .json path is the specs file with the placements (WriteBack).
func (r *Runtime) Format() string { return ".json" }

// ours reports whether p is the runtime's problem (its buffers, its pools),
// not a changed one.
func (r *Runtime) ours(p *model.Problem) bool {
	q := r.Arena.Problem
	if len(p.Buffers) != len(q.Buffers) || len(p.Pools) != len(q.Pools) {
		return false
	}
	for k := range p.Pools {
		if p.Pools[k].Name != q.Pools[k].Name {
			return false
		}
	}
	return true
}

// Online implements device.Runtime: ExecuTorch places nothing online, but
// the flags are all false (not nil) for the runtime's own problem, so that
// the front door plans it through Solve (one plan per mem_id, never above
// ExecuTorch's greedy).
func (r *Runtime) Online(p *model.Problem) []bool {
	if !r.ours(p) {
		return nil
	}
	return make([]bool, len(p.Buffers))
}

// Replay implements device.Runtime: ExecuTorch takes the offsets as they
// are (the plan itself).
func (r *Runtime) Replay(_ context.Context, p *model.Problem, plan *model.Plan) (*model.Plan, error) {
	return plan.Clone(), nil
}

// Own implements device.Runtime: ExecuTorch's greedy in every mem_id.
func (r *Runtime) Own(_ context.Context, p *model.Problem) (*model.Plan, error) {
	pl := model.NewPlan(p)
	for k, idx := range byPool(p) {
		offs, _ := Greedy(p, idx)
		for j, i := range idx {
			pl.Placements[i].Offset, pl.Placements[i].Pool = offs[j], k
		}
	}
	return pl, nil
}

// byPool lists the buffers of each pool of p (a buffer's first pool).
func byPool(p *model.Problem) [][]int {
	pools := p.PoolList()
	out := make([][]int, len(pools))
	for i := range p.Buffers {
		k := 0
		if b := &p.Buffers[i]; len(b.Pools) > 0 {
			k = max(p.PoolIndex(b.Pools[0]), 0)
		}
		out[k] = append(out[k], i)
	}
	return out
}

// Solve implements device.Runtime: each mem_id's arena is planned on its
// own (solve.Solve on its buffers, the time limit shared among the arenas
// left), and where ExecuTorch's greedy gives a smaller arena its layout
// is kept, so that no bufsize is above the greedy's. The result's peak is
// the largest arena, its lower bound the largest arena's bound, and it is
// optimal only when every arena is. The plan has passed verify.Check.
func (r *Runtime) Solve(ctx context.Context, p *model.Problem, opt solve.Options) (*solve.Result, *device.Outcome, error) {
	start := time.Now()
	groups := byPool(p)
	plan := model.NewPlan(p)
	res := &solve.Result{Status: solve.Optimal}
	out := &device.Outcome{Candidate: "optalloc"}
	var deadline time.Time
	if opt.TimeLimit > 0 {
		deadline = start.Add(opt.TimeLimit)
	}
	var methods []string
	for k, idx := range groups {
		if len(idx) == 0 {
			continue
		}
		sub := &model.Problem{Name: p.Name}
		for _, i := range idx {
			b := p.Buffers[i]
			b.Pools = nil
			sub.Buffers = append(sub.Buffers, b)
		}
		o := opt
		if !deadline.IsZero() {
			o.TimeLimit = max(time.Until(deadline)/time.Duration(len(groups)-k), time.Millisecond)
		}
		o.Progress = nil
		sr, err := solve.Solve(ctx, sub, o)
		if err != nil {
			return nil, nil, err
		}
		goffs, gsize := Greedy(sub, seq(len(idx)))
		res.LowerBound = max(res.LowerBound, sr.LowerBound)
		out.TFLMHead = max(out.TFLMHead, gsize)
		fits := opt.Capacity <= 0 || gsize <= opt.Capacity
		offs := make([]int64, len(idx))
		method, peak := sr.Method, sr.Peak
		switch {
		case sr.Plan != nil && (sr.Peak <= gsize || !fits):
			out.JointPeak = max(out.JointPeak, sr.Peak)
			for j := range idx {
				offs[j] = sr.Plan.Placements[j].Offset
			}
		case fits:
			if sr.Plan != nil {
				out.JointPeak = max(out.JointPeak, sr.Peak)
			}
			copy(offs, goffs)
			method, peak = "executorch-greedy", gsize
			out.Fallback, out.Candidate = true, "executorch-greedy"
		default:
			res.Status, res.Reason, res.Method = sr.Status, fmt.Sprintf("mem_id %s: %s", strings.TrimPrefix(p.PoolList()[k].Name, "mem"), sr.Reason), sr.Method
			res.LowerBound = max(res.LowerBound, sr.LowerBound)
			res.Elapsed = time.Since(start)
			return res, out, nil
		}
		if peak > sr.LowerBound {
			res.Status = solve.Feasible
		}
		if !slices.Contains(methods, method) {
			methods = append(methods, method)
		}
		for j, i := range idx {
			plan.Placements[i].Offset, plan.Placements[i].Pool = offs[j], k
		}
	}
	if vs := verify.Check(p, plan); len(vs) > 0 {
		return nil, nil, fmt.Errorf("internal error: the ExecuTorch plan is rejected by the verifier: %v; please report it", vs[0])
	}
	res.Plan, res.Peak, res.Method, res.Elapsed = plan, plan.Peak(p), strings.Join(methods, "+"), time.Since(start)
	if res.Peak < res.LowerBound { // cannot be: a bound below every plan
		return nil, nil, fmt.Errorf("internal error: peak %d below the lower bound %d; please report it", res.Peak, res.LowerBound)
	}
	out.Head = res.Peak
	return res, out, nil
}

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// Placements are ExecuTorch's figures of a plan of the runtime's problem:
// each spec's mem_id, mem_obj_id and mem_offset (a view at its base's
// offset plus storage_base_offset, in its base's mem_id and mem_obj_id;
// every offset above input_mem_buffer_sizes[mem_id]) and bufsizes (index 0
// is 0; each used entry is its arena's end plus extra_padding). Specs
// whose byte ranges overlap in a mem_id share a mem_obj_id (the
// connected groups of overlapping ranges, as ExecuTorch's Verifier wants:
// overlapping storage must have the same mem_obj_id), others get distinct
// ones, numbered from 0 in each mem_id by offset.
func (r *Runtime) Placements(p *model.Problem, plan *model.Plan) (*etfmt.Plan, error) {
	a := r.Arena
	if !r.ours(p) || len(plan.Placements) != len(p.Buffers) {
		return nil, fmt.Errorf("%s: the plan is not of the specs' arena (a bug)", p.Name)
	}
	f := a.File
	out := &etfmt.Plan{Specs: make([]etfmt.Placement, len(f.Specs)), BufSizes: []int64{0, 0}}
	if len(a.MemIDs) > 0 {
		out.BufSizes = make([]int64, a.MemIDs[len(a.MemIDs)-1]+1)
	}
	obj := groups(p, plan)
	peaks := plan.PoolPeaks(p)
	for k, id := range a.MemIDs {
		out.BufSizes[id] = a.Base(id) + peaks[k] + f.ExtraPadding
	}
	for i := range f.Specs {
		b := a.Buffer[i]
		pl := plan.Placements[b]
		id := a.MemIDs[pl.Pool]
		out.Specs[i] = etfmt.Placement{MemID: id, MemObjID: obj[b], MemOffset: a.Base(id) + pl.Offset + a.Delta[i]}
	}
	return out, nil
}

// groups numbers the buffers of each pool: those whose byte ranges
// overlap, directly or through others, share a number; a zero-byte buffer
// overlaps nothing.
func groups(p *model.Problem, plan *model.Plan) []int64 {
	out := make([]int64, len(p.Buffers))
	for _, idx := range byPool(p) {
		order := slices.Clone(idx)
		slices.SortFunc(order, func(x, y int) int {
			ox, oy := plan.Placements[x].Offset, plan.Placements[y].Offset
			if ox != oy {
				return int(min(max(ox-oy, -1), 1))
			}
			return int(min(max(p.Buffers[y].Size-p.Buffers[x].Size, -1), 1))
		})
		next, end := int64(-1), int64(0)
		for _, i := range order {
			sz, off := p.Buffers[i].Size, plan.Placements[i].Offset
			if sz <= 0 {
				continue
			}
			if next < 0 || off >= end {
				next++
				end = off + sz
			} else {
				end = max(end, off+sz)
			}
			out[i] = next
		}
		for _, i := range order {
			if p.Buffers[i].Size <= 0 {
				next++
				out[i] = next
			}
		}
	}
	return out
}

// WriteBack implements device.Runtime: the specs file with plan's
// placements and bufsizes (etfmt.Write), read back and checked against
// ExecuTorch's rules (Check) before it is returned.
func (r *Runtime) WriteBack(_ context.Context, p *model.Problem, plan *model.Plan, out string) ([]byte, []string, error) {
	if vs := verify.Check(p, plan); len(vs) > 0 {
		return nil, nil, fmt.Errorf("%s: the plan is rejected by the verifier: %v", out, vs[0])
	}
	pl, err := r.Placements(p, plan)
	if err != nil {
		return nil, nil, err
	}
	var buf bytes.Buffer
	if err := etfmt.Write(&buf, r.Arena.File, pl); err != nil {
		return nil, nil, fmt.Errorf("writing %s: %v", out, err)
	}
	back, err := etfmt.Read(bytes.NewReader(buf.Bytes()), out)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: the written specs do not read back: %v (a bug)", out, err)
	}
	if vs := Check(back); len(vs) > 0 {
		return nil, nil, fmt.Errorf("%s: the written plan breaks ExecuTorch's rules: %s (a bug)", out, vs[0])
	}
	return buf.Bytes(), nil, nil
}

// Summary is the line `optalloc plan` prints about a plan of the
// runtime's problem: the bufsizes, their total and ExecuTorch's greedy's.
func (r *Runtime) Summary(p *model.Problem, plan *model.Plan) string {
	pl, err := r.Placements(p, plan)
	if err != nil {
		return ""
	}
	own, _ := r.Own(context.Background(), p)
	g, _ := r.Placements(p, own)
	return fmt.Sprintf("executorch: bufsizes=%s total=%d (%d specs, %d mem_ids, extra_padding=%d); ExecuTorch's greedy: bufsizes=%s total=%d",
		ints(pl.BufSizes), sum(pl.BufSizes), len(r.Arena.File.Specs), len(r.Arena.MemIDs), r.Arena.File.ExtraPadding, ints(g.BufSizes), sum(g.BufSizes))
}

func ints(v []int64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprint(x)
	}
	return "[" + strings.Join(s, ",") + "]"
}

func sum(v []int64) int64 {
	var t int64
	for _, x := range v {
		t += x
	}
	return t
}
