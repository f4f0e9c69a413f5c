package model

// AliasGroup is an alias root (a buffer without Alias) with the buffers that
// alias it, directly or through other aliases. They move together: each sits
// at its delta from the root's offset. Every engine plans a group as one item.
type AliasGroup struct {
	Root    int   // buffer index of the root
	Members []int // the aliases of the root, in input order (the root not included)
	// Start and End bound the union of the lifetimes of the root and its
	// members.
	Start, End int64
}

// AliasGroups returns one group per buffer without Alias, in input order;
// of[i] is the index of buffer i's group and delta[i] its byte offset from
// the group's root (0 for a root). The problem must be valid.
func (p *Problem) AliasGroups() (groups []AliasGroup, of []int, delta []int64) {
	n := len(p.Buffers)
	of, delta = make([]int, n), make([]int64, n)
	pos := make([]int, n)
	groups = make([]AliasGroup, 0, n) // one per buffer without an alias: no regrowth on a million
	for i := range p.Buffers {
		b := &p.Buffers[i]
		pos[i] = -1
		if b.Alias == nil {
			pos[i] = len(groups)
			groups = append(groups, AliasGroup{Root: i, Start: b.Start, End: b.End})
		}
	}
	var root []int
	for i := range p.Buffers {
		b := &p.Buffers[i]
		r := i
		if b.Alias != nil {
			if root == nil {
				root, delta = p.AliasRoots(p.Index())
			}
			r = root[i]
		}
		g := &groups[pos[r]]
		of[i] = pos[r]
		if r != i {
			g.Members = append(g.Members, i)
			g.Start, g.End = min(g.Start, b.Start), max(g.End, b.End)
		}
	}
	return groups, of, delta
}
