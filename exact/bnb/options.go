package bnb

import (
	"fmt"
	"runtime"
	"time"
)

// Options configures the engine. The zero value enables every technique
// and runs one worker per CPU.
type Options struct {
	// Pruning techniques, each can be switched off to measure its effect.
	NoSectionInference bool // section floor + unplaced total > capacity ⇒ prune
	NoDominance        bool // an unplaced item that fits below the candidate ⇒ skip
	NoUnplacedShortcut bool // items conflicting with nothing unplaced are placed without branching
	NoComponents       bool // do not split the problem at time points nothing spans
	NoMemo             bool // do not remember failed states (hash-free proofs)
	NoSplit            bool // do not solve time-disjoint groups of unplaced items independently
	NoSymmetry         bool // identical items (same lifetime, size, alignment, unpinned) in any order
	NoAlignStacks      bool // section inference counts aligned items at their size, not rounded up to the alignment
	NoCanonical        bool // placements need not be non-decreasing in (offset, rank) across steps
	NoWindows          bool // no window refutation of nodes whose subtree has grown large
	// NoContinue makes every static order restart from scratch each round
	// of the portfolio. By default an order whose window checks have
	// refuted a state pauses at its node limit and goes on from there at
	// its next turn (resume.go).
	NoContinue bool
	// NoLag runs every static order at the round's limit: by default an
	// order that is shallow or stuck runs 8 rounds behind, and "random" (a
	// fresh shuffle each round, with no depth of its own) always does.
	NoLag bool
	// NoProbe makes Decide search only at the given capacity, without
	// alternating with probes at the (tighter) lower bound.
	NoProbe bool
	// MaxRounds, when > 0 and Decide searches the capacity alone (NoProbe,
	// or no room below it), stops Decide after that many rounds of the
	// portfolio (node limits NodeLimit, 2·NodeLimit, ...) with Unknown: a
	// decision bounded in work, not time, so one thread stays
	// deterministic (LNS uses it). 0 means no limit.
	MaxRounds int
	// RankFirst tries the candidates of a node in static-rank order instead
	// of (offset, rank) order.
	RankFirst bool

	// LowerBound is a lower bound on the peak the caller has proven (say
	// an alignment-aware one); Decide's probes start there instead of at
	// max-live, and Minimise may claim optimality when it is reached.
	LowerBound int64

	// Threads is the number of portfolio workers (default runtime.NumCPU()).
	// With 1 the search is deterministic.
	Threads int
	// Seed drives the "random" static order.
	Seed int64
	// Orders names the static orders of the portfolio: "random" or key
	// letters such as "TWA", optionally with the suffix "-rank" (see
	// staticOrder; default: DefaultOrders()).
	Orders []string
	// NodeLimit is the node budget of one order in the first round of the
	// portfolio; it doubles every round (default 8192).
	NodeLimit int64
	// MaxPairs bounds the pairs of buffers alive at the same time the
	// engine takes on (default 4 M); beyond it the engine declines with an
	// error. Memory grows with it: each pair sits in two conflict lists,
	// and every order of the portfolio keeps an undo trail as long as the
	// pairs along its path. Measured: mindspore bert_base (2.95 M pairs) is
	// proven optimal in 1.4 s in 344 MB; a 10 000-buffer transformer trace
	// with a backward pass (13 M pairs) took 1.3 GB and improved nothing in
	// 5 s; one of 62 000 buffers has 509 M pairs.
	MaxPairs int64
	// MaxItems bounds the buffers (alias groups counted once) the engine
	// takes on (default 16 384): a node costs O(n), so on a graph of
	// 100 000 ops it searched 800 nodes in 9 s, in 2.6 GB.
	MaxItems int
	// MaxNodes, when > 0, stops Minimise once its decisions have searched
	// that many nodes (checked between decisions, so one decision may run
	// past it). Unlike a time limit it keeps a one-thread search
	// deterministic: the refinement engine of solve bounds each window so.
	MaxNodes int64
}

// overBudget says why f is over the engine's budgets (buffers, pairs), or
// returns "".
func (o *Options) overBudget(f *folded) string {
	items := 0
	for _, it := range f.items {
		if it.size > 0 {
			items++
		}
	}
	if items > o.maxItems() {
		return fmt.Sprintf("bnb: %d buffers, over the engine's budget of %d", items, o.maxItems())
	}
	if n := f.pairs(); n > o.maxPairs() {
		return fmt.Sprintf("bnb: %d pairs of buffers alive at the same time, over the engine's budget of %d", n, o.maxPairs())
	}
	return ""
}

func (o *Options) maxItems() int {
	if o.MaxItems > 0 {
		return o.MaxItems
	}
	return 16384
}

