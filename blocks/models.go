package blocks

import (
	"slices"
	"strings"
)

// ModelOf returns the model part of a qualified buffer id "model/tensor"
// (the text before the first "/"), or "" for an unqualified id.
func ModelOf(id string) string {
	m, _, ok := strings.Cut(id, "/")
	if !ok {
		return ""
	}
	return m
}

// ModelView is the part of a shared schedule that concerns one model when
// several models (buffer ids "model/tensor") share one pool of blocks.
// Models that run one after the other reuse each other's blocks: Reused
// lists the blocks another model had taken before this one's first take.
type ModelView struct {
	Model  string `json:"model"`
	Start  int64  `json:"start"` // first take
	End    int64  `json:"end"`   // last release
	Blocks []int  `json:"blocks"`
	Reused []int  `json:"reused"`
	// Bytes is the total size of Blocks: what this model would need if its
	// blocks were its own, sized as in the shared pool.
	Bytes int64 `json:"bytes"`
	// Steps are the schedule's steps restricted to this model: its takes
	// and releases, the new blocks it creates and the blocks it retires.
	Steps []Step `json:"steps"`
}

// models builds the per-model views, ordered by first take; nil when no
// buffer id is qualified.
func (s *Schedule) models() []ModelView {
	qualified := false
	for _, st := range s.Steps {
		for _, t := range st.Take {
			if ModelOf(t.Buffer) != "" {
				qualified = true
			}
		}
	}
	if !qualified {
		return nil
	}
	byName := map[string]*ModelView{}
	var names []string
	view := func(m string, t int64) *ModelView {
		v, ok := byName[m]
		if !ok {
			v = &ModelView{Model: m, Start: t}
			byName[m] = v
			names = append(names, m)
		}
		return v
	}
	firstTaker := map[int]string{} // block -> model of its first take
	firstUse := map[string]map[int]int64{}
	for _, st := range s.Steps {
		steps := map[string]*Step{}
		get := func(m string) *Step {
			x, ok := steps[m]
			if !ok {
				x = &Step{Time: st.Time}
				steps[m] = x
			}
			return x
		}
		releasedBy := map[int]string{}
		for _, r := range st.Release {
			m := ModelOf(r.Holder)
			view(m, st.Time).End = st.Time
			get(m).Release = append(get(m).Release, r)
			releasedBy[r.Block] = m
		}
		for _, b := range st.Retire {
			m := releasedBy[b]
			get(m).Retire = append(get(m).Retire, b)
		}
		takenBy := map[int]string{}
		for _, t := range st.Take {
			m := ModelOf(t.Buffer)
			v := view(m, st.Time)
			get(m).Take = append(get(m).Take, t)
			if _, ok := takenBy[t.Block]; !ok {
				takenBy[t.Block] = m
			}
			if firstUse[m] == nil {
				firstUse[m] = map[int]int64{}
			}
			if _, ok := firstUse[m][t.Block]; !ok {
				firstUse[m][t.Block] = st.Time
				v.Blocks = append(v.Blocks, t.Block)
				if fm, ok := firstTaker[t.Block]; ok && fm != m {
					v.Reused = append(v.Reused, t.Block)
				}
			}
			if _, ok := firstTaker[t.Block]; !ok {
				firstTaker[t.Block] = m
			}
		}
		for _, b := range st.New {
			m := takenBy[b.ID]
			get(m).New = append(get(m).New, b)
		}
		for m, x := range steps {
			byName[m].Steps = append(byName[m].Steps, *x)
		}
	}
	out := make([]ModelView, 0, len(names))
	for _, m := range names {
		v := byName[m]
		slices.Sort(v.Blocks)
		slices.Sort(v.Reused)
		for _, b := range v.Blocks {
			v.Bytes += s.Blocks[b].Size
		}
		out = append(out, *v)
	}
	return out
}
