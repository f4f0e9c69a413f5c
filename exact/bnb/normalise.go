package bnb

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/optalloc/optalloc/model"
)

// item is what the engine places: a buffer, or an alias group folded into
// its root. A group occupies the root's bytes over the union of its
// members' lifetimes. Gaps are ignored: an item occupies its whole
// rectangle, which is conservative (every plan found is valid, but a plan
// that would need a gap's bytes is not found, and "infeasible" then means
// "infeasible without using gaps").
type item struct {
	start, end int64
	size       int64
	align      int64
	pin        int64 // -1 when free
}

// folded is a problem reduced to items, scaled by the GCD of sizes,
// alignments and pins.
type folded struct {
	items []item  // scaled sizes, aligns, pins; original times
	of    []int   // buffer → item
	delta []int64 // buffer → byte delta inside its item (unscaled)
	scale int64
}

// fold validates p and reduces it to items. Aliased members require
// (root offset + delta) to honour their own alignment; the engine supports
// that when delta is a multiple of the member's alignment (the root's
// alignment becomes the LCM), and reports an error otherwise.
func fold(p *model.Problem) (*folded, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	groups, of, delta := p.AliasGroups()
	f := &folded{of: of, delta: delta}
	pool := &p.PoolList()[0] // single pool: its alignment applies to every buffer
	for _, gr := range groups {
		r := gr.Root
		b := &p.Buffers[r]
		it := item{start: gr.Start, end: gr.End, size: b.Size, align: b.AlignmentIn(pool), pin: -1}
		if b.Pin != nil {
			it.pin = *b.Pin
		}
		for _, i := range gr.Members {
			m := &p.Buffers[i]
			a := m.AlignmentIn(pool)
			if d := delta[i]; d%a != 0 {
				return nil, fmt.Errorf("%s: buffer %q: alias delta %d is not a multiple of its alignment %d (not supported by the exact engine)", p.Where(i), m.ID, d, a)
			}
			it.align = model.LCM(it.align, a)
		}
		if it.pin >= 0 && it.pin%it.align != 0 {
			return nil, fmt.Errorf("%s: buffer %q: pin %d of alias root breaks the alignment %d of its alias members", p.Where(r), b.ID, it.pin, it.align)
		}
		f.items = append(f.items, it)
	}
	var g int64
	for _, it := range f.items {
		g = model.GCD(g, it.size)
		if it.align > 1 {
			g = model.GCD(g, it.align)
		}
		if it.pin > 0 {
			g = model.GCD(g, it.pin)
		}
	}
	if g == 0 {
		g = 1
	}
	f.scale = g
	for k := range f.items {
		it := &f.items[k]
		it.size /= g
		it.align = max(1, it.align/g)
		if it.pin > 0 {
			it.pin /= g
		}
	}
	return f, nil
}

// comp is one independent component of the folded problem, compressed and
// ready to search. Items of size 0 are not in it.
type comp struct {
	items   []int // item indices in the folded problem
	n       int
	size    []int64
	align   []int64
	pin     []int64
	start   []int32 // time ranks
	end     []int32
	conf    [][]int32 // conflicting items (local indices)
	secLo   []int32   // item's sections [secLo, secHi)
	secHi   []int32
	nsec    int
	secLoad []int64 // total size per section
	maxLive int64
	maxPin  int64   // largest pin+size (a lower bound on the peak)
	minConf []int64 // smallest size among the items each item conflicts with
	olen    []int64 // lifetime in original time units

	// Aligned stacks: with unit the GCD of the alignments above 1 (0 when
	// no item has one), an aligned item i is followed by the next aligned
	// item of its section no lower than its offset + rsize[i] (its size
	// rounded up to unit), so the aligned items of a section need their
	// rounded sizes but the topmost's waste (at most maxWaste).
	unit     int64
	rsize    []int64 // size rounded up to unit for aligned items, 0 otherwise
	secLoadR []int64 // per section: total rsize
	maxWaste int64   // largest rsize − size
}

// components splits the positive-size items into independent components
// (time points no item spans) and builds each.
// pairs counts the pairs of items of positive size alive at the same time,
// in O(n log n), without listing them: in start order, item i meets the
// items after it that start before it ends.
func (f *folded) pairs() int64 {
	var live []item
	for _, it := range f.items {
		if it.size > 0 {
			live = append(live, it)
		}
	}
	slices.SortFunc(live, func(a, b item) int { return cmp.Compare(a.start, b.start) })
	var n int64
	for i, it := range live {
		hi, _ := slices.BinarySearchFunc(live, it.end, func(x item, t int64) int { return cmp.Compare(x.start, t) })
		n += int64(hi - i - 1)
	}
	return n
}

func (f *folded) components() []*comp {
	var idx []int
	for k, it := range f.items {
		if it.size > 0 {
			idx = append(idx, k)
		}
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		return cmp.Compare(f.items[a].start, f.items[b].start)
	})
	var out []*comp
	var cur []int
	var end int64
	for _, k := range idx {
		it := f.items[k]
		if len(cur) > 0 && it.start >= end {
			out = append(out, f.build(cur))
			cur = nil
		}
		if len(cur) == 0 {
			end = it.end
		}
		cur = append(cur, k)
		end = max(end, it.end)
	}
	if len(cur) > 0 {
		out = append(out, f.build(cur))
	}
	return out
}

