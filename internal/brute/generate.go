package brute

import (
	"fmt"
	"math/rand/v2"

	"github.com/optalloc/optalloc/model"
)

// RandomOptions shapes the instances of Random. Zero values pick the
// defaults noted on each field.
type RandomOptions struct {
	Horizon int64 // time steps: lifetimes lie in [0, Horizon); default 2n
	MaxSize int64 // sizes are drawn from [1, MaxSize]; default 8
	// ZeroSize is the probability that a buffer has size 0.
	ZeroSize float64
	// Align is the probability that a buffer gets an alignment drawn from
	// {2, 3, 4}.
	Align float64
	// Pin is the probability that a buffer is pinned at a random multiple of
	// its alignment below 2·MaxSize.
	Pin float64
	// PoolAlign is the probability that the problem's pool gets an
	// alignment drawn from {2, 4} (it applies to every buffer).
	PoolAlign float64
}

// Random returns a tiny random single-pool problem of n buffers with ids
// "0".."n-1". The same rng state gives the same problem.
func Random(rng *rand.Rand, n int, opt RandomOptions) *model.Problem {
	h := opt.Horizon
	if h <= 1 {
		h = int64(2*n) + 1
	}
	ms := opt.MaxSize
	if ms <= 0 {
		ms = 8
	}
	p := &model.Problem{Name: "random"}
	pool := model.Pool{Name: model.DefaultPool}
	if opt.PoolAlign > 0 && rng.Float64() < opt.PoolAlign {
		pool.Align = 2 << rng.IntN(2)
		p.Pools = []model.Pool{pool}
	}
	for i := 0; i < n; i++ {
		s := rng.Int64N(h - 1)
		e := s + 1 + rng.Int64N(h-s)
		b := model.Buffer{ID: fmt.Sprint(i), Start: s, End: e, Size: 1 + rng.Int64N(ms)}
		if rng.Float64() < opt.ZeroSize {
			b.Size = 0
		}
		if rng.Float64() < opt.Align {
			b.Align = 2 + rng.Int64N(3)
		}
		if rng.Float64() < opt.Pin {
			a := b.AlignmentIn(&pool)
			v := a * rng.Int64N(2*ms/a+1)
			b.Pin = &v
		}
		p.Buffers = append(p.Buffers, b)
	}
	return p
}

// PerfectPacking cuts the rectangle [0, width) × [0, height) (time × bytes)
// into pieces rectangles by random guillotine cuts and returns them as
// buffers: piece [t0, t1) × [y0, y1) becomes a buffer live on [t0, t1) of
// y1−y0 bytes. Every time step is covered by exactly height bytes, so the
// max-live bound is height and the cut layout reaches it: the optimum peak
// is exactly height. Fewer pieces are returned when no piece can be cut any
// more (every piece 1 × 1). Offsets of the cut layout are returned too.
func PerfectPacking(rng *rand.Rand, width, height int64, pieces int) (*model.Problem, []int64) {
	type rect struct{ t0, t1, y0, y1 int64 }
	rs := []rect{{0, width, 0, height}}
	for len(rs) < pieces {
		// Pick a random piece that can still be cut.
		var cand []int
		for i, r := range rs {
			if r.t1-r.t0 > 1 || r.y1-r.y0 > 1 {
				cand = append(cand, i)
			}
		}
		if len(cand) == 0 {
			break
		}
		i := cand[rng.IntN(len(cand))]
		r := rs[i]
		w, hh := r.t1-r.t0, r.y1-r.y0
		cutTime := w > 1 && (hh <= 1 || rng.IntN(2) == 0)
		if cutTime {
			c := r.t0 + 1 + rng.Int64N(w-1)
			rs[i] = rect{r.t0, c, r.y0, r.y1}
			rs = append(rs, rect{c, r.t1, r.y0, r.y1})
		} else {
			c := r.y0 + 1 + rng.Int64N(hh-1)
			rs[i] = rect{r.t0, r.t1, r.y0, c}
			rs = append(rs, rect{r.t0, r.t1, c, r.y1})
		}
	}
	p := &model.Problem{Name: "perfect"}
	offs := make([]int64, len(rs))
	for i, r := range rs {
		p.Buffers = append(p.Buffers, model.Buffer{ID: fmt.Sprint(i), Start: r.t0, End: r.t1, Size: r.y1 - r.y0})
		offs[i] = r.y0
	}
	return p, offs
}

// Chain returns the liveness of a chain of n ops, the shape of a long CNN
// or of a model unrolled over many steps: op i reads tensor i−1 and writes
// tensor i (1–64 KiB); a third of the ops also read a tensor 2–5 ops back
// (a skip connection, which keeps it alive), and every seventh op has a
// scratch buffer of 1–8 KiB alive during the op alone. Ids are "x0",
// "x1", ... and "s7", "s14", ...; the same rng state gives the same
// problem.
func Chain(rng *rand.Rand, n int) *model.Problem {
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
