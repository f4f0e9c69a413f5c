package sat

import (
	"encoding/json"
	"fmt"
	"time"
)

// Options selects the encoding techniques and the resource limits. The zero
// value turns every technique on with the default budgets.
type Options struct {
	// NoCover drops the cover clauses: every address unit of a section whose
	// load equals the height must be covered by one of its buffers.
	NoCover bool
	// NoSlackCover limits the cover clauses to full sections. Otherwise a
	// section with slack σ ≤ H/32 gets: every σ+1 consecutive address
	// units meet one of its buffers.
	NoSlackCover bool
	// NoSymmetry drops symmetry breaking (one buffer reflected into the lower
	// half of the height; identical buffers ordered by index).
	NoSymmetry bool
	// NoDomainFilter keeps every aligned offset in a domain instead of only
	// the subset sums of the other sizes (push-down normal form).
	NoDomainFilter bool
	// NoPinFilter keeps in a domain the offsets at which an item would
	// share bytes with a pinned item, and encodes those pairs with clauses,
	// instead of dropping the offsets and the pairs.
	NoPinFilter bool
	// MaxVars and MaxClauses bound the size of one encoding; an encoding
	// that would exceed either is refused (Unknown with a reason) before it
	// is built. 0 means DefaultMaxVars / DefaultMaxClauses.
	MaxVars, MaxClauses int64
	// Slice is the longest interval at which a running solve checks the
	// context (0 = 10ms; polling starts at 20µs and doubles).
	Slice time.Duration
	// WindowBuffers bounds the number of buffers of a time window tried by
	// ProveLowerBound (0 = 100; MaxClauses usually binds first: about 80
	// buffers on MiniMalloc's 1024-unit axis).
	WindowBuffers int
	// WindowTime bounds each solver call of ProveLowerBound (0 = 5s).
	WindowTime time.Duration
	// NoFirstFit makes Decide skip its first-fit packing (which answers
	// Feasible without SAT when it fits).
	NoFirstFit bool
	// NoProbe makes Minimise descend from the incumbent only, without first
	// trying the lower bound itself.
	NoProbe bool
	// ProbeTime bounds each probe of the lower bound in Minimise (0 = 2s).
	ProbeTime time.Duration
	// LNSBuffers is the size of Improve's first neighbourhoods (0 = 30);
	// LNSTime bounds each of its solver calls (0 = 1s).
	LNSBuffers int
	LNSTime    time.Duration
	// LNS makes Minimise fall back on Improve when the whole problem is
	// over budget (otherwise it returns the incumbent at once, which keeps
	// a race with another engine cheap).
	LNS bool
	// RoundUp > 1 rounds every size up to a multiple of RoundUp bytes and
	// places offsets on multiples of it: a coarser axis (a smaller
	// encoding) whose plans are valid but whose refutations prove nothing
	// (Decide then answers Unknown; Minimise proves only max-live). Pins and
	// alignments must be compatible (pins multiples of RoundUp, alignments
	// dividing it); alias deltas must be too.
	RoundUp int64
	// RoundUnits lists the unit sizes (bytes) ProveLowerBound tries for the
	// rounded-down relaxation; nil means none.
	RoundUnits []int64
}

// Default budgets for one encoding.
const (
	DefaultMaxVars    = 2_000_000
	DefaultMaxClauses = 6_000_000
)

func (o *Options) maxVars() int64 {
	if o.MaxVars > 0 {
		return o.MaxVars
	}
	return DefaultMaxVars
}

func (o *Options) maxClauses() int64 {
	if o.MaxClauses > 0 {
		return o.MaxClauses
	}
	return DefaultMaxClauses
}

func (o *Options) probeTime() time.Duration {
	if o.ProbeTime > 0 {
		return o.ProbeTime
	}
	return 2 * time.Second
}

func (o *Options) windowBuffers() int {
	if o.WindowBuffers > 0 {
		return o.WindowBuffers
	}
	return 100
}

// Stats counts the work done. Vars and Clauses are those of the encodings
// built (summed when several were); Conflicts are gini's conflict count.
type Stats struct {
	Vars      int64 `json:"vars"`
	Clauses   int64 `json:"clauses"`
	Conflicts int64 `json:"conflicts"`
	Calls     int   `json:"calls"`
	Encodings int   `json:"encodings"`
	// Windows counts the relaxations ProveLowerBound tried.
	Windows int `json:"windows,omitempty"`
	// Reason says why an answer is Unknown (budget refused, conservative
	// model, time out) or how a bound was proven.
	Reason string `json:"reason,omitempty"`
	// Scale is the unit (GCD) of the last encoding, in bytes.
	Scale int64 `json:"scale"`
}

func (s *Stats) add(t Stats) {
	s.Vars += t.Vars
	s.Clauses += t.Clauses
	s.Conflicts += t.Conflicts
	s.Calls += t.Calls
	s.Encodings += t.Encodings
	s.Windows += t.Windows
	if t.Reason != "" {
		s.Reason = t.Reason
	}
	if t.Scale != 0 {
		s.Scale = t.Scale
	}
}

// Status is the answer of a decision.
type Status int

// The answers of Decide.
const (
	Unknown Status = iota
	Feasible
	Infeasible
)

// String returns "unknown", "feasible" or "infeasible".
func (s Status) String() string {
	switch s {
	case Feasible:
		return "feasible"
	case Infeasible:
		return "infeasible"
	case Unknown:
		return "unknown"
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// MarshalJSON writes the status as its name.
func (s Status) MarshalJSON() ([]byte, error) { return json.Marshal(s.String()) }