func (f *folded) build(idx []int) *comp {
	n := len(idx)
	c := &comp{items: idx, n: n, size: make([]int64, n), align: make([]int64, n), pin: make([]int64, n),
		start: make([]int32, n), end: make([]int32, n), conf: make([][]int32, n),
		secLo: make([]int32, n), secHi: make([]int32, n), olen: make([]int64, n)}
	times := make([]int64, 0, 2*n)
	for i, k := range idx {
		it := f.items[k]
		c.size[i], c.align[i], c.pin[i] = it.size, it.align, it.pin
		c.olen[i] = it.end - it.start
		times = append(times, it.start, it.end)
		if it.pin >= 0 {
			c.maxPin = max(c.maxPin, it.pin+it.size)
		}
	}
	slices.Sort(times)
	times = slices.Compact(times)
	rank := func(t int64) int32 {
		r, _ := slices.BinarySearch(times, t)
		return int32(r)
	}
	T := len(times)
	starts := make([]bool, T)
	ends := make([]bool, T)
	for i, k := range idx {
		it := f.items[k]
		c.start[i], c.end[i] = rank(it.start), rank(it.end)
		starts[c.start[i]] = true
		ends[c.end[i]] = true
	}
	// Sections: maximal cliques, i.e. slots [t, t+1) entered by a start and
	// left by an end. secOf[t] is the number of sections before slot t.
	secOf := make([]int32, T+1)
	var secSlots []int32
	for t := 0; t+1 < T; t++ {
		secOf[t] = int32(len(secSlots))
		if starts[t] && ends[t+1] {
			secSlots = append(secSlots, int32(t))
		}
	}
	secOf[T-1] = int32(len(secSlots))
	secOf[T] = int32(len(secSlots))
	c.nsec = len(secSlots)
	for i := 0; i < n; i++ {
		c.secLo[i], c.secHi[i] = secOf[c.start[i]], secOf[c.end[i]]
	}
	// Loads by prefix sums: O(n + sections), where a loop over each
	// item's sections costs O(n × sections) on long-lived buffers.
	c.secLoad = c.sectionLoads(func(i int) int64 { return c.size[i] })
	for _, l := range c.secLoad {
		c.maxLive = max(c.maxLive, l)
	}
	c.alignedStacks()
	// Conflicts: sweep by start rank.
	order := make([]int32, n)
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return int(c.start[a]) - int(c.start[b]) })
	// Degrees first, so that every list is cut from one array of the exact
	// size: appending left about six times the lists' size in garbage (13 M
	// pairs: 742 MB allocated for 105 MB of lists). Item order[x] meets
	// order[x+1 : hi) and every earlier item whose range reaches it.
	deg := make([]int, n)
	diff := make([]int, n+1)
	for x := 0; x < n; x++ {
		a := order[x]
		hi, _ := slices.BinarySearchFunc(order[x+1:], c.end[a], func(i, t int32) int { return cmp.Compare(c.start[i], t) })
		deg[a] += hi
		diff[x+1]++
		diff[x+1+hi]--
	}
	total, run := 0, 0
	for x := 0; x < n; x++ {
		run += diff[x]
		deg[order[x]] += run
		total += deg[order[x]]
	}
	back := make([]int32, total)
	for i := range c.conf {
		c.conf[i], back = back[:0:deg[i]], back[deg[i]:]
	}
	for x := 0; x < n; x++ {
		a := order[x]
		for y := x + 1; y < n && c.start[order[y]] < c.end[a]; y++ {
			b := order[y]
			c.conf[a] = append(c.conf[a], b)
			c.conf[b] = append(c.conf[b], a)
		}
	}
	c.minConf = make([]int64, n)
	for i := range c.minConf {
		c.minConf[i] = 1 << 62
		for _, j := range c.conf[i] {
			c.minConf[i] = min(c.minConf[i], c.size[j])
		}
	}
	return c
}

// alignedStacks fills unit, rsize, secLoadR and maxWaste.
func (c *comp) alignedStacks() {
	c.rsize = make([]int64, c.n)
	c.secLoadR = make([]int64, c.nsec)
	for _, a := range c.align {
		if a > 1 {
			c.unit = model.GCD(c.unit, a)
		}
	}
	if c.unit <= 1 {
		c.unit = 0
		return
	}
	for i, a := range c.align {
		if a > 1 {
			c.rsize[i] = alignUp(c.size[i], c.unit)
			c.maxWaste = max(c.maxWaste, c.rsize[i]-c.size[i])
		}
	}
	c.secLoadR = c.sectionLoads(func(i int) int64 { return c.rsize[i] })
}

// sectionLoads sums w(i) over the items of each section (secLo, secHi set).
func (c *comp) sectionLoads(w func(i int) int64) []int64 {
	diff := make([]int64, c.nsec+1)
	for i := 0; i < c.n; i++ {
		diff[c.secLo[i]] += w(i)
		diff[c.secHi[i]] -= w(i)
	}
	loads := make([]int64, c.nsec)
	var run int64
	for s := range loads {
		run += diff[s]
		loads[s] = run
	}
	return loads
}

// stackTop is the lowest top of aligned items of total rounded size r
// stacked at or above e (0 when r is 0).
func (c *comp) stackTop(e, r int64) int64 {
	if r == 0 {
		return 0
	}
	return alignUp(e, c.unit) + r - c.maxWaste
}

func alignUp(v, a int64) int64 {
	if a > 1 {
		if r := v % a; r != 0 {
			return v + a - r
		}
	}
	return v
}
