package heuristics

import (
	"cmp"
	"context"
	"hash/fnv"
	"slices"
	"strings"

	"github.com/optalloc/optalloc/model"
)

func init() {
	for _, o := range []string{"size", "lifetime", "area", "overlap", "size,lifetime", "size*overlap"} {
		Register(&Strip{Order: o})
	}
}

// Strip is the strip-packing planner of seed patent 001. Buffers are
// rectangles (time × bytes), sorted by a metric (size, lifetime, area,
// degree, overlap = sum of time shared with other buffers, start; combined
// lexicographically by ",", by sum "+", product "*" or ratio "/", and a
// part ending in ":asc" taken lowest first: see Order) and dropped bottom-left: each to the lowest
// free offset among the placed rectangles it meets in time. The threshold
// is the max-live bound. While the peak exceeds it, rectangles are
// classified: high risk (ending above the threshold, and those overlapping
// them in time), medium (ending exactly at it, and their time neighbours),
// low (overlapping high or medium), none; high and medium are clustered by
// time overlap and each cluster re-ordered (the rectangles that ended
// highest first, then the previous order), the classes merged in risk order
// and everything re-placed. It stops at the threshold, at a repeated order
// (fixed point), after MaxIter rounds or when the work Budget is spent,
// returning the best plan seen.
type Strip struct {
	// Order is the sort spec: parts joined by "," (the first decides,
	// later ones break ties); a part is a sum of terms ("+", each term
	// divided by its largest value), a term a product ("*") or ratio ("/")
	// of metric names; ":asc" at the end of a part places low scores
	// first. Example: "size/lifetime,start:asc".
	Order string
	// MaxIter caps the re-ordering rounds; 0 means 64.
	MaxIter int
	// NoReorder stops after the first bottom-left placement.
	NoReorder bool
	// Budget caps the work, in list entries scanned by the placer (about
	// n²/2 per round); 0 means 4e7 on up to 1000 items, scaled down by
	// (1000/n)² above (one round on 5 600 buffers, hundreds on a few
	// hundred). At least one round always runs.
	Budget float64
}

// stripOps spell the order's operators in a planner name.
var stripOps = strings.NewReplacer(",", "-", "*", "-x-", "+", "-plus-", "/", "-per-", ":asc", "-asc")

// Name implements Planner: "strip-" and the order with "," as "-", "*" as
// "-x-", "+" as "-plus-", "/" as "-per-" and ":asc" as "-asc"
// (strip-size-lifetime, strip-size-x-overlap, strip-size-per-lifetime,
// strip-lifetime-asc-size). ByName accepts any such name.
func (s *Strip) Name() string { return "strip-" + stripOps.Replace(s.Order) }

// StripByName returns the Strip planner a name spells (the inverse of
// Name), or false when the name is not a valid strip order.
func StripByName(name string) (*Strip, bool) {
	rest, ok := strings.CutPrefix(name, "strip-")
	if !ok || rest == "" {
		return nil, false
	}
	var b strings.Builder
	metricLast := false
	for _, tok := range strings.Split(rest, "-") {
		switch tok {
		case "x", "plus", "per":
			if !metricLast {
				return nil, false
			}
			b.WriteString(map[string]string{"x": "*", "plus": "+", "per": "/"}[tok])
			metricLast = false
		case "asc":
			if !metricLast {
				return nil, false
			}
			b.WriteString(":asc")
		default:
			if _, ok := metrics[tok]; !ok {
				return nil, false
			}
			if b.Len() > 0 && (metricLast || strings.HasSuffix(b.String(), ":asc")) {
				b.WriteByte(',')
			}
			b.WriteString(tok)
			metricLast = true
		}
	}
	s := &Strip{Order: b.String()}
	if _, err := parseKeys(s.Order, nil); err != nil || s.Name() != name {
		return nil, false
	}
	return s, true
}

// Plan implements Planner. Settings in ctx (StripRounds, StripBudget,
// StripNoReorder) override the planner's own fields.
func (s *Strip) Plan(ctx context.Context, p *model.Problem) (*model.Plan, error) {
	if st := settingsOf(ctx); st != nil {
		c := *s
		if st.StripRounds > 0 {
			c.MaxIter = st.StripRounds
		}
		if st.StripBudget > 0 {
			c.Budget = st.StripBudget
		}
		c.NoReorder = c.NoReorder || st.StripNoReorder
		s = &c
	}
	return perPool(ctx, p, s.plan)
}

// risk classes, in merge order.
const (
	riskHigh = iota
	riskMedium
	riskLow
	riskNone
)

