package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/solve"
)

// explainMaxLive bounds the buffers listed at the peak.
const explainMaxLive = 12

// explainModel says what a model file's arena is made of: what the front
// end read (tensors, kernel scratch, weights, views planned in place), then
// the buffers live at the time the plan reaches its peak, from the bottom
// of the arena up, and which one dominates.
func explainModel(e *env, w io.Writer, path string, p *model.Problem, res *solve.Result) {
	scratch, aliases := 0, 0
	for i := range p.Buffers {
		if p.Buffers[i].Kind == model.Scratch {
			scratch++
		}
		if p.Buffers[i].Alias != nil {
			aliases++
		}
	}
	fmt.Fprintf(w, "%s: %d arena buffers", path, len(p.Buffers))
	if t := e.tflite; t != nil && t.path == path {
		consts, vars := 0, 0
		for _, tt := range t.model.Tensors {
			if tt.Constant {
				consts++
			}
			if tt.Variable {
				vars++
			}
		}
		fmt.Fprintf(w, ": %d tensors and %d kernel scratch buffers", len(t.arena.Tensors), len(t.arena.Scratch))
		switch t.arena.Kernels {
		case "":
			fmt.Fprint(w, " (scratch left out: --no-scratch)")
		default:
			fmt.Fprintf(w, " (%s on %s; TFLite Micro places them online around the offline plan)", kernelsText(t.arena), t.arena.Target.Name())
		}
		fmt.Fprintf(w, "; %d constants stay in the flatbuffer, %d variables in the persistent section", consts, vars)
	} else if scratch > 0 {
		fmt.Fprintf(w, ", %d of them scratch", scratch)
	}
	fmt.Fprintln(w)
	if aliases > 0 {
		fmt.Fprintf(w, "%d buffers are planned in place inside another one (views, in-place operators), so they add no bytes\n", aliases)
	}
	if res.Plan == nil || res.Peak <= 0 {
		return
	}
	t, live := peakStep(p, res.Plan, res.Peak)
	if t < 0 {
		return
	}
	var sum int64
	for _, i := range live {
		if p.Buffers[i].Alias == nil {
			sum += res.Plan.Placements[i].Size
		}
	}
	fmt.Fprintf(w, "at the peak (%d bytes), time step %d: %d buffers live, %d bytes of them", res.Peak, t, len(live), sum)
	if gap := res.Peak - sum; gap > 0 {
		fmt.Fprintf(w, " (%d bytes of the arena free at that step)", gap)
	}
	fmt.Fprintln(w, ", from the bottom of the arena:")
	slices.SortFunc(live, func(a, b int) int {
		return int(res.Plan.Placements[a].Offset - res.Plan.Placements[b].Offset)
	})
	bySize := slices.Clone(live)
	slices.SortStableFunc(bySize, func(a, b int) int {
		return int(res.Plan.Placements[b].Size - res.Plan.Placements[a].Size)
	})
	shown := map[int]bool{}
	for _, i := range bySize[:min(len(bySize), explainMaxLive)] {
		shown[i] = true
	}
	hidden, hiddenBytes := 0, int64(0)
	for _, i := range live {
		b, q := &p.Buffers[i], res.Plan.Placements[i]
		if !shown[i] {
			hidden++
			hiddenBytes += q.Size
			continue
		}
		kind := string(b.Kind)
		if kind == "" {
			kind = "activation"
		}
		extra := ""
		if b.Alias != nil {
			extra = fmt.Sprintf(", inside %s", b.Alias.Parent)
		}
		fmt.Fprintf(w, "  %10d  %10d B  %-10s [%d, %d)  %s%s\n", q.Offset, q.Size, kind, b.Start, b.End, b.ID, extra)
	}
	if hidden > 0 {
		fmt.Fprintf(w, "  and %d smaller buffers, %d bytes\n", hidden, hiddenBytes)
	}
	top := bySize[0]
	share := 100 * float64(res.Plan.Placements[top].Size) / float64(res.Peak)
	what := ""
	if p.Buffers[top].Kind == model.Scratch {
		what = ", a kernel's scratch buffer"
	}
	fmt.Fprintf(w, "largest live buffer: %s%s, %d bytes, %.0f%% of the arena\n", quoteID(p.Buffers[top].ID), what, res.Plan.Placements[top].Size, share)
}

// peakStep returns the time step at which the most bytes are live under
// the buffer that reaches the plan's peak, and the buffers live then.
func peakStep(p *model.Problem, plan *model.Plan, peak int64) (int64, []int) {
	best, bestBytes := int64(-1), int64(-1)
	for i := range p.Buffers {
		b, q := &p.Buffers[i], plan.Placements[i]
		if q.Size == 0 || q.Offset+q.Size != peak {
			continue
		}
		for t := b.Start; t < b.End && t < b.Start+4096; t++ {
			if s := liveBytes(p, plan, t); s > bestBytes {
				best, bestBytes = t, s
			}
		}
	}
	if best < 0 {
		return -1, nil
	}
	var live []int
	for i := range p.Buffers {
		if b := &p.Buffers[i]; b.Start <= best && best < b.End && plan.Placements[i].Size > 0 {
			live = append(live, i)
		}
	}
	return best, live
}

func liveBytes(p *model.Problem, plan *model.Plan, t int64) int64 {
	var s int64
	for i := range p.Buffers {
		if b := &p.Buffers[i]; b.Start <= t && t < b.End && b.Alias == nil {
			s += plan.Placements[i].Size
		}
	}
	return s
}

func quoteID(id string) string {
	if strings.ContainsAny(id, " \t") {
		return fmt.Sprintf("%q", id)
	}
	return id
}
