package bnb

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/optalloc/optalloc/internal/brute"
	"github.com/stretchr/testify/require"
)

// refSectionBounds is sectionBounds written plainly, from its definition:
// every active unplaced item's lowest possible offset e (its pin, its
// minimum offset, or past the last placement when canonical order forbids
// that), e + size under the capacity, then, in order of e, each of the
// paintLevels lowest items of a section checks e + (the section's
// unplaced total) − (the sizes below it), and with aligned stacks the
// same with rounded sizes.
func refSectionBounds(s *searcher) bool {
	c := s.c
	gmin := int64(1) << 62
	var items []int32
	for i := range int32(c.n) {
		if !s.is[i].placed && !s.is[i].hidden {
			items = append(items, i)
			gmin = min(gmin, c.size[i])
		}
	}
	e := make([]int64, c.n)
	for _, i := range items {
		e[i] = c.pin[i]
		if e[i] < 0 {
			e[i] = s.is[i].minOff
			if e[i] < s.lastOff || (e[i] == s.lastOff && s.rank[i] < s.lastRank) {
				e[i] = alignUp(s.lastOff+max(gmin, c.minConf[i]), c.align[i])
			}
		}
		if e[i]+c.size[i] > s.capacity {
			return false
		}
	}
	slices.SortStableFunc(items, func(a, b int32) int { return int(e[a] - e[b]) })
	count := make([]int, c.nsec)
	below := make([]int64, c.nsec)
	belowR := make([]int64, c.nsec)
	for _, i := range items {
		for sec := c.secLo[i]; sec < c.secHi[i]; sec++ {
			if count[sec] == paintLevels {
				continue
			}
			if e[i]+s.unpl[sec]-below[sec] > s.capacity {
				return false
			}
			if s.stacks && c.stackTop(e[i], s.unplR[sec]-belowR[sec]) > s.capacity {
				return false
			}
			count[sec]++
			below[sec] += c.size[i]
			belowR[sec] += c.rsize[i]
		}
	}
	return true
}

// refGroups counts the time-disjoint groups of the active unplaced items
// from their lifetimes.
func refGroups(s *searcher) int {
	c := s.c
	var items []int32
	for i := range int32(c.n) {
		if !s.is[i].placed && !s.is[i].hidden {
			items = append(items, i)
		}
	}
	slices.SortFunc(items, func(a, b int32) int { return int(c.start[a] - c.start[b]) })
	groups, end := 0, int32(-1)
	for _, i := range items {
		if c.start[i] >= end {
			groups++
		}
		end = max(end, c.end[i])
	}
	return groups
}

// TestSectionBoundsMatchesReference walks random paths (random canonical
// candidates, placed whether they fit or not, some items hidden at times)
// on random components, small and large capacities (buckets and the
// sort), pins and alignments, and at every node that reaches the section
// bounds compares candidates' verdict with refSectionBounds; the buckets
// must be empty after every call. At every node split's quick test (cut)
// must agree with the groups counted from the lifetimes.
func TestSectionBoundsMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(71, 72))
	checked, rejected, sorted, cuts := 0, 0, 0, 0
	for k := 0; k < 1500; k++ {
		ro := brute.RandomOptions{MaxSize: 1 + rng.Int64N(12)}
		switch k % 6 {
		case 1:
			ro.Align = 0.3
		case 2:
			ro.Pin = 0.15
		case 3:
			ro.MaxSize = 3000 + rng.Int64N(50000) // above 16n + 1024 units: the sort
		case 4:
			ro.Align, ro.Pin = 0.3, 0.1
		}
		n := 4 + rng.IntN(40)
		if k%5 == 0 {
			ro.Horizon = int64(2 + n/6) // crowded sections: past paintLevels
		}
		p := brute.Random(rng, n, ro)
		f, err := fold(p)
		require.NoError(t, err)
		for _, c := range f.components() {
			name := orderNames[k%len(orderNames)]
			opt := Options{NoAlignStacks: k%7 == 5}
			s := newSearcher(c, staticOrder(c, baseOrder(name), uint64(k)), orderFlags(name, opt.flags()), &counters{})
			s.reset(c.maxLive + rng.Int64N(c.maxLive/8+2))
			for depth := 0; depth < 2*c.n; depth++ {
				var hid []int32
				if rng.IntN(4) == 0 {
					for i := range int32(c.n) {
						if !s.is[i].placed && rng.IntN(3) == 0 {
							hid = append(hid, i)
						}
					}
					s.hide(hid, true)
				}
				require.Equal(t, refGroups(s) >= 2, s.cut(), "instance %d, depth %d: cut", k, depth)
				if s.cut() {
					cuts++
				}
				want := refSectionBounds(s)
				before := s.st.prunes
				cs, ok := s.candidates(0)
				after := s.st.prunes
				if after[pruneCanonical] == before[pruneCanonical] && after[pruneDominance] == before[pruneDominance] {
					require.Equal(t, want, ok, "instance %d, order %s, depth %d", k, name, depth)
					checked++
					if !ok {
						rejected++
					}
					if s.capacity > 16*int64(c.n)+1024 {
						sorted++
					}
				}
				for w, m := range s.bmask {
					require.Zero(t, m, "instance %d: bucket word %d left set", k, w)
				}
				s.hide(hid, false)
				if len(hid) > 0 {
					continue // the candidates were those of the visible items
				}
				if s.active == 0 {
					break
				}
				var cd cand
				if ok && len(cs) > 0 {
					cd = cs[rng.IntN(len(cs))]
				} else {
					// Pruned: go on from any unplaced item at its lowest
					// offset, to reach states a search would not.
					for cd.it = int32(rng.IntN(c.n)); s.is[cd.it].placed; cd.it = (cd.it + 1) % int32(c.n) {
					}
					cd.off, cd.rank = s.value(cd.it), s.rank[cd.it]
				}
				s.place(cd.it, cd.off)
				s.lastOff, s.lastRank = cd.off, cd.rank
			}
		}
	}
	require.Greater(t, checked, 20000)
	require.Greater(t, rejected, 2000)
	require.Greater(t, checked-rejected, 5000)
	require.Greater(t, sorted, 2000)
	require.Greater(t, cuts, 500)
	t.Logf("%d nodes checked, %d rejected by the section bounds, %d with the sort, %d with a cut", checked, rejected, sorted, cuts)
}
