package graph

import "github.com/optalloc/optalloc/model"

// maxLiveOf is p.ComputeSweep().MaxLive without what the report does not
// need (slots, components, an index of the ids: they were half of reading
// a 100 000-op graph). parent[i] is the index of buffer i's alias parent,
// -1 for none (emit knows them).
func maxLiveOf(p *model.Problem, parent []int) int64 {
	live, _ := model.PeakLoad(p.PiecesOf(parent))
	return live
}
