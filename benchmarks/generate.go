package benchmarks

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/optalloc/optalloc/internal/brute"
	"github.com/optalloc/optalloc/model"
)

// RandomOptions shapes Random instances. Zero fields take the defaults
// noted on them.
type RandomOptions struct {
	Buffers int   // number of buffers; default 100
	Horizon int64 // lifetimes start in [0, Horizon); default 2·Buffers
	// MaxLifetime bounds lifetimes, drawn uniformly in [1, MaxLifetime];
	// default Horizon/10 + 1.
	MaxLifetime int64
	// Sizes are log-uniform in [MinSize, MaxSize]; defaults 64 and 1 MiB.
	MinSize, MaxSize int64
	// Align, when > 1, rounds every size up to a multiple of it.
	Align int64
}

// Random returns a random single-pool problem; the same seed and options
// give the same problem. Buffer ids are "r0", "r1", ...
func Random(seed uint64, opt RandomOptions) *model.Problem {
	n := opt.Buffers
	if n <= 0 {
		n = 100
	}
	h := opt.Horizon
	if h <= 0 {
		h = int64(2 * n)
	}
	life := opt.MaxLifetime
	if life <= 0 {
		life = h/10 + 1
	}
	lo, hi := opt.MinSize, opt.MaxSize
	if lo <= 0 {
		lo = 64
	}
	if hi < lo {
		hi = max(lo, 1<<20)
	}
	rng := rand.New(rand.NewPCG(seed, 0x6f7074616c6c6f63))
	p := &model.Problem{Name: fmt.Sprintf("random-n%d-s%d", n, seed), Buffers: make([]model.Buffer, n)}
	for i := range p.Buffers {
		s := rng.Int64N(h)
		size := int64(math.Round(float64(lo) * math.Pow(float64(hi)/float64(lo), rng.Float64())))
		if opt.Align > 1 {
			size = (size + opt.Align - 1) / opt.Align * opt.Align
		}
		p.Buffers[i] = model.Buffer{ID: fmt.Sprint("r", i), Start: s, End: s + 1 + rng.Int64N(life), Size: size}
	}
	return p
}

// PerfectPacking cuts the rectangle [0, width) × [0, height) (time × bytes)
// into pieces rectangles by random guillotine cuts and returns them as
// buffers. Every time step is covered by exactly height bytes, so max-live
// is height and the cut layout reaches it: the optimum peak is height, and
// is returned with the problem (offsets holds the cut layout, an optimal
// plan). It uses internal/brute's generator.
func PerfectPacking(seed uint64, width, height int64, pieces int) (p *model.Problem, optimum int64, offsets []int64) {
	rng := rand.New(rand.NewPCG(seed, 0x7065726665637421))
	p, offsets = brute.PerfectPacking(rng, width, height, pieces)
	p.Name = fmt.Sprintf("perfect-w%d-h%d-n%d-s%d", width, height, len(p.Buffers), seed)
	for i := range p.Buffers {
		p.Buffers[i].ID = "p" + p.Buffers[i].ID
	}
	return p, height, offsets
}
