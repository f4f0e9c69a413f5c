package graph

import "github.com/optalloc/optalloc/model"

// liveness sets every tensor's local lifetime [start, end) in op steps of
// its model (op i runs at step i; the model spans [0, steps)):
//
//   - an activation or output produced by op p and last read by op u lives
//     on [p, u+1); one nobody reads lives on [p, p+1);
//   - a graph output lives to the end of its model when OutputsToEnd;
//   - a graph input lives from step 0 when InputsFromStart (else from its
//     first reader) to its last reader + 1;
//   - a weight or code tensor lives on [0, steps): the whole run of its
//     model.
//
// It returns false for a tensor that gets no buffer (declared, never used).
func (b *builder) liveness(mi *minfo, k int) bool {
	ti := &mi.tensors[k]
	switch ti.kind {
	case model.Weight, model.Code:
		if ti.lastUse < 0 {
			return false
		}
		ti.start, ti.end = 0, mi.steps
	case model.Input:
		if ti.lastUse < 0 {
			if !b.inputsFromStart {
				return false
			}
			ti.start, ti.end = 0, 1
			return true
		}
		ti.start, ti.end = int64(ti.firstUse), int64(ti.lastUse)+1
		if b.inputsFromStart {
			ti.start = 0
		}
	default:
		if ti.producer < 0 {
			return false // declared but never produced nor used
		}
		ti.start = int64(ti.producer)
		ti.end = max(int64(ti.lastUse), ti.start) + 1
		if ti.kind == model.Output && b.outputsToEnd {
			ti.end = mi.steps
		}
	}
	return true
}

// diesAt reports whether tensor k is last live at step i.
func (mi *minfo) diesAt(k, i int) bool { return mi.tensors[k].end == int64(i)+1 }
