package benchmarks

import (
	"fmt"
	"math/rand/v2"

	"github.com/optalloc/optalloc/model"
)

// Chain returns the liveness of a chain of n ops, the shape of a long CNN
// or of a model unrolled over many steps: op i reads tensor i−1 and writes
// tensor i (1–64 KiB); a third of the ops also read a tensor 2–5 ops back
// (a skip connection, which keeps it alive), and every seventh op has a
// scratch buffer of 1–8 KiB alive during the op alone. The same seed and n
// give the same problem; ids are "x0", "x1", ... and "s7", "s14", ...
func Chain(seed uint64, n int) *model.Problem {
	rng := rand.New(rand.NewPCG(seed, 0x636861696e))
	p := &model.Problem{Name: fmt.Sprintf("chain-%d", n)}
	for i := 0; i < n; i++ {
		p.Buffers = append(p.Buffers, model.Buffer{ID: fmt.Sprint("x", i), Start: int64(i), End: int64(i) + 2,
			Size: 1024 * (1 + rng.Int64N(64))})
	}
	for i := 6; i < n; i++ {
		if rng.IntN(3) == 0 {
			k := i - 2 - rng.IntN(4)
			p.Buffers[k].End = max(p.Buffers[k].End, int64(i)+1)
		}
	}
	for i := 7; i < n; i += 7 {
		p.Buffers = append(p.Buffers, model.Buffer{ID: fmt.Sprint("s", i), Start: int64(i), End: int64(i) + 1,
			Size: 1024 * (1 + rng.Int64N(8)), Kind: model.Scratch})
	}
	return p
}
