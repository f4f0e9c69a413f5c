// Package problemtest holds the helpers that the tests of optalloc's
// problem formats share: random problems with every feature, checks of
// input errors and of read problems, and a reading benchmark.
package problemtest

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/optalloc/optalloc/model"
)

// I64 returns a pointer to v.
func I64(v int64) *int64 { return &v }

// Buf returns a valid fixed buffer live on [start, end).
func Buf(id string, start, end, size int64) model.Buffer {
	return model.Buffer{ID: id, Start: start, End: end, Size: size}
}

// Options chooses which features Random uses.
type Options struct {
	Gaps, Aligns, Pins, Hints, Aliases, Pools, Elastic, Zeros bool
	Horizon                                                   int64 // time steps; 0 means 20
}

// Random returns a valid random problem of n buffers (small times and
// sizes, so that brute force over every time step is cheap).
func Random(rng *rand.Rand, n int, o Options) *model.Problem {
	h := o.Horizon
	if h == 0 {
		h = 20
	}
	p := &model.Problem{}
	if o.Pools {
		p.Pools = []model.Pool{{Name: "sram", Capacity: 1 << 20, Align: 4}, {Name: "dram", Rank: 1}}
	}
	for i := 0; i < n; i++ {
		b := model.Buffer{ID: fmt.Sprintf("b%d", i)}
		b.Start = rng.Int64N(h - 1)
		b.End = b.Start + 1 + rng.Int64N(min(h-b.Start, 8))
		b.Size = 1 + rng.Int64N(32)
		if o.Zeros && rng.IntN(8) == 0 {
			b.Size = 0
		}
		if o.Aligns && rng.IntN(3) == 0 {
			b.Align = int64(1) << rng.IntN(4)
		}
		if o.Pins && rng.IntN(6) == 0 {
			a := b.Alignment()
			if o.Pools {
				a = b.AlignmentIn(&p.Pools[0]) // valid in either pool
			}
			b.Pin = I64(a * rng.Int64N(16))
		}
		if o.Hints && rng.IntN(6) == 0 {
			b.Hint = I64(rng.Int64N(64))
		}
		if o.Elastic && b.Pin == nil && rng.IntN(6) == 0 {
			b.MaxSize = b.Size + 1 + rng.Int64N(16)
		}
		if o.Pools && rng.IntN(3) == 0 {
			b.Pools = []string{[]string{"sram", "dram"}[rng.IntN(2)]}
		}
		if o.Gaps && b.End-b.Start >= 3 && rng.IntN(3) == 0 {
			// One gap strictly inside the lifetime, absent or a window.
			gs := b.Start + 1 + rng.Int64N(b.End-b.Start-2)
			ge := gs + 1 + rng.Int64N(b.End-gs-1)
			g := model.Gap{Start: gs, End: ge}
			if rng.IntN(2) == 0 && b.Size > 0 {
				g.Window = true
				g.Lo = rng.Int64N(b.Size)
				g.Hi = g.Lo + rng.Int64N(b.Size-g.Lo+1)
			}
			b.Gaps = []model.Gap{g}
		}
		p.Buffers = append(p.Buffers, b)
	}
	if o.Aliases {
		// Some buffers become aliases of an earlier, non-elastic buffer large
		// enough to hold them.
		for i := 1; i < n; i++ {
			c := &p.Buffers[i]
			if rng.IntN(4) != 0 || c.Elastic() || c.Pin != nil {
				continue
			}
			j := rng.IntN(i)
			par := &p.Buffers[j]
			if par.Elastic() || par.Size < c.Size {
				continue
			}
			c.Alias = &model.Alias{Parent: par.ID, Delta: rng.Int64N(par.Size - c.Size + 1)}
			pools := c.Pools
			c.Pools = nil
			// (the rest of the problem is valid, so Validate fails only there)
			if p.Validate() != nil {
				c.Alias = nil // it would share bytes with a live relative
				c.Pools = pools
				continue
			}
		}
	}
	return p
}

