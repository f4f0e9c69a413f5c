package heuristics

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestTreap compares the free-block treap with a sorted slice.
func TestTreap(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var tr treap
	var ref [][2]int64
	for range 5000 {
		s, o := int64(r.IntN(30)), int64(r.IntN(30))
		i, found := slices.BinarySearchFunc(ref, [2]int64{s, o}, func(x, y [2]int64) int {
			if x[0] != y[0] {
				return cmp.Compare(x[0], y[0])
			}
			return cmp.Compare(x[1], y[1])
		})
		if found {
			tr.remove(s, o)
			ref = slices.Delete(ref, i, i+1)
		} else {
			tr.insert(s, o)
			ref = slices.Insert(ref, i, [2]int64{s, o})
		}
		qs := int64(r.IntN(32))
		n := tr.ceil(qs, -1)
		j, _ := slices.BinarySearchFunc(ref, qs, func(x [2]int64, s int64) int { return cmp.Compare(x[0], s) })
		if j == len(ref) {
			require.Nil(t, n)
		} else {
			require.Equal(t, ref[j], [2]int64{n.size, n.off})
		}
		if m := tr.max(); len(ref) == 0 {
			require.Nil(t, m)
		} else {
			require.Equal(t, ref[len(ref)-1], [2]int64{m.size, m.off})
		}
	}
}
