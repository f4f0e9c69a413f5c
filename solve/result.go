package solve

import (
	"time"

	"github.com/optalloc/optalloc/model"
)

// Status says what is known about a result.
type Status string

// The statuses of a result.
const (
	// Optimal: the plan's peak equals a proven lower bound.
	Optimal Status = "optimal"
	// Feasible: a valid plan (within the capacity, if one was given) whose
	// optimality is not proven.
	Feasible Status = "feasible"
	// Infeasible: no plan fits the capacity, and the code proved it.
	Infeasible Status = "infeasible"
	// Unknown: no plan within the capacity was found and none was refuted.
	// The lowest plan found above the capacity, if any, is Result.Best:
	// its peak and gap are the result's.
	Unknown Status = "unknown"
)

// Progress is reported while solving: the best peak so far and the bound.
type Progress struct {
	Elapsed    time.Duration
	Peak       int64
	LowerBound int64
	Nodes      int64
	Phase      string
}

// Result is the outcome of Solve.
type Result struct {
	// Plan is the best verified plan; nil when none was found (or, with a
	// capacity, none fits).
	Plan *model.Plan
	// Best is, for a decision that ends unknown, the lowest plan found
	// above the capacity (not a plan of the decision: it is never
	// output); Peak, Gap and Method are then its. Nil otherwise.
	Best       *model.Plan
	Peak       int64
	LowerBound int64
	Status     Status
	// Method names the planner or engine that found the plan.
	Method  string
	Elapsed time.Duration
	// Reason explains an infeasible or unknown status.
	Reason string
	// Split describes the split over the pools of a multi-pool problem.
	Split *Split
	Stats Stats
}

// Derive sets r's Peak from its plan and its Status from that peak and
// r.LowerBound: optimal at the bound, feasible above it (Gap derives from
// both). A result's figures are never carried beside its plan: every pass
// that changes the plan sets it through solver.setPlan, which derives them
// again, and finish derives them from the plan that is output (a scratch
// pass had lowered the plan to the bound while the summary kept the
// engines' peak: peak=1700 gap=13.33% feasible for a plan of 1 500,
// optimal). Without a plan, only Best's peak is derived (the status is
// the caller's).
//
// Every pass that changes the plan calls it, in solve and outside (the
// device package after replaying a runtime's placement).
func (r *Result) Derive(p *model.Problem) {
	if r.Plan == nil {
		if r.Best != nil {
			r.Peak = r.Best.Peak(p)
		}
		return
	}
	r.Peak = r.Plan.Peak(p)
	r.Status = Feasible
	if r.Peak <= r.LowerBound {
		r.Status = Optimal
	}
}

// Gap returns (peak − lower bound) / lower bound in percent: for a decision
// that found no plan within its capacity, the gap of the best plan found
// above it. It is 0 when the lower bound or the peak is 0 (no plan at all).
func (r *Result) Gap() float64 {
	if r.Peak <= 0 || r.LowerBound <= 0 {
		return 0
	}
	return float64(r.Peak-r.LowerBound) / float64(r.LowerBound) * 100
}

// Stats collects what the phases and engines did.
type Stats struct {
	// PhaseMillis is the wall time of each phase in milliseconds.
	PhaseMillis map[string]float64 `json:"phase_ms"`
	// Heuristics maps planner names to the peaks they reached.
	Heuristics map[string]int64 `json:"heuristics,omitempty"`
	// Engines holds engine-specific statistics (nodes, prunes, clauses...).
	Engines map[string]any `json:"engines,omitempty"`
	// FirstPlanMillis is when the first plan that fits was kept, in
	// milliseconds from the start of the solve.
	FirstPlanMillis float64 `json:"first_plan_ms,omitempty"`
	// HintsHonoured counts the hinted buffers that sit at their hint.
	HintsHonoured int `json:"hints_honoured,omitempty"`
	// WorkCut is set when a work-budgeted solve (Options.Work) was ended
	// by its time limit: its answer may differ from one machine to the
	// next.
	WorkCut bool `json:"work_cut,omitempty"`
}

// engine records an engine's statistics under name.
func (s *Stats) engine(name string, v any) {
	if s.Engines == nil {
		s.Engines = map[string]any{}
	}
	s.Engines[name] = v
}

func (s *Stats) phase(name string, since time.Time) {
	if s.PhaseMillis == nil {
		s.PhaseMillis = map[string]float64{}
	}
	s.PhaseMillis[name] += float64(time.Since(since).Microseconds()) / 1000
}
