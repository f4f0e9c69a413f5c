package graph

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/optalloc/optalloc/model"
)

// Report says what Build did: the aliases it made (and the chances it did
// not take), the copies removed, the weights stored once, the scratch
// buffers, and each model's memory alone against the shared problem.
type Report struct {
	File      string        `json:"file"`
	Alignment int64         `json:"alignment"`
	Stages    [][]string    `json:"stages"` // stages run one after another; models of a stage run together
	Models    []ModelReport `json:"models"`
	Aliases   []AliasInfo   `json:"aliases"`
	Skipped   []SkipInfo    `json:"skipped,omitempty"`
	// CopyBytesRemoved sums the bytes the in-place rules no longer copy.
	CopyBytesRemoved int64         `json:"copy_bytes_removed"`
	SharedWeights    []WeightShare `json:"shared_weights,omitempty"`
	// WeightBytesSaved is the bytes of weights (and code) not stored twice.
	WeightBytesSaved int64         `json:"weight_bytes_saved"`
	Scratch          []ScratchInfo `json:"scratch,omitempty"`
	// NaiveBytes is every tensor and scratch area in memory of its own: no
	// reuse, no in-place, weights once per model.
	NaiveBytes int64 `json:"naive_bytes"`
	// WeightBytes is the bytes of weights and code stored (after sharing).
	WeightBytes int64 `json:"weight_bytes"`
	// MaxLive is the max-live lower bound of the whole problem.
	MaxLive int64 `json:"max_live"`
	// SharedPeak is the planned peak of the whole problem, when the caller
	// sets it (SetSharedPeak); 0 when unknown.
	SharedPeak int64 `json:"shared_peak,omitempty"`
	// Separate holds each model planned alone (own timeline, own weights),
	// in the order of Models, for PlanSeparately.
	Separate []*model.Problem `json:"-"`
	// Reordered names the models whose ops were not listed in an execution
	// order (or with "order": "depth-first"), so one was derived.
	Reordered []string `json:"reordered,omitempty"`
	// Reload is the problem with every model's weights reloaded before each
	// of its runs (Model.ReloadWeights), built when models run in several
	// stages and some keep their weights resident; PlanReload plans it.
	Reload *model.Problem `json:"-"`
	// ReloadPeak is Reload's planned peak, once PlanReload ran.
	ReloadPeak int64 `json:"reload_peak,omitempty"`
}

// PlanReload plans Report.Reload (when there is one) with plan and records
// its peak: what the arena would be if every model reloaded its weights
// before each run.
func (r *Report) PlanReload(plan func(*model.Problem) (int64, error)) error {
	if r.Reload == nil {
		return nil
	}
	peak, err := plan(r.Reload)
	if err != nil {
		return fmt.Errorf("weights reloaded per run: %w", err)
	}
	r.ReloadPeak = peak
	return nil
}

// ModelReport describes one model.
type ModelReport struct {
	Name    string `json:"name"`
	Ops     int    `json:"ops"`
	Tensors int    `json:"tensors"`
	Buffers int    `json:"buffers"` // in its separate problem
	// Start, End is the model's stage on the global timeline.
	Start int64 `json:"start"`
	End   int64 `json:"end"`
	// NaiveBytes as in Report, for this model alone.
	NaiveBytes int64 `json:"naive_bytes"`
	// MaxLive is the lower bound of the model alone.
	MaxLive int64 `json:"max_live"`
	// Arena is the planned peak of the model alone, once PlanSeparately ran.
	Arena int64 `json:"arena,omitempty"`
}

// WeightShare is one weight content stored once for several tensors.
type WeightShare struct {
	Kept  string   `json:"kept"` // buffer id that holds it
	Also  []string `json:"also"` // tensors that use it without a copy
	Bytes int64    `json:"bytes"`
}

// ScratchInfo is one scratch buffer.
type ScratchInfo struct {
	ID              string `json:"id"`
	Size            int64  `json:"size"`               // fixed size, or minimum
	MaxSize         int64  `json:"max_size,omitempty"` // > Size for variable scratch
	LatencyCritical bool   `json:"latency_critical,omitempty"`
}

