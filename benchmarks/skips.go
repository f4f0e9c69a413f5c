package benchmarks

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/optalloc/optalloc/model"
)

// Skips returns the trace of models chained ops long, run one after the
// other: op i writes one output, read by op i+1 and, with probability 0.3,
// by a random later op of the same model up to 2 000 ops on (a long skip
// connection); a third of the ops also have a workspace live during the op.
// Sizes are log-uniform in [4 KiB, 4 MiB]. It stands for the session-11
// graph of 2 × 15 000 ops with long random skip connections (made by a
// script that was not kept), on which freelist ended 5.14% above max-live
// and every best-fit order 7.5–16%.
func Skips(seed uint64, models, ops int) *model.Problem {
	rng := rand.New(rand.NewPCG(seed, 0x736b697073))
	p := &model.Problem{Name: fmt.Sprintf("skips-%dx%d-s%d", models, ops, seed)}
	size := func() int64 {
		return int64(4096 * math.Pow(1024, rng.Float64()))
	}
	var t int64
	for m := 0; m < models; m++ {
		base := t
		for i := 0; i < ops; i++ {
			t = base + int64(i)
			end := t + 2 // read by the next op
			if rng.Float64() < 0.3 {
				end = min(t+2+rng.Int64N(2000), base+int64(ops))
			}
			p.Buffers = append(p.Buffers, model.Buffer{ID: fmt.Sprintf("m%d.op%d", m, i), Start: t, End: max(end, t+1), Size: size()})
			if rng.IntN(3) == 0 {
				p.Buffers = append(p.Buffers, model.Buffer{ID: fmt.Sprintf("m%d.op%d.ws", m, i), Start: t, End: t + 1, Size: size(), Kind: model.Scratch})
			}
		}
		t = base + int64(ops) + 1
	}
	return p
}
