package bounds

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/internal/brute"
	"github.com/optalloc/optalloc/model"
)

// twoTimes builds a problem from buffers [start, end, size, align].
func twoTimes(bufs ...[4]int64) *model.Problem {
	p := &model.Problem{Name: "two-times"}
	for i, b := range bufs {
		p.Buffers = append(p.Buffers, model.Buffer{ID: fmt.Sprint(i), Start: b[0], End: b[1], Size: b[2], Align: b[3]})
	}
	return p
}

// TestPairBoundCases: hand-made problems where one time alone says only
// max-live and two times say more; brute force gives the optimum.
func TestPairBoundCases(t *testing.T) {
	tests := []struct {
		name      string
		p         *model.Problem
		want, opt int64
	}{
		// 6 (blocks 4+2) then 3 and 3, a 2-byte buffer live throughout:
		// the union is at least 7, so 2 + 7.
		{"one then two aligned, fluid at both", twoTimes([4]int64{0, 1, 6, 4}, [4]int64{1, 2, 3, 4}, [4]int64{1, 2, 3, 4}, [4]int64{0, 2, 2, 1}), 9, 9},
		// The same without the buffer live at both: nothing to gain.
		{"no bytes at both times", twoTimes([4]int64{0, 1, 6, 4}, [4]int64{1, 2, 3, 4}, [4]int64{1, 2, 3, 4}), 7, 7},
		// Sizes that are multiples of the alignment leave no padding.
		{"whole blocks only", twoTimes([4]int64{0, 1, 8, 4}, [4]int64{1, 2, 4, 4}, [4]int64{1, 2, 4, 4}, [4]int64{0, 2, 3, 1}), 11, 11},
		// An aligned buffer live at both counts its bytes once: 6 + 7 (the
		// section bound at time 0 gives the same).
		{"aligned at both", twoTimes([4]int64{0, 2, 5, 4}, [4]int64{0, 1, 6, 4}, [4]int64{1, 2, 3, 4}, [4]int64{1, 2, 3, 4}, [4]int64{0, 2, 1, 1}), 13, 13},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.NoError(t, tc.p.Validate())
			got := Align(tc.p)
			opt, _ := brute.Optimum(tc.p)
			assert.Equal(t, tc.opt, opt, "brute force")
			assert.Equal(t, tc.want, got.LowerBound, got.Detail())
			assert.LessOrEqual(t, got.LowerBound, opt)
		})
	}
}

// TestPairBoundNeverAboveBruteForce: random problems over three time steps
// with aligned buffers and small unaligned ones (the shape where two times
// see more than one): the bound never exceeds the brute-force optimum, and
// the two-time bound decides it on a fair share of them.
func TestPairBoundNeverAboveBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 3))
	checked, pair, tight := 0, 0, 0
	for k := 0; k < 3000; k++ {
		A := int64(2 + rng.IntN(3))
		p := &model.Problem{Name: "pair"}
		for i := range 2 + rng.IntN(6) {
			s := rng.Int64N(3)
			b := model.Buffer{ID: fmt.Sprint(i), Start: s, End: s + 1, Size: 1 + rng.Int64N(2*A+1), Align: A}
			switch rng.IntN(4) {
			case 0: // small, unaligned, live throughout
				b.Start, b.End, b.Size, b.Align = 0, 3, 1+rng.Int64N(A), 0
			case 1:
				b.End = s + 1 + rng.Int64N(3-s)
			}
			p.Buffers = append(p.Buffers, b)
		}
		require.NoError(t, p.Validate())
		opt, _ := brute.Optimum(p)
		got := Align(p)
		require.LessOrEqual(t, got.LowerBound, opt, "instance %d: %s; %+v", k, got.Detail(), p.Buffers)
		checked++
		if got.Pair {
			pair++
			if got.LowerBound == opt {
				tight++
			}
		}
	}
	assert.Greater(t, pair, checked/50, "the two-time bound should decide some instances")
	t.Logf("%d instances: the two-time bound is the strongest on %d, equal to the optimum on %d of those", checked, pair, tight)
}
