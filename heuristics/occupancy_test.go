package heuristics

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/verify"
	"github.com/stretchr/testify/require"
)

// placerPlanners are the planners that place through the placer (exact
// footprints); the skyline family and freelist use bounding rectangles.
func placerPlanners() []Planner {
	return []Planner{
		&BestFit{Order: "size"}, &BestFit{Order: "size", FirstFit: true}, &BestFit{Order: "lifetime"},
		&Strip{Order: "size"}, &HillClimb{Seed: 1, Iterations: 50}, &LNS{Seed: 1, Iterations: 50},
	}
}

// TestExactOccupancy: worked examples where an item's exact footprint lets
// another buffer in; every placer-based planner reaches the exact max-live,
// greedy-size gives the offsets computed by hand, and with bounding
// rectangles (the old behaviour) the peak is the one computed by hand too.
func TestExactOccupancy(t *testing.T) {
	alias := func(parent string, d int64) *model.Alias { return &model.Alias{Parent: parent, Delta: d} }
	cases := []struct {
		name     string
		bufs     []model.Buffer
		want     map[string]int64 // greedy-size offsets
		peak     int64            // exact (= max-live)
		bounding int64            // greedy-size peak with bounding rectangles
	}{
		{
			// c = concat(a, b) in place: a and b die at 2, c is born at 4;
			// x lives in between and takes c's bytes.
			name: "concat inputs die before the output is born",
			bufs: []model.Buffer{
				{ID: "c", Start: 4, End: 6, Size: 8},
				{ID: "a", Start: 0, End: 2, Size: 4, Alias: alias("c", 0)},
				{ID: "b", Start: 0, End: 2, Size: 4, Alias: alias("c", 4)},
				{ID: "x", Start: 2, End: 4, Size: 8},
			},
			want: map[string]int64{"c": 0, "a": 0, "b": 4, "x": 0}, peak: 8, bounding: 16,
		},
		{
			// y is a view of the upper half of x that outlives x: after 3
			// only bytes [4, 8) of the group are used, z takes [0, 4).
			name: "view outliving its input",
			bufs: []model.Buffer{
				{ID: "x", Start: 0, End: 3, Size: 8},
				{ID: "y", Start: 2, End: 8, Size: 4, Alias: alias("x", 4)},
				{ID: "z", Start: 4, End: 8, Size: 4},
			},
			want: map[string]int64{"x": 0, "y": 4, "z": 0}, peak: 8, bounding: 12,
		},
		{
			name: "absent window lets another buffer in",
			bufs: []model.Buffer{
				{ID: "g", Start: 0, End: 10, Size: 8, Gaps: []model.Gap{{Start: 3, End: 6}}},
				{ID: "w", Start: 3, End: 6, Size: 8},
			},
			want: map[string]int64{"g": 0, "w": 0}, peak: 8, bounding: 16,
		},
		{
			name: "partial window: the other buffer takes the bytes left",
			bufs: []model.Buffer{
				{ID: "g", Start: 0, End: 10, Size: 8, Gaps: []model.Gap{{Start: 3, End: 6, Window: true, Lo: 0, Hi: 4}}},
				{ID: "w", Start: 3, End: 6, Size: 4},
			},
			want: map[string]int64{"g": 0, "w": 4}, peak: 8, bounding: 12,
		},
		{
			// the member's own gap counts too: m (a view of r) is absent
			// during [2, 4), where v takes its bytes.
			name: "gapped alias member",
			bufs: []model.Buffer{
				{ID: "r", Start: 0, End: 1, Size: 6},
				{ID: "m", Start: 0, End: 6, Size: 6, Alias: alias("r", 0), Gaps: []model.Gap{{Start: 2, End: 4}}},
				{ID: "v", Start: 2, End: 4, Size: 5},
			},
			want: map[string]int64{"r": 0, "m": 0, "v": 0}, peak: 6, bounding: 11,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := &model.Problem{Name: c.name, Buffers: c.bufs}
			require.NoError(t, p.Validate())
			require.Equal(t, c.peak, p.ComputeSweep().MaxLive)
			for _, pl := range placerPlanners() {
				plan, err := pl.Plan(context.Background(), p)
				require.NoError(t, err)
				require.Empty(t, verify.Check(p, plan), pl.Name())
				require.Equal(t, c.peak, plan.Peak(p), pl.Name())
				if pl.Name() == "greedy-size" {
					for i, b := range p.Buffers {
						require.Equal(t, c.want[b.ID], plan.Placements[i].Offset, "greedy-size offset of %s", b.ID)
					}
				}
			}
			old, err := (&BestFit{Order: "size"}).Plan(BoundingRectangles(context.Background()), p)
			require.NoError(t, err)
			require.Empty(t, verify.Check(p, old))
			require.Equal(t, c.bounding, old.Peak(p))
		})
	}
}

