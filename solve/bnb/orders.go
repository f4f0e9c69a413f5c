package bnb

import (
	"cmp"
	"math/rand/v2"
	"slices"
)

// Static orders give the canonical tie-break and the order in which equal
// candidates are tried. The portfolio runs several of them.
// The letters of the first three name their keys, all descending, in
// priority order (MiniMalloc's preorderings): T the largest section total
// the item spans, W its lifetime, A its area.
//
// A name with the suffix "-rank" (say "twa-rank") uses the same order but
// tries the candidates of a node by rank alone (Options.RankFirst).
var orderNames = []string{"twa", "taw", "wat", "size", "area", "random"}

const rankSuffix = "-rank"

// knownOrders are the order names staticOrder understands.
var knownOrders = []string{"twa", "taw", "wat", "size", "area", "random", "length", "section", "start"}

// staticOrder returns the items of c in the order named by kind; "random"
// perturbs "twa" with the given seed, the others break ties by item index.
func staticOrder(c *comp, kind string, seed uint64) []int32 {
	n := c.n
	o := make([]int32, n)
	for i := range o {
		o[i] = int32(i)
	}
	length := func(i int32) int64 { return int64(c.end[i] - c.start[i]) }
	secMax := make([]int64, n)
	for i := 0; i < n; i++ {
		for s := c.secLo[i]; s < c.secHi[i]; s++ {
			secMax[i] = max(secMax[i], c.secLoad[s])
		}
	}
	keys := func(i int32) [3]int64 {
		switch kind {
		case "twa":
			return [3]int64{-secMax[i], -length(i), -c.size[i] * length(i)}
		case "taw":
			return [3]int64{-secMax[i], -c.size[i] * length(i), -length(i)}
		case "wat":
			return [3]int64{-length(i), -c.size[i] * length(i), -secMax[i]}
		case "size":
			return [3]int64{-c.size[i], -length(i), int64(c.start[i])}
		case "area":
			return [3]int64{-c.size[i] * length(i), -c.size[i], int64(c.start[i])}
		case "section":
			return [3]int64{-secMax[i], -length(i), -c.size[i]}
		case "start":
			return [3]int64{int64(c.start[i]), -length(i), -c.size[i]}
		default: // length
			return [3]int64{-length(i), -c.size[i], int64(c.start[i])}
		}
	}
	if kind == "random" {
		// The "twa" order, perturbed: every item may swap with one of the
		// next few.
		o = staticOrder(c, "twa", 0)
		rng := rand.New(rand.NewPCG(seed, 0x6f7074616c6c6f63))
		for a := 0; a+1 < n; a++ {
			b := min(n-1, a+rng.IntN(4))
			o[a], o[b] = o[b], o[a]
		}
		return o
	}
	// Pinned items first: they are fixed, so trying them early is cheap.
	slices.SortStableFunc(o, func(a, b int32) int {
		if pa, pb := c.pin[a] >= 0, c.pin[b] >= 0; pa != pb {
			if pa {
				return -1
			}
			return 1
		}
		ka, kb := keys(a), keys(b)
		for k := range ka {
			if ka[k] != kb[k] {
				return cmp.Compare(ka[k], kb[k])
			}
		}
		return 0
	})
	return o
}
