package verify_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/verify"
)

// FuzzCheck builds a small problem from the fuzzer's bytes (aliases, gaps,
// elastic buffers, pins, two pools), a valid first-fit plan for it — which
// Check must accept — and then a spoiled copy, whose overlapping pairs must
// be exactly those an all-pairs brute force finds. Inputs whose first byte
// is odd build an arbitrary, possibly invalid problem and plan instead:
// Check must simply not panic. Run it with
//
//	go test ./verify/ -run XXX -fuzz FuzzCheck -fuzztime 1000000x
func FuzzCheck(f *testing.F) {
	f.Add([]byte{0})
	f.Add([]byte{1})
	f.Add([]byte{2, 9, 1, 3, 8, 2, 0, 0, 3, 4, 5, 1, 2, 0, 7, 7, 7, 7, 1, 1, 0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
	f.Add([]byte{3, 4, 250, 3, 1, 200, 2, 9, 0, 1, 255, 255, 255, 6, 1, 2, 3, 128, 7, 6, 5, 4})
	f.Fuzz(func(t *testing.T, data []byte) {
		s := &byteSource{data: data}
		if s.intn(2) == 1 {
			p, pl := rawCase(s)
			_ = verify.Check(p, pl)
			return
		}
		p := genProblem(s, 1+s.intn(10), s.intn(2) == 0)
		pl := validPlan(s, p)
		if err := p.Validate(); err != nil {
			t.Fatalf("generator made an invalid problem: %v", err)
		}
		if vs := verify.Check(p, pl); len(vs) > 0 {
			t.Fatalf("valid plan rejected: %v\n%s", vs, dump(p, pl))
		}
		mutate(s, p, pl)
		vs := verify.Check(p, pl)
		got, want := overlapPairs(p, vs), bruteOverlaps(p, pl)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("overlaps %v, brute force %v\n%s", got, want, dump(p, pl))
		}
	})
}

// rawCase reads a problem and plan with no care for validity: duplicate
// ids, alias cycles and self-aliases, inverted lifetimes, negative or huge
// numbers, bad gaps, bad pools.
func rawCase(s source) (*model.Problem, *model.Plan) {
	nums := []int64{0, 1, 2, 3, 7, 8, -1, -8, math.MaxInt64, math.MinInt64, math.MaxInt64 - 1, 1 << 40}
	num := func() int64 {
		if s.intn(3) == 0 {
			return nums[s.intn(len(nums))]
		}
		return int64(s.intn(16))
	}
	p := &model.Problem{}
	for k := s.intn(3); k > 0; k-- {
		p.Pools = append(p.Pools, model.Pool{Name: fmt.Sprint("p", s.intn(2)), Capacity: num(), Align: num()})
	}
	n := s.intn(8)
	for i := 0; i < n; i++ {
		b := model.Buffer{ID: fmt.Sprint("b", s.intn(6)), Start: num(), End: num(), Size: num(), Align: num(), MaxSize: num()}
		if s.intn(3) == 0 {
			b.Alias = &model.Alias{Parent: fmt.Sprint("b", s.intn(6)), Delta: num()}
		}
		if s.intn(4) == 0 {
			b.Pin = i64(num())
		}
		if s.intn(4) == 0 {
			b.Pools = []string{fmt.Sprint("p", s.intn(3))}
		}
		for g := s.intn(3); g > 0; g-- {
			b.Gaps = append(b.Gaps, model.Gap{Start: num(), End: num(), Window: s.intn(2) == 0, Lo: num(), Hi: num()})
		}
		p.Buffers = append(p.Buffers, b)
	}
	var pl *model.Plan
	if s.intn(8) != 0 {
		pl = &model.Plan{}
		m := n
		if s.intn(8) == 0 {
			m = s.intn(10)
		}
		for i := 0; i < m; i++ {
			pl.Placements = append(pl.Placements, model.Placement{Offset: num(), Pool: s.intn(4) - 1, Size: num()})
		}
	}
	return p, pl
}