// occupies reports, independently of the placer, whether item footprint
// rs at offset o and the placed footprints share a byte at a time.
func collides(rs []rect, o int64, placed [][]rect, offs []int64) bool {
	for j, ps := range placed {
		for _, a := range rs {
			for _, b := range ps {
				if a.start < b.end && b.start < a.end && o+a.lo < offs[j]+b.hi && offs[j]+b.lo < o+a.hi {
					return true
				}
			}
		}
	}
	return false
}

// TestFitCompoundBruteForce: on random items with footprints, first-fit
// returns the lowest aligned offset where the item meets nothing placed
// (found by trying every offset), and best-fit a free aligned offset no
// higher than the top of the placed items; with the linear scan and with
// the interval tree alike.
func TestFitCompoundBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	randomRects := func(s, e, size int64) []rect {
		var out []rect
		for range 1 + r.IntN(4) {
			a := s + int64(r.IntN(int(e-s)))
			b := a + 1 + int64(r.IntN(int(e-a)))
			lo := int64(r.IntN(int(size)))
			out = append(out, rect{a, b, lo, lo + 1 + int64(r.IntN(int(size-lo)))})
		}
		return out
	}
	for it := 0; it < 2000; it++ {
		n := 2 + r.IntN(12)
		its := make([]item, n)
		for k := range its {
			s := int64(r.IntN(12))
			its[k] = item{start: s, end: s + 1 + int64(r.IntN(8)), size: 1 + int64(r.IntN(10)), align: int64(1 + r.IntN(3)), pin: -1}
			if r.IntN(2) == 0 {
				rs := randomRects(its[k].start, its[k].end, its[k].size)
				its[k].fp = &shape{rects: rs}
				its[k].start, its[k].end = rs[0].start, rs[0].end
				for _, x := range rs {
					its[k].start, its[k].end = min(its[k].start, x.start), max(its[k].end, x.end)
				}
			}
		}
		for _, tree := range []bool{false, true} {
			pc := newPlacer(its)
			if tree {
				if pc.eit == nil {
					continue
				}
				pc.tree = newITree(pc.es, pc.ee)
			} else {
				pc.tree = nil
			}
			var placed [][]rect
			var offs []int64
			var top int64
			for k := 0; k < n-1; k++ { // place all but the last, first-fit
				o := pc.fit(k, true)
				require.False(t, collides(its[k].entries(), o, placed, offs), "item %d at %d", k, o)
				pc.off[k] = o
				pc.insert(k)
				placed, offs = append(placed, its[k].entries()), append(offs, o)
				top = max(top, o+its[k].size)
			}
			k := n - 1
			want := int64(0)
			for ; collides(its[k].entries(), want, placed, offs) || want%its[k].align != 0; want++ {
			}
			require.Equal(t, want, pc.fit(k, true), "instance %d first-fit (tree %v)", it, tree)
			bf := pc.fit(k, false)
			require.Zero(t, bf%its[k].align)
			require.False(t, collides(its[k].entries(), bf, placed, offs), "instance %d best-fit at %d", it, bf)
			require.LessOrEqual(t, bf, its[k].up(top))
		}
	}
}