// summarise fills the per-model part of the report.
func (b *builder) summarise(p *model.Problem, parents []int, infos []*minfo) error {
	r := b.rep
	for i := range p.Buffers {
		if constant(p.Buffers[i].Kind) {
			r.WeightBytes += p.Buffers[i].Size
		}
	}
	full, err := b.layouts(infos, stagesOf(r, infos))
	if err != nil {
		return err
	}
	r.MaxLive = maxLiveOf(p, parents)
	single := len(infos) == 1 && len(full) == 1
	for k, mi := range infos {
		var sep *model.Problem
		maxLive := r.MaxLive
		if single {
			// One model alone: its separate problem is the problem (a
			// copy, so that pools given later do not reach it); emitting
			// and sweeping it again cost a third of reading a large graph.
			cp := *p
			cp.Buffers, cp.Pools = slices.Clone(p.Buffers), slices.Clone(p.Pools)
			sep = &cp
		} else {
			var sepParents []int
			var err error
			if sep, sepParents, err = b.emit(infos[k:k+1], [][]int{{0}}, false); err != nil {
				return err
			}
			maxLive = maxLiveOf(sep, sepParents)
		}
		mr := ModelReport{Name: mi.name, Ops: len(mi.m.Ops), Tensors: len(mi.tensors), Buffers: len(sep.Buffers),
			MaxLive: maxLive}
		sp := full[k].span()
		mr.Start, mr.End = sp[0], sp[1]
		for t := range mi.tensors {
			if mi.live[t] {
				mr.NaiveBytes += mi.tensors[t].size
			}
		}
		for i := range sep.Buffers {
			if sep.Buffers[i].Kind == model.Scratch {
				mr.NaiveBytes += sep.Buffers[i].Size
			}
		}
		r.NaiveBytes += mr.NaiveBytes
		r.Models = append(r.Models, mr)
		r.Separate = append(r.Separate, sep)
	}
	return nil
}

func stagesOf(r *Report, infos []*minfo) [][]int {
	idx := map[string]int{}
	for k, mi := range infos {
		idx[mi.name] = k
	}
	out := make([][]int, len(r.Stages))
	for s, st := range r.Stages {
		for _, n := range st {
			out[s] = append(out[s], idx[n])
		}
	}
	return out
}

// PlanSeparately plans every model alone with plan (which returns the
// peak of a problem) and records the arenas, so that the report shows the
// saving of one shared problem against one arena per model.
func (r *Report) PlanSeparately(plan func(*model.Problem) (int64, error)) error {
	for i, p := range r.Separate {
		peak, err := plan(p)
		if err != nil {
			return fmt.Errorf("model %q alone: %w", r.Models[i].Name, err)
		}
		r.Models[i].Arena = peak
	}
	return nil
}

// SetSharedPeak records the planned peak of the whole problem.
func (r *Report) SetSharedPeak(peak int64) { r.SharedPeak = peak }

// SeparateArenas returns the sum of the models' separate arenas (planned
// when PlanSeparately ran, else their max-live lower bounds) and whether
// they were planned.
func (r *Report) SeparateArenas() (int64, bool) {
	var sum int64
	planned := true
	for _, m := range r.Models {
		if m.Arena > 0 {
			sum += m.Arena
		} else {
			sum += m.MaxLive
			planned = false
		}
	}
	return sum, planned
}

