package bounds

import (
	"time"

	"github.com/optalloc/optalloc/exact/bnb"
	"github.com/optalloc/optalloc/exact/sat"
)

// Options control Prove and Windows (solve.Options carries the same
// fields).
type Options struct {
	// TimeLimit bounds Prove; 0 means none (the context still applies).
	TimeLimit time.Duration
	// Threads and Seed override the engines' own. Prove runs its provers
	// side by side, so Threads 1 still keeps up to three goroutines busy;
	// a caller that must stay on n cores sets runtime.GOMAXPROCS(n), as
	// the CLI's bounds --threads does.
	Threads int
	Seed    int64
	// NoBnB and NoSAT leave an engine out.
	NoBnB, NoSAT bool
	// BnB and SAT configure the exact engines.
	BnB bnb.Options
	SAT sat.Options
}