// bruteOptimum returns the smallest peak of any plan of a single-pool
// problem with offsets in [0, limit), trying every combination of aligned
// offsets of the alias roots (verify.Check decides validity).
func bruteOptimum(p *model.Problem, limit int64) int64 {
	index := p.Index()
	var roots []int
	delta := make([]int64, len(p.Buffers))
	rootOf := make([]int, len(p.Buffers))
	for i := range p.Buffers {
		rootOf[i], delta[i] = p.Root(i, index)
		if rootOf[i] == i {
			roots = append(roots, i)
		}
	}
	plan := model.NewPlan(p)
	best := int64(-1)
	var rec func(x int)
	rec = func(x int) {
		if x == len(roots) {
			for i := range p.Buffers {
				plan.Placements[i].Offset = plan.Placements[rootOf[i]].Offset + delta[i]
			}
			if pk := plan.Peak(p); (best < 0 || pk < best) && len(verify.Check(p, plan)) == 0 {
				best = pk
			}
			return
		}
		for o := int64(0); o < limit; o++ {
			plan.Placements[roots[x]].Offset = o
			rec(x + 1)
		}
	}
	rec(0)
	return best
}

// TestBruteForceGapsAliases: on tiny random instances with gaps and alias
// chains, every plan is valid, no planner beats the brute-force optimum,
// the exact max-live is at most that optimum, and the portfolio reaches it
// on most instances (the count is printed).
func TestBruteForceGapsAliases(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	hit, total := 0, 0
	for it := 0; it < 150; it++ {
		p := &model.Problem{Name: fmt.Sprint("tiny", it)}
		n := 2 + r.IntN(3)
		for i := 0; i < n; i++ {
			s := int64(r.IntN(4))
			b := model.Buffer{ID: fmt.Sprint("b", i), Start: s, End: s + 2 + int64(r.IntN(4)), Size: 1 + int64(r.IntN(3))}
			if r.IntN(3) == 0 {
				g := b.Start + 1
				b.Gaps = []model.Gap{{Start: g, End: g + 1}}
				if r.IntN(2) == 0 && b.Size > 1 {
					b.Gaps[0].Window, b.Gaps[0].Lo, b.Gaps[0].Hi = true, 1, b.Size
				}
				if g+1 > b.End {
					b.Gaps = nil
				}
			}
			if i > 0 && r.IntN(3) == 0 {
				par := &p.Buffers[r.IntN(i)]
				if par.Alias == nil && par.Size >= b.Size {
					b.Alias = &model.Alias{Parent: par.ID, Delta: int64(r.IntN(int(par.Size-b.Size) + 1))}
				}
			}
			p.Buffers = append(p.Buffers, b)
		}
		if p.Validate() != nil {
			continue
		}
		var sum int64
		for _, b := range p.Buffers {
			if b.Alias == nil {
				sum += b.Size
			}
		}
		opt := bruteOptimum(p, sum)
		if opt < 0 {
			continue // gapped members of one group that share bytes: no plan exists
		}
		require.LessOrEqual(t, p.ComputeSweep().MaxLive, opt)
		for _, pl := range placerPlanners() {
			plan, err := pl.Plan(context.Background(), p)
			require.NoError(t, err)
			require.Empty(t, verify.Check(p, plan), "%s on %d", pl.Name(), it)
			require.GreaterOrEqual(t, plan.Peak(p), opt)
		}
		plan, _, err := Portfolio(context.Background(), p, PortfolioOptions{Threads: 1, Seed: 1})
		require.NoError(t, err)
		total++
		if plan.Peak(p) == opt {
			hit++
		}
	}
	t.Logf("portfolio reached the brute-force optimum on %d of %d tiny instances with gaps and aliases", hit, total)
	require.Greater(t, total, 50)
	require.Greater(t, hit, total*3/4)
}

// TestExactMaxLive: the items' max-live (exact footprints) equals the
// model's max-live on random single-pool instances.
func TestExactMaxLive(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for it := 0; it < 300; it++ {
		p := randomProblem(r, 2+r.IntN(20))
		p.Pools = nil
		for i := range p.Buffers {
			p.Buffers[i].Pools = nil
		}
		require.NoError(t, p.Validate())
		in, err := newInstance(context.Background(), p)
		require.NoError(t, err)
		require.Equal(t, p.ComputeSweep().MaxLive, maxLive(in.its), "instance %d", it)
	}
}
