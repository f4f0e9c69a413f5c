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

// LongFeatures is a random problem over a long schedule with alignments (a
// third with a pool alignment too), alias members, gaps and elastic
// buffers; pinned is the fraction of the alias roots then pinned where
// place (a planner, e.g. greedy-size) puts them. It returns nil when the
// draw is not a valid problem or place fails; the same rng state gives the
// same problem.
func LongFeatures(rng *rand.Rand, n int, pinned float64, place func(*model.Problem) (*model.Plan, error)) *model.Problem {
	p := &model.Problem{Name: "long"}
	step := int64(16) // alias deltas: multiples of the pool's alignment
	if rng.IntN(3) == 0 {
		p.Pools = []model.Pool{{Name: "sram", Align: 32}}
		step = 32
	}
	aliased := map[int]bool{} // one alias per parent: two could share its bytes
	for i := 0; i < n; i++ {
		s := int64(i/4) + rng.Int64N(4)
		e := s + 1 + rng.Int64N(6)
		if rng.IntN(10) == 0 {
			e += rng.Int64N(40)
		}
		b := model.Buffer{ID: fmt.Sprint("b", i), Start: s, End: e, Size: 16 * (1 + rng.Int64N(32))}
		switch rng.IntN(10) {
		case 0:
			b.Align = 64
		case 1:
			b.Align = 128
		case 2:
			b.MaxSize, b.Kind = 2*b.Size, model.Scratch
		}
		if i == 0 || rng.IntN(10) != 0 {
			// no alias
		} else if j := max(0, i-1-rng.IntN(8)); p.Buffers[j].MaxSize == 0 && !aliased[j] {
			aliased[j] = true
			par := &p.Buffers[j]
			b.Size = 16 * (1 + rng.Int64N(par.Size/16))
			b.Alias = &model.Alias{Parent: par.ID, Delta: step * rng.Int64N((par.Size-b.Size)/step+1)}
			b.Align, b.MaxSize, b.Kind = 0, 0, ""
			b.Start, b.End = par.Start+rng.Int64N(par.End-par.Start), par.End+rng.Int64N(3)
		}
		if b.End-b.Start >= 3 && rng.IntN(10) == 0 {
			g := model.Gap{Start: b.Start + 1, End: b.Start + 2}
			if rng.IntN(2) == 0 {
				g.Window, g.Lo, g.Hi = true, 0, 16
			}
			b.Gaps = []model.Gap{g}
		}
		p.Buffers = append(p.Buffers, b)
	}
	if p.Validate() != nil {
		return nil
	}
	if pinned > 0 {
		plan, err := place(p)
		if err != nil {
			return nil
		}
		for i := range p.Buffers {
			if p.Buffers[i].Alias == nil && rng.Float64() < pinned {
				off := plan.Placements[i].Offset
				p.Buffers[i].Pin = &off
			}
		}
	}
	return p
}

// Timed returns n buffers over times 0..6 with sizes 1..8, a third
// aligned to 2 or 4 and a few pinned at aligned offsets.
func Timed(rng *rand.Rand, n int) *model.Problem {
	p := &model.Problem{Name: "timed"}
	for i := range n {
		s := rng.Int64N(6)
		b := model.Buffer{ID: fmt.Sprint(i), Start: s, End: s + 1 + rng.Int64N(6-s), Size: 1 + rng.Int64N(8)}
		if rng.IntN(3) == 0 {
			b.Align = 2 << rng.IntN(2)
		}
		if rng.IntN(8) == 0 {
			o := rng.Int64N(4) * 4
			b.Pin = &o
		}
		p.Buffers = append(p.Buffers, b)
	}
	return p
}

// AlignedChain is a chain of n ops: buffer i (id "t<i>") lives [i+1, i+3),
// 256 bytes aligned to 64 — the shape of ../shared/hostile/csv/chain20k.csv.
func AlignedChain(n int) *model.Problem {
	p := &model.Problem{Name: "chain"}
	for i := range n {
		p.Buffers = append(p.Buffers, model.Buffer{ID: fmt.Sprint("t", i), Start: int64(i + 1), End: int64(i + 3), Size: 256, Align: 64})
	}
	return p
}

// AlignedStaircase is the staircase of ../shared/hostile/r4/cli/mklong.py:
// buffer i lives [i, i+n/2) with a size in 1..999 and an alignment in
// 1..64 (a power of two), so n/2 buffers are live at once.
func AlignedStaircase(n int) *model.Problem {
	rng := rand.New(rand.NewPCG(1, uint64(n)))
	p := &model.Problem{Name: "staircase"}
	for i := range n {
		p.Buffers = append(p.Buffers, model.Buffer{ID: fmt.Sprint("b", i), Start: int64(i), End: int64(i + n/2),
			Size: 1 + rng.Int64N(999), Align: 1 << rng.IntN(7)})
	}
	return p
}