// CheckInputError fails unless err is a one-line *InputError naming file.
func CheckInputError(t testing.TB, err error, file string) {
	t.Helper()
	var ie *model.InputError
	if !errors.As(err, &ie) {
		t.Fatalf("error is %T, not *InputError: %v", err, err)
	}
	msg := err.Error()
	if strings.ContainsAny(msg, "\n\r") {
		t.Fatalf("error is not one line: %q", msg)
	}
	if !strings.HasPrefix(msg, file) {
		t.Fatalf("error does not start with the file name: %q", msg)
	}
}

// CheckProblem fails unless p is a valid, non-empty problem whose sweep
// agrees with its buffers.
func CheckProblem(t testing.TB, p *model.Problem) {
	t.Helper()
	if p == nil || len(p.Buffers) == 0 {
		t.Fatalf("no error but no buffers: %+v", p)
	}
	if err := p.Validate(); err != nil {
		t.Fatalf("returned problem does not validate: %v", err)
	}
	s := p.ComputeSweep()
	n := 0
	for _, c := range s.Components {
		n += len(c.Buffers)
	}
	if n != len(p.Buffers) {
		t.Fatalf("components hold %d of %d buffers", n, len(p.Buffers))
	}
	for i := range p.Buffers {
		if b := &p.Buffers[i]; b.Alias == nil && len(b.Gaps) == 0 && b.Size > s.MaxLive {
			t.Fatalf("max-live %d below the size %d of %q", s.MaxLive, b.Size, b.ID)
		}
	}
}

// SameCore fails unless got has want's buffers with the same ids,
// lifetimes, sizes, alignments, pins, hints and gaps (what every problem
// format keeps).
func SameCore(t testing.TB, want, got *model.Problem) {
	t.Helper()
	if len(want.Buffers) != len(got.Buffers) {
		t.Fatalf("round trip: %d buffers became %d", len(want.Buffers), len(got.Buffers))
	}
	for i := range want.Buffers {
		w, g := &want.Buffers[i], &got.Buffers[i]
		if w.ID != g.ID || w.Start != g.Start || w.End != g.End || w.Size != g.Size || w.Alignment() != g.Alignment() ||
			!eqPtr(w.Pin, g.Pin) || !eqPtr(w.Hint, g.Hint) || !sameGaps(w.Gaps, g.Gaps) {
			t.Fatalf("round trip changed buffer %d:\n%+v\n%+v", i, *w, *g)
		}
	}
}

// sameGaps compares two gap lists (nil and empty alike).
func sameGaps(a, b []model.Gap) bool { return len(a) == 0 && len(b) == 0 || slices.Equal(a, b) }

func eqPtr(a, b *int64) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

// Transformer returns n buffers with transformer-like lifetimes:
// layers of 12 ops, each op's output read by the next op or two, a residual
// stream that spans each layer, and a long-lived KV-cache-like tensor every
// layer. Sizes are multiples of 64.
func Transformer(n int) *model.Problem {
	p := &model.Problem{Name: "bench", Buffers: make([]model.Buffer, 0, n)}
	var t int64
	for layer := 0; len(p.Buffers) < n; layer++ {
		add := func(kind string, start, end, size int64) {
			if len(p.Buffers) < n {
				p.Buffers = append(p.Buffers, model.Buffer{ID: fmt.Sprintf("l%d.%s", layer, kind), Start: start, End: end, Size: size, Align: 64})
			}
		}
		add("residual", t, t+13, 4096*64)
		add("kv", t+2, t+13*8, 1024*64)
		for op := int64(0); op < 12; op++ {
			size := int64(64 * (1 + (layer*7+int(op)*13)%4096))
			add(fmt.Sprintf("op%d", op), t+op, t+op+1+op%3, size)
		}
		t += 12
	}
	return p
}

// BenchRead measures read on n buffers of Transformer written by write,
// in ns per row.
func BenchRead(b *testing.B, n int, write func(*bytes.Buffer, *model.Problem) error, read func(*bytes.Reader) (*model.Problem, error)) {
	var data bytes.Buffer
	if err := write(&data, Transformer(n)); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(data.Len()))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		p, err := read(bytes.NewReader(data.Bytes()))
		if err != nil {
			b.Fatal(err)
		}
		if len(p.Buffers) != n {
			b.Fatalf("read %d buffers, want %d", len(p.Buffers), n)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/row")
}