func (s *Strip) plan(ctx context.Context, its []item) ([]int64, error) {
	keys, err := parseKeys(s.Order, its)
	if err != nil {
		return nil, err
	}
	order := orderBy(its, keys)
	thr := maxLive(its)
	maxIter := s.MaxIter
	if maxIter <= 0 {
		maxIter = 64
	}
	pc := newPlacer(its)
	var bestOff []int64
	bestPeak := int64(-1)
	seen := map[uint64]bool{}
	class := make([]int8, len(its))
	top := make([]int64, len(its))
	budget := s.Budget
	if budget <= 0 {
		budget = scaledBudget(4e7, len(its))
	}
	cost := pc.work() // n²/2 + n on plain items
	for iter := 0; iter < maxIter && (iter == 0 || budget >= cost); iter++ {
		budget -= cost
		peak, err := pc.run(ctx, order, true)
		if err != nil {
			if bestOff != nil {
				break // keep the best so far
			}
			return nil, err
		}
		if bestPeak < 0 || peak < bestPeak {
			bestPeak, bestOff = peak, slices.Clone(pc.off)
		}
		if peak <= thr || s.NoReorder {
			break
		}
		h := hashOrder(order)
		if seen[h] {
			break // fixed point
		}
		seen[h] = true
		for k := range its {
			top[k] = pc.off[k] + its[k].size
		}
		classify(its, top, thr, class)
		order = mergeClasses(its, order, class, top, thr)
	}
	return bestOff, nil
}

// classify sets the risk class of every item.
func classify(its []item, top []int64, thr int64, class []int8) {
	var above, at []int
	for k := range its {
		class[k] = riskNone
		if its[k].size == 0 {
			continue
		}
		switch {
		case top[k] > thr:
			above = append(above, k)
		case top[k] == thr:
			at = append(at, k)
		}
	}
	mark := func(seeds []int, c int8) {
		u := unionOf(its, seeds)
		for k := range its {
			if class[k] > c && its[k].size > 0 && u.meets(its[k].start, its[k].end) {
				class[k] = c
			}
		}
		for _, k := range seeds {
			if class[k] > c {
				class[k] = c
			}
		}
	}
	mark(above, riskHigh)
	mark(at, riskMedium)
	var hm []int
	for k := range its {
		if class[k] <= riskMedium {
			hm = append(hm, k)
		}
	}
	mark(hm, riskLow)
}

// intervals is a sorted union of disjoint time intervals.
type intervals []span

func unionOf(its []item, ks []int) intervals {
	var u intervals
	for _, k := range ks {
		u = append(u, span{its[k].start, its[k].end})
	}
	slices.SortFunc(u, func(a, b span) int { return cmp.Compare(a.lo, b.lo) })
	var out intervals
	for _, s := range u {
		if n := len(out); n > 0 && s.lo < out[n-1].hi {
			out[n-1].hi = max(out[n-1].hi, s.hi)
			continue
		}
		out = append(out, s)
	}
	return out
}

// meets reports whether [s, e) intersects the union.
func (u intervals) meets(s, e int64) bool {
	i, _ := slices.BinarySearchFunc(u, s, func(x span, s int64) int {
		if x.hi <= s {
			return -1
		}
		return 1
	})
	return i < len(u) && u[i].lo < e
}

// mergeClasses builds the next order: the high clusters, then the medium
// clusters (each cluster: the items that ended highest first, then the
// previous order), then low and none in the previous order.
func mergeClasses(its []item, order []int32, class []int8, top []int64, thr int64) []int32 {
	rank := make([]int32, len(its))
	for i, k := range order {
		rank[k] = int32(i)
	}
	next := make([]int32, 0, len(order))
	for c := int8(riskHigh); c <= riskMedium; c++ {
		var ks []int
		for _, k := range order {
			if class[k] == c {
				ks = append(ks, int(k))
			}
		}
		// clusters by time overlap: sort by start, cut where no overlap
		slices.SortFunc(ks, func(a, b int) int {
			if d := cmp.Compare(its[a].start, its[b].start); d != 0 {
				return d
			}
			return int(rank[a] - rank[b])
		})
		for i := 0; i < len(ks); {
			j, end := i+1, its[ks[i]].end
			for j < len(ks) && its[ks[j]].start < end {
				end = max(end, its[ks[j]].end)
				j++
			}
			cl := ks[i:j]
			slices.SortFunc(cl, func(a, b int) int {
				if ha, hb := top[a] >= thr, top[b] >= thr; ha != hb {
					if ha {
						return -1
					}
					return 1
				}
				return int(rank[a] - rank[b])
			})
			for _, k := range cl {
				next = append(next, int32(k))
			}
			i = j
		}
	}
	for _, k := range order {
		if class[k] >= riskLow {
			next = append(next, k)
		}
	}
	return next
}

func hashOrder(order []int32) uint64 {
	h := fnv.New64a()
	var b [4]byte
	for _, k := range order {
		b[0], b[1], b[2], b[3] = byte(k), byte(k>>8), byte(k>>16), byte(k>>24)
		h.Write(b[:])
	}
	return h.Sum64()
}
