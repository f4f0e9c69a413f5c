package blocks_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/verify"
)

// genOpts shapes a random problem.
type genOpts struct {
	n        int     // buffers (roots)
	horizon  int64   // times in [0, horizon)
	maxSize  int64   // sizes in [1, maxSize]
	aliases  float64 // probability that a root gets an alias child
	zeros    float64 // probability of a zero-size buffer
	prefixes []string
}

// genProblem returns a valid random problem. Alias children live inside
// their parent and start during its lifetime (so a group's lifetime is the
// union of its members').
func genProblem(r *rand.Rand, o genOpts) *model.Problem {
	p := &model.Problem{Name: "random"}
	for i := 0; i < o.n; i++ {
		s := r.Int64N(o.horizon)
		e := s + 1 + r.Int64N(max(1, o.horizon/3))
		size := 1 + r.Int64N(o.maxSize)
		if r.Float64() < o.zeros {
			size = 0
		}
		id := fmt.Sprintf("b%d", i)
		if len(o.prefixes) > 0 {
			pre := o.prefixes[i%len(o.prefixes)]
			id = pre + "/" + id
		}
		p.Buffers = append(p.Buffers, model.Buffer{ID: id, Start: s, End: e, Size: size})
		if size > 1 && r.Float64() < o.aliases {
			cs := s + r.Int64N(e-s)
			csize := 1 + r.Int64N(size-1)
			p.Buffers = append(p.Buffers, model.Buffer{ID: id + "c", Start: cs, End: cs + 1 + r.Int64N(3), Size: csize,
				Alias: &model.Alias{Parent: id, Delta: r.Int64N(size - csize + 1)}})
		}
	}
	if err := p.Validate(); err != nil {
		panic(err)
	}
	return p
}

// serialProblem places the buffers of several models one after the other.
func serialProblem(r *rand.Rand, models []string, n int, span int64, maxSize int64) *model.Problem {
	p := &model.Problem{Name: "serial"}
	for m, name := range models {
		base := int64(m) * span
		for i := 0; i < n; i++ {
			s := base + r.Int64N(span-1)
			e := min(base+span, s+1+r.Int64N(span/3+1))
			p.Buffers = append(p.Buffers, model.Buffer{ID: fmt.Sprintf("%s/t%d", name, i), Start: s, End: e, Size: 1 + r.Int64N(maxSize)})
		}
	}
	return p
}

// bruteForce returns the least total block bytes and the least block count
// over every partition of the alias groups (roots with bytes) into blocks,
// judged by verify.BlockCheck only: it shares nothing with the planners.
// maxBlocks > 0 restricts to partitions with at most that many blocks.
// ok is false when no partition qualifies.
func bruteForce(p *model.Problem, maxBlocks int) (best int64, minCount int, ok bool) {
	index := p.Index()
	rootOf := func(i int) int {
		for p.Buffers[i].Alias != nil {
			i = index[p.Buffers[i].Alias.Parent]
		}
		return i
	}
	var roots []int
	pos := map[int]int{}
	for i := range p.Buffers {
		if p.Buffers[i].Alias == nil && p.Buffers[i].Size > 0 {
			pos[i] = len(roots)
			roots = append(roots, i)
		}
	}
	m := len(roots)
	part := make([]int, m)
	best, minCount = -1, -1
	var rec func(k, nb int)
	rec = func(k, nb int) {
		if k == m {
			if maxBlocks > 0 && nb > maxBlocks {
				return
			}
			sizes := make([]int64, nb)
			for g, b := range part {
				sizes[b] = max(sizes[b], p.Buffers[roots[g]].Size)
			}
			assign := make([]int, len(p.Buffers))
			for i := range p.Buffers {
				assign[i] = -1
				if g, has := pos[rootOf(i)]; has {
					assign[i] = part[g]
				}
			}
			if len(verify.BlockCheck(p, sizes, assign)) > 0 {
				return
			}
			var tot int64
			for _, s := range sizes {
				tot += s
			}
			if best < 0 || tot < best {
				best = tot
			}
			if minCount < 0 || nb < minCount {
				minCount = nb
			}
			return
		}
		for b := 0; b <= nb; b++ {
			part[k] = b
			if b == nb {
				rec(k+1, nb+1)
			} else {
				rec(k+1, nb)
			}
		}
	}
	rec(0, 0)
	return best, minCount, best >= 0
}
