package heuristics

import (
	"fmt"
	"math/rand/v2"

	"github.com/optalloc/optalloc/model"
)

// transformerTrace generates a transformer-like trace of n buffers: one op
// per time step, each producing an activation read by the next one to three
// ops, a residual every 8 ops that lives for the whole block, attention
// scores that are larger and short-lived, and a scratch buffer every 4 ops.
func transformerTrace(n int, seed uint64) *model.Problem {
	r := rand.New(rand.NewPCG(seed, 7))
	p := &model.Problem{Name: fmt.Sprintf("transformer-%d", n)}
	hidden := int64(768 * 128 * 2)
	var t int64
	for len(p.Buffers) < n {
		i := len(p.Buffers)
		b := model.Buffer{ID: fmt.Sprint(i), Start: t, Size: hidden * int64(1+r.IntN(4)), Align: 64}
		switch {
		case i%8 == 0:
			b.End = t + 8 + int64(r.IntN(4))
		case i%8 == 5:
			b.Size = hidden * 12 * int64(1+r.IntN(2))
			b.End = t + 1 + int64(r.IntN(2))
		case i%4 == 3:
			b.Size = int64(1+r.IntN(64)) * 4096
			b.End = t + 1
			b.Kind = model.Scratch
		default:
			b.End = t + 1 + int64(r.IntN(3))
		}
		p.Buffers = append(p.Buffers, b)
		if i%4 != 2 {
			t++
		}
	}
	return p
}
