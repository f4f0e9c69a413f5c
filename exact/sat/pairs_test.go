package sat

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/internal/brute"
)

// randomItems folds random problems with gaps, aliases, pins, alignments
// and zero sizes into items (some lifetimes repeat, so starts tie).
func randomItems(t *testing.T, seed uint64, n int) []item {
	rng := rand.New(rand.NewPCG(seed, 7))
	for range 100 {
		p := randomGapAlias(rng, n, gapOpts{horizon: 12, maxSize: 6, gap: 0.2, window: 0.5, alias: 0.2,
			align: 0.2, pin: 0.1, zero: 0.1})
		if in, err := newInstance(p, 0); err == nil { // else members clash: draw again
			return in.items
		}
	}
	require.FailNow(t, "no valid random problem in 100 draws")
	return nil
}

// allPairs is the loop over every pair the sweeps replace.
func allPairs(items []item) [][2]int {
	var out [][2]int
	for i := range items {
		for j := i + 1; j < len(items); j++ {
			a, b := &items[i], &items[j]
			if a.size > 0 && b.size > 0 && a.start < b.end && b.start < a.end {
				out = append(out, [2]int{i, j})
			}
		}
	}
	return out
}

func TestSweepPairsEqualsAllPairs(t *testing.T) {
	for seed := range uint64(40) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			items := randomItems(t, seed, 5+int(seed%30))
			var got [][2]int
			require.True(t, sweepPairs(context.Background(), items, func(i, j int) bool {
				got = append(got, [2]int{i, j})
				return true
			}))
			slices.SortFunc(got, func(x, y [2]int) int { return cmpPair(x, y) })
			assert.Equal(t, allPairs(items), got)
		})
	}
}

func cmpPair(x, y [2]int) int {
	if x[0] != y[0] {
		return x[0] - y[0]
	}
	return x[1] - y[1]
}

// TestOrderedPairsBothPaths: the direct loop and the sweep give the pairs
// in the order of the loop over all pairs (the encoding's numbering).
func TestOrderedPairsBothPaths(t *testing.T) {
	small := randomItems(t, 3, 40)
	// Past directPairs the sweep runs: the items repeated, shifted in time.
	var large []item
	for k := 0; len(large) <= directPairs; k++ {
		for _, it := range small {
			it.start += int64(k) * 7
			it.end += int64(k) * 7
			large = append(large, it)
		}
	}
	for name, items := range map[string][]item{"direct": small, "sweep": large} {
		t.Run(name, func(t *testing.T) {
			after, ok := orderedPairs(context.Background(), items)
			require.True(t, ok)
			var got [][2]int
			for i, js := range after {
				for _, j := range js {
					got = append(got, [2]int{i, int(j)})
				}
			}
			assert.Equal(t, allPairs(items), got)
		})
	}
}

// oldSubsetSums is the O(n² · hmax / 64) loop subsetSums replaced.
func oldSubsetSums(items []item, hmax int64) [][]uint64 {
	w := int(hmax/64 + 1)
	out := make([][]uint64, len(items))
	for i := range items {
		set := make([]uint64, w)
		set[0] = 1
		for j := range items {
			if j == i || items[j].size == 0 || items[j].size > hmax {
				continue
			}
			s := items[j].size
			ws, bs := int(s/64), uint(s%64)
			for k := w - 1; k >= ws; k-- {
				v := set[k-ws] << bs
				if bs > 0 && k-ws-1 >= 0 {
					v |= set[k-ws-1] >> (64 - bs)
				}
				set[k] |= v
			}
		}
		out[i] = set
	}
	return out
}

func TestSubsetSumsEqualsAllItems(t *testing.T) {
	for _, c := range []struct {
		name  string
		sizes []int64
		hmax  int64
	}{
		{"distinct", []int64{3, 5, 7, 11}, 30},
		{"repeated", []int64{4, 4, 4, 4, 6, 6, 9}, 40},
		{"one size", []int64{5, 5, 5, 5, 5, 5}, 17},
		{"wide", []int64{64, 64, 65, 127, 3, 3}, 300},
		{"too big and empty", []int64{0, 50, 2, 2, 7}, 20},
	} {
		t.Run(c.name, func(t *testing.T) {
			items := make([]item, len(c.sizes))
			for i, s := range c.sizes {
				items[i] = item{size: s, pin: -1}
			}
			got := subsetSums(context.Background(), items, c.hmax)
			want := oldSubsetSums(items, c.hmax)
			for i := range items {
				for v := int64(0); v <= c.hmax; v++ {
					assert.Equal(t, want[i][v/64]>>(v%64)&1, got[i][v/64]>>(v%64)&1, "item %d, sum %d", i, v)
				}
			}
		})
	}
}

// oldEstimate is the loop over every pair estimate replaced.
func oldEstimate(items []item, dom [][]int64, pinFilter bool) (vars, clauses int64) {
	var buf []span
	for i := range items {
		vars += int64(len(dom[i]))
		clauses += int64(len(dom[i]))
		for j := i + 1; j < len(items); j++ {
			if pinnedPair(&items[i], &items[j], pinFilter) {
				continue
			}
			buf = forbidden(&items[i], &items[j], buf)
			k := int64(len(buf))
			if k == 0 {
				continue
			}
			vars += k
			clauses += k - 1
			if len(dom[i]) == 1 || len(dom[j]) == 1 {
				clauses += 4 * k
			} else {
				clauses += k * int64(len(dom[i])+len(dom[j])+2)
			}
		}
	}
	return vars, clauses
}

func TestEstimateEqualsAllPairs(t *testing.T) {
	for seed := range uint64(30) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			items := randomItems(t, seed, 4+int(seed%20))
			for _, pinFilter := range []bool{true, false} {
				dom, ok := domains(context.Background(), items, 40, true, pinFilter)
				require.True(t, ok)
				v, c, ok := estimate(context.Background(), items, dom, pinFilter, Options{})
				require.True(t, ok)
				wv, wc := oldEstimate(items, dom, pinFilter)
				assert.Equal(t, [2]int64{wv, wc}, [2]int64{v, c})
			}
		})
	}
}

// TestAdmitsLongChain: deciding whether SAT takes a long chain costs its
// pairs, not all pairs (issue 36, D2: 20 001 buffers took 2.4 s and
// 100 000 a minute, never looking at the clock), and a cancelled check
// refuses at once.
func TestAdmitsLongChain(t *testing.T) {
	p := brute.AlignedChain(100_000)
	done := make(chan struct{})
	var ok bool
	go func() {
		defer close(done)
		ok, _ = AdmitsContext(context.Background(), p, 512, Options{MaxClauses: 1_500_000})
	}()
	select {
	case <-done:
		assert.True(t, ok, "a chain's encoding at its max-live is small")
	case <-time.After(20 * time.Second): // generous: the sweep takes 0.3 s, the loop over all pairs took a minute
		t.Fatal("Admits on a chain of 100 000 buffers is still quadratic")
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ok, why := AdmitsContext(ctx, p, 512, Options{})
	assert.False(t, ok)
	assert.Contains(t, why, "stopped")
}
