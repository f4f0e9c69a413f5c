package bnb

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
)

// Static orders give the canonical tie-break and the order in which equal
// candidates are tried. The portfolio runs several of them, because which
// order finds a packing fast differs from instance to instance by orders
// of magnitude (heavy tails: see the README's table of winners).
//
// An order is named by its keys, most significant first, each sorted in
// descending order (MiniMalloc's preorderings are "TWA", "TAW", "WAT"):
//
//	T  the largest section total the item spans
//	W  its lifetime in the problem's time units (end − start)
//	A  its area: size × W
//	Z  its size
//	L  its lifetime in event slots (distinct start/end times it spans)
//	R  size × L
//	N  its alignment (aligned items first)
//
// Remaining ties go to the earlier start, then the lower item index.
// "random" perturbs "TWA" with the seed (a fresh perturbation every
// portfolio round). A name with the suffix "-rank" (say "TWA-rank") uses
// the same order but tries the candidates of a node by rank alone
// (Options.RankFirst).
const orderKeys = "TWAZLRN"

// orderNames is the default portfolio, in priority order: the workers take
// them round-robin, so the first ones get the first turns. Chosen from
// measured winners on MiniMalloc's A–K (README, "Exact engines").
var orderNames = []string{"TWA", "TRL", "TLR", "RZ", "WAT", "TAW", "ZWT", "random"}

const rankSuffix = "-rank"

// baseOrder strips the suffixes of an order name.
func baseOrder(name string) string {
	return strings.TrimSuffix(name, rankSuffix)
}

// orderFlags adjusts the search flags for an order name's suffixes.
func orderFlags(name string, fl flags) flags {
	if strings.HasSuffix(name, rankSuffix) {
		fl.byOffset = false
	}
	return fl
}

// DefaultOrders returns the names of the default portfolio.
func DefaultOrders() []string { return slices.Clone(orderNames) }

// CheckOrders reports the first invalid name among static order names.
func CheckOrders(names []string) error {
	for _, n := range names {
		if err := checkOrder(n); err != nil {
			return err
		}
	}
	return nil
}

// checkOrder reports whether name is a valid order name.
func checkOrder(name string) error {
	name = baseOrder(name)
	if name == "random" {
		return nil
	}
	if name == "" {
		return fmt.Errorf("bnb: empty static order name")
	}
	for _, ch := range name {
		if !strings.ContainsRune(orderKeys, ch) {
			return fmt.Errorf("bnb: unknown static order %q (want \"random\" or keys from %q, e.g. \"TWA\", optionally with %q)", name, orderKeys, rankSuffix)
		}
	}
	return nil
}

// staticOrder returns the items of c in the order named by kind; "random"
// perturbs "TWA" with the given seed.
func staticOrder(c *comp, kind string, seed uint64) []int32 {
	n := c.n
	if kind == "random" {
		// The "TWA" order, perturbed: every item may swap with one of the
		// next few.
		o := staticOrder(c, "TWA", 0)
		rng := rand.New(rand.NewPCG(seed, 0x6f7074616c6c6f63))
		for a := 0; a+1 < n; a++ {
			b := min(n-1, a+rng.IntN(4))
			o[a], o[b] = o[b], o[a]
		}
		return o
	}
	secMax := make([]int64, n)
	for i := 0; i < n; i++ {
		for s := c.secLo[i]; s < c.secHi[i]; s++ {
			secMax[i] = max(secMax[i], c.secLoad[s])
		}
	}
	key := func(ch byte, i int32) int64 {
		switch ch {
		case 'T':
			return secMax[i]
		case 'W':
			return c.olen[i]
		case 'A':
			return c.size[i] * c.olen[i]
		case 'Z':
			return c.size[i]
		case 'L':
			return int64(c.end[i] - c.start[i])
		case 'N':
			return c.align[i]
		default: // 'R'
			return c.size[i] * int64(c.end[i]-c.start[i])
		}
	}
	o := make([]int32, n)
	for i := range o {
		o[i] = int32(i)
	}
	// Pinned items first: they are fixed, so trying them early is cheap.
	slices.SortStableFunc(o, func(a, b int32) int {
		if pa, pb := c.pin[a] >= 0, c.pin[b] >= 0; pa != pb {
			if pa {
				return -1
			}
			return 1
		}
		for k := 0; k < len(kind); k++ {
			if d := cmp.Compare(key(kind[k], b), key(kind[k], a)); d != 0 {
				return d
			}
		}
		return cmp.Compare(c.start[a], c.start[b])
	})
	return o
}