// WriteText writes the report for people (the CLI's --explain).
func (r *Report) WriteText(w io.Writer) error {
	var sb strings.Builder
	pf := func(format string, args ...any) { fmt.Fprintf(&sb, format, args...) }
	pf("graph %s: %d model(s), alignment %d\n", r.File, len(r.Models), r.Alignment)
	for s, st := range r.Stages {
		mode := "alone"
		if len(st) > 1 {
			mode = "concurrently (no shared memory)"
		}
		pf("  stage %d: %s %s\n", s+1, strings.Join(st, ", "), mode)
	}
	for _, m := range r.Models {
		pf("  model %s: %d ops, %d tensors, steps [%d, %d), naive %d B, max-live alone %d B", m.Name, m.Ops, m.Tensors, m.Start, m.End, m.NaiveBytes, m.MaxLive)
		if m.Arena > 0 {
			pf(", arena alone %d B", m.Arena)
		}
		pf("\n")
	}
	if len(r.Reordered) > 0 {
		pf("execution order derived depth-first (the listed order was not one, or \"order\": \"depth-first\"): %s\n", strings.Join(r.Reordered, ", "))
	}
	if r.Reload != nil {
		pf("weights: %d B, resident across stages (default)", r.WeightBytes)
		if r.SharedPeak > 0 {
			pf(": planned peak %d B", r.SharedPeak)
		}
		pf("; reloaded before each run (\"reload_weights\": true on every model): ")
		if r.ReloadPeak > 0 {
			pf("planned peak %d B\n", r.ReloadPeak)
		} else {
			pf("max-live %d B\n", r.Reload.ComputeSweep().MaxLive)
		}
	}
	pf("aliases (zero-copy): %d, copies removed: %d B\n", len(r.Aliases), r.CopyBytesRemoved)
	for _, a := range r.Aliases {
		pf("  %-7s %s: %s inside %s at +%d (%d B", a.Rule, a.Op, a.Child, a.Parent, a.Delta, a.Bytes)
		if a.Tensor != a.Child {
			pf(", for %s", a.Tensor)
		}
		pf(")\n")
	}
	if len(r.Skipped) > 0 {
		pf("in-place chances not taken: %d\n", len(r.Skipped))
		for _, s := range r.Skipped {
			t := ""
			if s.Tensor != "" {
				t = " " + s.Tensor
			}
			pf("  %-7s %s%s: %s\n", s.Rule, s.Op, t, s.Reason)
		}
	}
	pf("weights stored: %d B; shared: %d, saving %d B\n", r.WeightBytes, len(r.SharedWeights), r.WeightBytesSaved)
	const maxShared = 20
	for k, s := range r.SharedWeights {
		if k == maxShared {
			pf("  … and %d more\n", len(r.SharedWeights)-maxShared)
			break
		}
		pf("  %s (%d B) also serves %s\n", s.Kept, s.Bytes, strings.Join(s.Also, ", "))
	}
	if len(r.Scratch) > 0 {
		pf("scratch buffers: %d\n", len(r.Scratch))
		for _, s := range r.Scratch {
			pf("  %s: %d B", s.ID, s.Size)
			if s.MaxSize > s.Size {
				pf(" (up to %d B)", s.MaxSize)
			}
			if s.LatencyCritical {
				pf(", latency-critical")
			}
			pf("\n")
		}
	}
	pf("naive %d B, max-live lower bound %d B", r.NaiveBytes, r.MaxLive)
	if r.SharedPeak > 0 {
		pf(", planned peak %d B", r.SharedPeak)
	}
	pf("\n")
	if len(r.Models) > 1 {
		sep, planned := r.SeparateArenas()
		what := "max-live"
		if planned {
			what = "planned"
		}
		shared, swhat := r.MaxLive, "max-live"
		if r.SharedPeak > 0 && planned {
			shared, swhat = r.SharedPeak, "planned"
		}
		pf("one arena per model (%s): %d B; shared (%s): %d B; saving %d B\n", what, sep, swhat, shared, sep-shared)
	}
	_, err := io.WriteString(w, sb.String())
	return err
}

// WritePlacements writes where a plan put every scratch buffer (offset,
// granted size, pool) and every zero-copy tensor, for the CLI's --explain.
// pl must be a plan of p, the problem Build returned with this report.
func (r *Report) WritePlacements(w io.Writer, p *model.Problem, pl *model.Plan) error {
	var sb strings.Builder
	idx := p.Index()
	pools := p.PoolList()
	at := func(id string) (model.Placement, string, bool) {
		i, ok := idx[id]
		if !ok || i >= len(pl.Placements) {
			return model.Placement{}, "", false
		}
		q := pl.Placements[i]
		name := "?"
		if q.Pool >= 0 && q.Pool < len(pools) {
			name = pools[q.Pool].Name
		}
		return q, name, true
	}
	if len(r.Scratch) > 0 {
		sb.WriteString("scratch placements:\n")
		for _, s := range r.Scratch {
			if q, pool, ok := at(s.ID); ok {
				fmt.Fprintf(&sb, "  %s: offset %d, %d B granted (min %d", s.ID, q.Offset, q.Size, s.Size)
				if s.MaxSize > s.Size {
					fmt.Fprintf(&sb, ", max %d", s.MaxSize)
				}
				fmt.Fprintf(&sb, "), pool %s\n", pool)
			}
		}
	}
	if len(r.Aliases) > 0 {
		sb.WriteString("zero-copy placements:\n")
		for _, a := range r.Aliases {
			q, pool, ok1 := at(a.Child)
			pq, _, ok2 := at(a.Parent)
			if ok1 && ok2 {
				fmt.Fprintf(&sb, "  %s at offset %d = %s (offset %d) + %d, pool %s\n", a.Child, q.Offset, a.Parent, pq.Offset, a.Delta, pool)
			}
		}
	}
	_, err := io.WriteString(w, sb.String())
	return err
}
