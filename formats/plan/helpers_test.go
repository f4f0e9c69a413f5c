package plan

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/optalloc/optalloc/model"
)

// Test helpers, as in package model's tests.

func i64(v int64) *int64 { return &v }

// buf returns a valid fixed buffer live on [start, end).
func buf(id string, start, end, size int64) model.Buffer {
	return model.Buffer{ID: id, Start: start, End: end, Size: size}
}

// genOptions chooses which features randProblem uses.
type genOptions struct {
	gaps, aligns, pins, hints, aliases, pools, elastic, zeros bool
	horizon                                                   int64 // time steps; 0 means 20
}

// randProblem returns a valid random problem of n buffers (small times and
// sizes, so that brute force over every time step is cheap).
func randProblem(rng *rand.Rand, n int, o genOptions) *model.Problem {
	h := o.horizon
	if h == 0 {
		h = 20
	}
	p := &model.Problem{}
	if o.pools {
		p.Pools = []model.Pool{{Name: "sram", Capacity: 1 << 20, Align: 4}, {Name: "dram", Rank: 1}}
	}
	for i := 0; i < n; i++ {
		b := model.Buffer{ID: fmt.Sprintf("b%d", i)}
		b.Start = rng.Int64N(h - 1)
		b.End = b.Start + 1 + rng.Int64N(min(h-b.Start, 8))
		b.Size = 1 + rng.Int64N(32)
		if o.zeros && rng.IntN(8) == 0 {
			b.Size = 0
		}
		if o.aligns && rng.IntN(3) == 0 {
			b.Align = int64(1) << rng.IntN(4)
		}
		if o.pins && rng.IntN(6) == 0 {
			a := b.Alignment()
			if o.pools {
				a = b.AlignmentIn(&p.Pools[0]) // valid in either pool
			}
			b.Pin = i64(a * rng.Int64N(16))
		}
		if o.hints && rng.IntN(6) == 0 {
			b.Hint = i64(rng.Int64N(64))
		}
		if o.elastic && b.Pin == nil && rng.IntN(6) == 0 {
			b.MaxSize = b.Size + 1 + rng.Int64N(16)
		}
		if o.pools && rng.IntN(3) == 0 {
			b.Pools = []string{[]string{"sram", "dram"}[rng.IntN(2)]}
		}
		if o.gaps && b.End-b.Start >= 3 && rng.IntN(3) == 0 {
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
	if o.aliases {
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
			// (model's copy calls the unexported validateAliasOverlaps; the
			// rest of the problem is valid, so Validate fails only there)
			if p.Validate() != nil {
				c.Alias = nil // it would share bytes with a live relative
				c.Pools = pools
				continue
			}
		}
	}
	return p
}

// checkInputError fails unless err is a one-line *InputError naming file.
func checkInputError(t *testing.T, err error, file string) {
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