func (o *Options) maxPairs() int64 {
	if o.MaxPairs > 0 {
		return o.MaxPairs
	}
	return 4 << 20
}

func (o *Options) threads() int {
	if o.Threads > 0 {
		return o.Threads
	}
	return runtime.NumCPU()
}

func (o *Options) orders() []string {
	if len(o.Orders) > 0 {
		return o.Orders
	}
	return orderNames
}

func (o *Options) flags() flags {
	return flags{sections: !o.NoSectionInference, dominance: !o.NoDominance,
		shortcut: !o.NoUnplacedShortcut, memo: !o.NoMemo, split: !o.NoSplit, byOffset: !o.RankFirst,
		symmetry: !o.NoSymmetry, alignStacks: !o.NoAlignStacks, canonical: !o.NoCanonical, windows: !o.NoWindows,
		memoMax: int(min(o.MaxNodes, 1<<30))}
}

// Status is the outcome of a decision.
type Status int

// Decision outcomes.
const (
	Unknown    Status = iota // time limit or cancellation before an answer
	Feasible                 // a plan within the capacity was found
	Infeasible               // the search was exhausted: no plan fits
)

func (s Status) String() string {
	switch s {
	case Feasible:
		return "feasible"
	case Infeasible:
		return "infeasible"
	}
	return "unknown"
}

// MarshalText makes a Status print as its name in JSON.
func (s Status) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Kinds of prune counted in Stats.Prunes.
const (
	pruneSection   = iota // section floor + unplaced total above capacity
	pruneDominance        // an item fits below the candidate (or below the last placement)
	pruneCanonical        // a pinned item can no longer come in canonical order
	pruneMemo             // a remembered failed state
	pruneCapacity         // a placement leaves an item above capacity or past its pin
	pruneFloor            // section bounds: a section's k-th lowest possible offset + its unplaced total from there above capacity
	pruneSplit            // a group of an independent split failed
	pruneWindow           // the node's unplaced items in a window of sections have no packing
	numPrune
)

var pruneNames = [numPrune]string{"section", "dominance", "canonical", "memo", "capacity", "floor", "split", "window"}

// counters are the hot-loop statistics of one worker.
type counters struct {
	Nodes, Backtracks, Forced, Splits int64
	WindowNodes                       int64 // nodes of window searches (not in Nodes)
	Resumed                           int64 // turns where a paused search went on
	prunes                            [numPrune]int64
}

// Stats describes a search. Counts add up over all workers and steps.
type Stats struct {
	Nodes      int64 `json:"nodes"`
	Backtracks int64 `json:"backtracks"`
	Forced     int64 `json:"forced"` // placements made by the unplaced shortcut
	Splits     int64 `json:"splits"` // nodes where the unplaced items split into independent groups
	// WindowNodes are the nodes of window refutations (not in Nodes).
	WindowNodes int64 `json:"window_nodes,omitempty"`
	// Resumed counts the portfolio's turns where an order's search went on
	// from where it paused instead of starting afresh (Options.NoContinue).
	Resumed    int64            `json:"resumed,omitempty"`
	Prunes     map[string]int64 `json:"prunes"`
	Components int              `json:"components"`
	Rounds     int              `json:"rounds"`           // portfolio rounds (node limit doublings) of the last decision
	Winner     string           `json:"winner,omitempty"` // static order that gave the last answer
	Decisions  int              `json:"decisions"`        // capacities decided (Minimise)
	Scale      int64            `json:"scale"`            // GCD the problem was divided by
	Elapsed    time.Duration    `json:"elapsed_ns"`       // wall time of the call
	Steps      []Step           `json:"steps,omitempty"`  // Minimise: one entry per capacity tried
	Exact      bool             `json:"exact"`            // false when gaps or alias lifetimes made the model conservative
	Note       string           `json:"note,omitempty"`   // why a proof was not claimed
}

// Step is one decision made by Minimise.
type Step struct {
	Capacity int64         `json:"capacity"`
	Status   Status        `json:"status"`
	Peak     int64         `json:"peak,omitempty"`
	Nodes    int64         `json:"nodes"`
	Elapsed  time.Duration `json:"elapsed_ns"`
}

func (st *Stats) absorb(c *counters) {
	st.Nodes += c.Nodes
	st.Backtracks += c.Backtracks
	st.Forced += c.Forced
	st.Splits += c.Splits
	st.WindowNodes += c.WindowNodes
	st.Resumed += c.Resumed
	if st.Prunes == nil {
		st.Prunes = map[string]int64{}
	}
	for k, v := range c.prunes {
		st.Prunes[pruneNames[k]] += v
	}
}
