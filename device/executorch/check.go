package executorch

import (
	"fmt"
	"slices"

	etfmt "github.com/optalloc/optalloc/formats/executorch"
	"github.com/optalloc/optalloc/model"
)

// Check lists what breaks ExecuTorch's rules in the plan a specs file
// carries (f.Plan, as `optalloc plan specs.json -o out.json` writes it),
// whoever made it; none for a valid plan. The rules: bufsizes[0] is 0 and
// bufsizes has an entry for every mem_id used; a spec sits at or above
// input_mem_buffer_sizes[mem_id], its end plus extra_padding within
// bufsizes[mem_id]; a spec placed on its own at a multiple of the
// alignment above that start; a view in its base's mem_id and mem_obj_id
// at the base's offset plus storage_base_offset; and, for two specs of one
// mem_id whose byte ranges overlap (ExecuTorch's
// Verifier.verify_storage_reuse), the same mem_obj_id, and lifetimes
// (inclusive) apart unless they share a storage base.
func Check(f *etfmt.File) []string {
	pl := f.Plan
	if pl == nil {
		return []string{f.Name + ": carries no plan (no bufsizes): give the file `optalloc plan specs.json -o out.json` writes"}
	}
	var out []string
	bad := func(i int, format string, args ...any) {
		out = append(out, fmt.Sprintf("spec %s: %s", model.Quote(f.Specs[i].ID), fmt.Sprintf(format, args...)))
	}
	if len(pl.BufSizes) < 2 || pl.BufSizes[0] != 0 {
		out = append(out, fmt.Sprintf("bufsizes %v: at least two entries, the first 0", pl.BufSizes))
	}
	root := make([]int, len(f.Specs))
	for i := range f.Specs {
		j := i
		for f.Specs[j].Base >= 0 {
			j = f.Specs[j].Base
		}
		root[i] = j
	}
	byMem := map[int64][]int{}
	for i, s := range f.Specs {
		a := pl.Specs[i]
		if k := a.MemID; k < 1 || k >= int64(len(pl.BufSizes)) {
			bad(i, "mem_id %d has no bufsizes entry", k)
			continue
		}
		byMem[a.MemID] = append(byMem[a.MemID], i)
		start := int64(0)
		if ins := f.InputMemBufferSizes; int64(len(ins)) > a.MemID {
			start = ins[a.MemID]
		}
		if a.MemOffset < start {
			bad(i, "mem_offset %d is below input_mem_buffer_sizes[%d] = %d", a.MemOffset, a.MemID, start)
		}
		if end := a.MemOffset + s.Size + f.ExtraPadding; end > pl.BufSizes[a.MemID] {
			bad(i, "ends at %d (with extra_padding %d), past bufsizes[%d] = %d", a.MemOffset+s.Size, f.ExtraPadding, a.MemID, pl.BufSizes[a.MemID])
		}
		if s.Base < 0 {
			if (a.MemOffset-start)%f.Alignment != 0 {
				bad(i, "mem_offset %d is not %d plus a multiple of the alignment %d", a.MemOffset, start, f.Alignment)
			}
			continue
		}
		b := pl.Specs[s.Base]
		if a.MemID != b.MemID || a.MemObjID != b.MemObjID || a.MemOffset != b.MemOffset+s.BaseOffset {
			bad(i, "a view of %s must be at mem_id %d, mem_obj_id %d, mem_offset %d (its base's plus storage_base_offset), not %d, %d, %d",
				model.Quote(f.Specs[s.Base].ID), b.MemID, b.MemObjID, b.MemOffset+s.BaseOffset, a.MemID, a.MemObjID, a.MemOffset)
		}
	}
	mems := make([]int64, 0, len(byMem))
	for k := range byMem {
		mems = append(mems, k)
	}
	slices.Sort(mems)
	for _, k := range mems {
		idx := byMem[k]
		slices.SortStableFunc(idx, func(x, y int) int { return cmp64(pl.Specs[x].MemOffset, pl.Specs[y].MemOffset) })
		for n, i := range idx {
			s, a := f.Specs[i], pl.Specs[i]
			if s.Size == 0 {
				continue
			}
			for _, j := range idx[n+1:] {
				u, b := f.Specs[j], pl.Specs[j]
				if b.MemOffset >= a.MemOffset+s.Size {
					break
				}
				if u.Size == 0 {
					continue
				}
				if a.MemObjID != b.MemObjID {
					bad(i, "shares bytes with %s in mem_id %d but not its mem_obj_id (%d, %d)", model.Quote(u.ID), k, a.MemObjID, b.MemObjID)
				}
				if root[i] != root[j] && !(s.Last < u.First || u.Last < s.First) {
					bad(i, "shares bytes with %s in mem_id %d while both are live (lifetimes [%d, %d] and [%d, %d])", model.Quote(u.ID), k, s.First, s.Last, u.First, u.Last)
				}
			}
		}
	}
	return out
}

func cmp64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
