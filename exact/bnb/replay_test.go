package bnb

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/optalloc/optalloc/internal/brute"
	"github.com/stretchr/testify/require"
)

// The pruning rules must never cut the search path of a packing that
// exists. Brute force checks that on tiny instances only; here a known
// packing of 40–100 pieces (cut from a rectangle, some pinned, some
// aligned) is brought into the normal form the search enumerates and
// replayed step by step through the searcher's own forced placements and
// candidate lists: at every node the packing's next item must be a
// candidate at its offset, and no rule may prune the node — window
// refutation included.

// lowered moves every unpinned item of a packing to the lowest aligned
// offset where it overlaps no conflicting item, until nothing moves: the
// canonical search with dominance enumerates exactly such packings.
func lowered(c *comp, off []int64) []int64 {
	off = slices.Clone(off)
	idx := make([]int32, c.n)
	for i := range idx {
		idx[i] = int32(i)
	}
	free := func(i int32, o int64) bool {
		for _, j := range c.conf[i] {
			if o < off[j]+c.size[j] && off[j] < o+c.size[i] {
				return false
			}
		}
		return true
	}
	for moved := true; moved; {
		moved = false
		slices.SortFunc(idx, func(a, b int32) int { return int(off[a] - off[b]) })
		for _, i := range idx {
			if c.pin[i] >= 0 {
				continue
			}
			// The lowest free offset is 0 or the aligned top of a
			// conflicting item.
			best := off[i]
			try := func(o int64) {
				if o < best && free(i, o) {
					best = o
				}
			}
			try(0)
			for _, j := range c.conf[i] {
				try(alignUp(off[j]+c.size[j], c.align[i]))
			}
			if best < off[i] {
				off[i], moved = best, true
			}
		}
	}
	return off
}

// replay follows the canonical placement sequence of target through s at
// the given capacity and returns "" when it completes, or the step where
// the search would not reach target and why.
func replay(s *searcher, capacity int64, target []int64) string {
	c := s.c
	n := int32(c.n)
	// Identical items are placed in rank order: give the lower rank the
	// lower offset (they are interchangeable).
	target = slices.Clone(target)
	for swapped := true; swapped; {
		swapped = false
		for _, i := range s.byRank {
			if tw := s.twin[i]; tw >= 0 && target[tw] > target[i] {
				target[tw], target[i] = target[i], target[tw]
				swapped = true
			}
		}
	}
	s.reset(capacity)
	s.stop, s.ctx = new(atomic.Bool), context.Background()
	for step := 0; ; step++ {
		nForced, ok := s.forceFree()
		for _, i := range s.stack[len(s.stack)-nForced:] {
			if s.off[i] != target[i] {
				return fmt.Sprintf("step %d: forced item %d went to %d, the packing has it at %d", step, i, s.off[i], target[i])
			}
		}
		if !ok {
			return fmt.Sprintf("step %d: a forced placement does not fit", step)
		}
		if s.active == 0 {
			return ""
		}
		next := int32(-1)
		for r := s.next[n]; r != n; r = s.next[r] {
			i := s.byRank[r]
			if next < 0 || target[i] < target[next] {
				next = i
			}
		}
		if s.fl.windows && step%13 == 5 && windowsRefute(s) {
			return fmt.Sprintf("step %d: a window refuted the node", step)
		}
		cs, ok := s.candidates(step)
		if !ok {
			return fmt.Sprintf("step %d: node pruned (prunes so far %v)", step, s.st.prunes)
		}
		k := slices.IndexFunc(cs, func(cd cand) bool { return cd.it == next })
		if k < 0 || cs[k].off != target[next] {
			return fmt.Sprintf("step %d: item %d (offset %d in the packing, minimum %d) is not a candidate there", step, next, target[next], s.is[next].minOff)
		}
		if !s.place(next, cs[k].off) {
			return fmt.Sprintf("step %d: placing item %d at %d fails", step, next, cs[k].off)
		}
		s.lastOff, s.lastRank = cs[k].off, cs[k].rank
	}
}

func TestKnownPackingsSurvivePruning(t *testing.T) {
	defer eagerWindows()()
	rng := rand.New(rand.NewPCG(31, 32))
	names := append(DefaultOrders(), "TWA-rank", "RZ-rank")
	opt := Options{NoSplit: true, NoMemo: true} // the replay does not follow splits; the memo needs a search
	for k := 0; k < 120; k++ {
		p, offs := brute.PerfectPacking(rng, 20+rng.Int64N(60), 30+rng.Int64N(90), 40+rng.IntN(60))
		height := p.ComputeSweep().MaxLive
		for i := range p.Buffers {
			b := &p.Buffers[i]
			switch {
			case k%3 == 1 && rng.IntN(6) == 0:
				o := offs[i]
				b.Pin = &o
			case k%3 == 2 && offs[i] > 0:
				// An alignment the packing honours: a power of two
				// (at most 8) dividing the offset.
				b.Align = min(8, offs[i]&-offs[i])
			}
		}
		f, err := fold(p)
		require.NoError(t, err)
		for _, c := range f.components() {
			off := make([]int64, c.n)
			for li, it := range c.items {
				off[li] = offs[it] / f.scale // no aliases: item it is buffer it
			}
			target := lowered(c, off)
			for _, name := range names {
				s := newSearcher(c, staticOrder(c, baseOrder(name), uint64(k)), orderFlags(name, opt.flags()), &counters{})
				require.Empty(t, replay(s, height/f.scale, target), "instance %d, order %s", k, name)
				if height/f.scale > c.maxLive {
					continue
				}
				// One unit less, the same path must be cut somewhere:
				// the replay is not vacuous.
				require.NotEmpty(t, replay(s, height/f.scale-1, target), "instance %d, order %s", k, name)
			}
		}
	}
}

// windowsRefute runs a window check with a budget of 4096 nodes in all.
func windowsRefute(s *searcher) bool {
	refuted, _ := s.windowRefuted(1 << 12)
	return refuted
}
