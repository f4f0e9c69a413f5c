package solve

import (
	"context"
	"time"

	"github.com/optalloc/optalloc/heuristics"
)

// The first plan's planner, chosen by work (issue 44, item 1).
//
// On millions of buffers the first plan is the sweep that decides most
// there (heuristics.FirstPlanner): as cheap as the free list and far
// lower, so that a limit that lets one planner end gives the sweep's plan.
// But it is not quite as cheap: on 1 000 000 dense random buffers
// sweep-classes took 1.9–2.6 s of CPU where the free list took 0.9–1.1 s.
// At a load where the time limit lends the solve less CPU than the sweep
// needs, the sweep first would end with no plan at all where the free list
// first ends on its plan (4.44% above max-live there, ten CPU-bound loops
// beside a 10 s limit). So the sweep comes first only when the CPU the
// machine has lent the solve so far, kept up until the deadline, covers
// it; else the free list comes first, and the sweep runs after it in the
// portfolio, as before.

// sweepOverStart is the decisive sweep's CPU time (with its verification),
// as a multiple of the CPU time the solve spent before its first plan
// (validating and normalising the problem: 0.20–0.25 s on 1 000 000 dense
// random buffers, 0.13 s on the skip connections; a measure of the
// machine's speed on that problem). Measured on the traces of
// benchmarks/cmd/scale: sweep-classes about 2.0 s of CPU on the dense
// random trace (8–10 times), sweep-peak about 1.0–1.3 s on the skip
// connections (8–10 times); 12 leaves a margin.
const sweepOverStart = 12

// minStartWall is the shortest start over which the CPU the machine lends
// is read: below it (small problems), the decisive sweep comes first.
const minStartWall = 20 * time.Millisecond

// pickFirstPlanner names the planner of the solve's first plan:
// heuristics.FirstPlanner, or the free list where the decisive sweep would
// not end before ctx's deadline at the CPU the machine lends (see above).
func (s *solver) pickFirstPlanner(ctx context.Context) string {
	name := heuristics.FirstPlanner(s.p)
	dl, ok := ctx.Deadline()
	if name == "freelist" || !ok {
		return name
	}
	return firstUnderLoad(name, time.Since(s.start), cpuNow()-s.startCPU, time.Until(dl))
}

// firstUnderLoad is pickFirstPlanner's rule: the solve has used cpu over
// wall so far and has left before its deadline; sweep comes first when
// the CPU it may get until then, at the same rate, covers sweepOverStart
// times cpu.
func firstUnderLoad(sweep string, wall, cpu, left time.Duration) string {
	if wall < minStartWall || cpu <= 0 {
		return sweep
	}
	lent := time.Duration(float64(left) * float64(cpu) / float64(wall))
	if lent < sweepOverStart*cpu {
		return "freelist"
	}
	return sweep
}
